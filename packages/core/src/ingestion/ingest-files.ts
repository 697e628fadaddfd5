/**
 * File ingestion as a job: each file is ingested on its own (`ingestFile`, in a worker thread or
 * in this one: the write rules, the unchanged check, loading and atomic indexing), with up to
 * `MAX_INGESTION_THREADS` files in flight. A rejected file is recorded in the job with its error
 * code and the rest of the batch goes on; nothing of a rejected file is written. The job's state
 * is saved after every file.
 */
import { basename, extname } from "node:path";
import pLimit, { type LimitFunction } from "p-limit";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import type { Logger } from "../logging/logger.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import { errorCodeOf, withSpan } from "../telemetry/tracing.js";
import type { EmbeddingProgress } from "./embed-chunks.js";
import type { FileIngestionRequest, FilePlan, FileSource, IngestedFile } from "./ingest-file.js";

export type { FileSource } from "./ingest-file.js";

/** Embedding work of a running job so far, over all its files. */
export interface IngestionThroughput {
  /** Chunks the embedding model embedded. */
  embeddedChunks: number;
  /** Chunks whose vector came from the embedding cache. */
  cachedChunks: number;
  /** `embeddedChunks` per second since the job's first embedding started (0 before). */
  chunksPerSecond: number;
  /**
   * Chunks of the files whose chunk count is known (planned, or being embedded): the embedding
   * work to do, summary nodes not counted. With `plan`, every file's count is known once the
   * plan is done.
   */
  plannedChunks: number;
  /** Files whose chunk count is known (counted in `plannedChunks`), of the job's files. */
  plannedFiles: number;
}

/**
 * Progress of a running job: called after each file planned (with `plan`), after each file, and
 * while a file's chunks are embedded (after each slice of `embeddingSliceSize` chunks, in this
 * thread or a worker thread), with the job's embedding throughput.
 */
export type IngestionProgressListener = (job: IngestionJob, file: string, throughput: IngestionThroughput) => void;

/** What one run of an ingestion job needs. */
export interface IngestionRun {
  /** Ingests one file of the job (see `IngestionExecutor.ingestFile`: a worker thread or this one). */
  ingest(request: FileIngestionRequest): Promise<IngestedFile>;
  /**
   * Plans one file (see `IngestionExecutor.planFile`); when given, every file is planned before
   * any is ingested, so that progress counts the chunks of every file from the start. Default
   * none: a file's chunks are counted when its embedding starts.
   */
  plan?: ((request: FileIngestionRequest) => Promise<FilePlan>) | undefined;
  /** Files processed at once (`MAX_INGESTION_THREADS`). */
  concurrency: number;
  /** `TRACE_CONTENT`: file names go into spans. */
  traceContent?: boolean | undefined;
  logger: Logger;
  /** Receives the `fileIngested` metric events; default none. */
  metrics?: ServiceMetrics | undefined;
  jobStore: JobStore;
  job: IngestionJob;
  files: readonly FileSource[];
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** Metadata applied to every document (`acl`, `owner_id`, `source`, ...). */
  metadata: Record<string, unknown>;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  onProgress?: IngestionProgressListener | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Runs an ingestion job to completion, saving its state after every file. The job is one span,
 * `docqa.ingest.job`, parent of one `docqa.ingest.file` span per file (see `ingestFileInSpan`).
 */
export async function runIngestionJob(run: IngestionRun): Promise<IngestionJob> {
  return withSpan(
    "docqa.ingest.job",
    { "docqa.job_id": run.job.jobId, "docqa.org_id": run.job.orgId, "docqa.files": run.files.length },
    async (span) => {
      const job = await runJobFiles(run);
      span.setAttributes({
        "docqa.job.state": job.state,
        "docqa.files.ingested": job.files.ingested,
        "docqa.files.unchanged": job.files.unchanged,
        "docqa.files.failed": job.files.failed,
        "docqa.documents": job.documents,
        "docqa.chunks": job.chunks,
      });
      return job;
    },
  );
}

async function runJobFiles(run: IngestionRun): Promise<IngestionJob> {
  const { job, jobStore } = run;
  job.state = "running";
  job.startedAt ??= new Date().toISOString();
  job.files = { total: run.files.length, processed: 0, ingested: 0, unchanged: 0, failed: 0 };
  job.documents = 0;
  job.chunks = 0;
  job.errors = [];
  job.warnings = [];
  await jobStore.save(job);
  const limit = pLimit(Math.max(1, run.concurrency));
  let saving = Promise.resolve();
  const throughput: IngestionThroughput = { embeddedChunks: 0, cachedChunks: 0, chunksPerSecond: 0, plannedChunks: 0, plannedFiles: 0 };
  /** Each file's known chunk count, by its index in the job. */
  const planned = new Map<number, number>();
  /** Chunks with a vector so far, by file index. */
  const done = new Map<number, number>();
  const plan = (index: number, chunks: number) => {
    if (planned.has(index)) return;
    planned.set(index, chunks);
    throughput.plannedChunks += chunks;
    throughput.plannedFiles = planned.size;
  };
  /** Once a file is finished, its work is what it did (a rejected or unchanged file did none). */
  const settle = (index: number) => {
    const actual = done.get(index) ?? 0;
    throughput.plannedChunks += actual - (planned.get(index) ?? 0);
    planned.set(index, actual);
    throughput.plannedFiles = planned.size;
  };
  const labelOf = (file: FileSource) => file.name ?? file.path ?? "(unnamed)";
  if (run.plan && run.files.length > 1)
    await planFiles(run, limit, (index, chunks) => {
      plan(index, chunks);
      run.onProgress?.(job, labelOf(run.files[index] as FileSource), { ...throughput });
    });
  let embeddingStarted: number | undefined;
  const embeddingListener = (label: string, index: number) => {
    let last = { done: 0, embedded: 0, cached: 0 };
    return (progress: EmbeddingProgress) => {
      // Updates from a worker thread arrive on their own port, possibly after the final one the
      // outcome carries: only a later state counts.
      if (progress.done < last.done || (progress.done === last.done && last.done > 0)) return;
      plan(index, progress.total);
      embeddingStarted ??= performance.now() - progress.embeddingMs;
      throughput.embeddedChunks += progress.embedded - last.embedded;
      throughput.cachedChunks += progress.cached - last.cached;
      last = progress;
      done.set(index, progress.done);
      const seconds = (performance.now() - embeddingStarted) / 1000;
      throughput.chunksPerSecond = seconds > 0 ? throughput.embeddedChunks / seconds : 0;
      run.onProgress?.(job, label, { ...throughput });
    };
  };
  await Promise.all(
    run.files.map((file, index) =>
      limit(async () => {
        // The name the caller gave (an upload's file name) wins over a spool path.
        const label = labelOf(file);
        try {
          run.signal?.throwIfAborted();
          const outcome = await ingestFileInSpan(run, file, index, embeddingListener(label, index));
          if (outcome.unchanged) job.files.unchanged++;
          else job.files.ingested++;
          job.documents += outcome.documents;
          job.chunks += outcome.chunks;
          for (const message of outcome.warnings) job.warnings.push({ file: label, message });
        } catch (error) {
          if (run.signal?.aborted) throw error;
          run.metrics?.fileIngested?.({ outcome: "rejected", errorCode: errorCodeOf(error), documents: 0, chunks: 0 });
          job.files.failed++;
          job.errors.push({
            file: label,
            code: DocqaError.isInstance(error) ? error.code : "internal_error",
            message: DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message,
          });
          if (!DocqaError.isInstance(error) || error.code === "internal_error")
            run.logger.error(`file ingestion failed: ${(error as Error).message}`, {
              component: "ingestion",
              file: label,
              code: "internal_error",
              error: (error as Error).message,
              stack: (error as Error).stack,
            });
        }
        job.files.processed++;
        settle(index);
        saving = saving.then(() => jobStore.save(job));
        run.onProgress?.(job, label, { ...throughput });
      }),
    ),
  );
  await saving;
  const succeeded = job.files.ingested + job.files.unchanged;
  job.state = job.files.failed === 0 ? "succeeded" : succeeded === 0 ? "failed" : "partially_failed";
  job.finishedAt = new Date().toISOString();
  await jobStore.save(job);
  return job;
}

/** The request to ingest or plan one file of the job. */
function fileRequest(run: IngestionRun, file: FileSource): FileIngestionRequest {
  return {
    orgId: run.job.orgId,
    file,
    principal: run.principal,
    uploader: run.uploader,
    metadata: run.metadata,
    requestId: run.requestId,
    signal: run.signal,
  };
}

/**
 * Plans every file of the job (`run.plan`), `limit` at a time, calling `planned` with each file's
 * index and chunk count; a file whose plan fails counts 0 (its error is reported when it is
 * ingested).
 */
async function planFiles(run: IngestionRun, limit: LimitFunction, planned: (index: number, chunks: number) => void): Promise<void> {
  const plan = run.plan as NonNullable<IngestionRun["plan"]>;
  await Promise.all(
    run.files.map((file, index) =>
      limit(async () => {
        run.signal?.throwIfAborted();
        const chunks = await plan(fileRequest(run, file)).then(
          (result) => result.chunks,
          () => 0,
        );
        planned(index, chunks);
      }),
    ),
  );
}

/**
 * Ingests one file in its span `docqa.ingest.file` (`docqa.file.index`, `docqa.file.extension`,
 * `docqa.file.bytes` when known, `docqa.file.outcome`, `docqa.documents`, `docqa.chunks`; the
 * file name only when `TRACE_CONTENT` is true), and reports it to the metrics (`fileIngested`;
 * a rejection is reported by the caller, which also sees aborts).
 */
function ingestFileInSpan(
  run: IngestionRun,
  file: FileSource,
  index: number,
  onEmbeddingProgress: (progress: EmbeddingProgress) => void,
): Promise<IngestedFile> {
  const name = file.name ?? (file.path ? basename(file.path) : "");
  const attributes = {
    "docqa.file.index": index,
    "docqa.file.extension": extname(name).slice(1).toLowerCase(),
    ...(file.bytes ? { "docqa.file.bytes": file.bytes.byteLength } : {}),
    ...(run.traceContent ? { "docqa.file.name": name } : {}),
  };
  return withSpan("docqa.ingest.file", attributes, async (span) => {
    const outcome = await run.ingest({ ...fileRequest(run, file), onEmbeddingProgress });
    // The final state of the file's embedding (a worker thread's last update may come after it).
    if (outcome.embedding) onEmbeddingProgress(outcome.embedding);
    span.setAttributes({
      "docqa.file.outcome": outcome.unchanged ? "unchanged" : "ingested",
      "docqa.documents": outcome.documents,
      "docqa.chunks": outcome.chunks,
    });
    run.metrics?.fileIngested?.({
      outcome: outcome.unchanged ? "unchanged" : "ingested",
      errorCode: null,
      documents: outcome.documents,
      chunks: outcome.chunks,
    });
    return outcome;
  });
}
