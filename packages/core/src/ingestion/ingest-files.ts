/**
 * File ingestion as a job: each file is loaded (any of the six formats), skipped when its bytes
 * are unchanged since its last ingestion, and indexed atomically on its own, with up to
 * `MAX_INGESTION_THREADS` files in flight. A rejected file is recorded in the job with its error
 * code and the rest of the batch goes on; nothing of a rejected file is written.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import pLimit from "p-limit";
import { hashOf, type SourceDocument } from "../chunking/source-document.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import type { EmbeddingProgress } from "./embed-chunks.js";
import { type IndexingDependencies, indexDocuments, storedHash } from "./index-documents.js";
import { loaderVersion, loadFile } from "./loaders/load-file.js";

/** A file to ingest: a path to read, or bytes already in memory. */
export interface FileSource {
  /** File name with extension; decides the format. Default the path's base name. */
  name?: string | undefined;
  /** Path to read. */
  path?: string | undefined;
  /** Content, when not read from `path`. */
  bytes?: Uint8Array | undefined;
  /** Document id; default the name. A JSON record array adds `#<index>` per record. */
  docId?: string | undefined;
  lastModified?: Date | undefined;
}

/** Embedding work of a running job so far, over all its files. */
export interface IngestionThroughput {
  /** Chunks the embedding model embedded. */
  embeddedChunks: number;
  /** Chunks whose vector came from the embedding cache. */
  cachedChunks: number;
  /** `embeddedChunks` per second since the job's first embedding started (0 before). */
  chunksPerSecond: number;
}

/**
 * Progress of a running job: called after each file, and while a file's chunks are embedded
 * (after each slice of `embeddingSliceSize` chunks), with the job's embedding throughput.
 */
export type IngestionProgressListener = (job: IngestionJob, file: string, throughput: IngestionThroughput) => void;

/** What one run of an ingestion job needs. */
export interface IngestionRun {
  dependencies: IndexingDependencies;
  jobStore: JobStore;
  job: IngestionJob;
  files: readonly FileSource[];
  uploader: string;
  /** Metadata applied to every document (`acl`, `owner_id`, `source`, ...). */
  metadata: Record<string, unknown>;
  onProgress?: IngestionProgressListener | undefined;
  signal?: AbortSignal | undefined;
}

/** Runs an ingestion job to completion, saving its state after every file. */
export async function runIngestionJob(run: IngestionRun): Promise<IngestionJob> {
  const { job, jobStore } = run;
  job.state = "running";
  job.startedAt ??= new Date().toISOString();
  job.files = { total: run.files.length, processed: 0, ingested: 0, unchanged: 0, failed: 0 };
  job.documents = 0;
  job.chunks = 0;
  job.errors = [];
  job.warnings = [];
  await jobStore.save(job);
  const limit = pLimit(Math.max(1, run.dependencies.config.maxIngestionThreads));
  let saving = Promise.resolve();
  const throughput: IngestionThroughput = { embeddedChunks: 0, cachedChunks: 0, chunksPerSecond: 0 };
  let embeddingStarted: number | undefined;
  const embeddingListener = (label: string) => {
    let last = { embedded: 0, cached: 0 };
    return (progress: EmbeddingProgress) => {
      embeddingStarted ??= performance.now() - progress.embeddingMs;
      throughput.embeddedChunks += progress.embedded - last.embedded;
      throughput.cachedChunks += progress.cached - last.cached;
      last = progress;
      const seconds = (performance.now() - embeddingStarted) / 1000;
      throughput.chunksPerSecond = seconds > 0 ? throughput.embeddedChunks / seconds : 0;
      run.onProgress?.(job, label, { ...throughput });
    };
  };
  await Promise.all(
    run.files.map((file) =>
      limit(async () => {
        // The name the caller gave (an upload's file name) wins over a spool path.
        const label = file.name ?? file.path ?? "(unnamed)";
        try {
          run.signal?.throwIfAborted();
          const outcome = await ingestOne(run, file, embeddingListener(label));
          if (outcome.unchanged) job.files.unchanged++;
          else job.files.ingested++;
          job.documents += outcome.documents;
          job.chunks += outcome.chunks;
          for (const message of outcome.warnings) job.warnings.push({ file: label, message });
        } catch (error) {
          if (run.signal?.aborted) throw error;
          job.files.failed++;
          job.errors.push({
            file: label,
            code: DocqaError.isInstance(error) ? error.code : "internal_error",
            message: DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message,
          });
          if (!DocqaError.isInstance(error))
            run.dependencies.logger.error("file ingestion failed", {
              component: "ingestion",
              file: label,
              error: (error as Error).message,
            });
        }
        job.files.processed++;
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

async function ingestOne(
  run: IngestionRun,
  file: FileSource,
  onEmbeddingProgress: (progress: EmbeddingProgress) => void,
): Promise<{ unchanged: boolean; documents: number; chunks: number; warnings: string[] }> {
  const { config, stores, embeddings } = run.dependencies;
  const name = file.name ?? (file.path ? basename(file.path) : undefined);
  if (!name) throw new DocqaError("invalid_request", "a file needs a name or a path", { component: "ingestion" });
  let bytes = file.bytes;
  let lastModified = file.lastModified;
  if (!bytes) {
    if (!file.path) throw new DocqaError("invalid_request", `${name}: a file needs bytes or a path`, { component: "ingestion" });
    const info = await stat(file.path);
    if (info.size > config.maxUploadBytes) {
      throw new DocqaError("file_too_large", `${name} has ${info.size} bytes; the limit is ${config.maxUploadBytes} (MAX_UPLOAD_BYTES)`, {
        component: "ingestion",
      });
    }
    bytes = await readFile(file.path);
    lastModified ??= info.mtime;
  }
  const baseId = file.docId ?? name;
  const fileHash = createHash("sha256").update(bytes).digest("hex");
  const contentHash = (suffix: string) => hashOf(fileHash, loaderVersion, suffix, run.metadata, config.jsonRecordsAsDocuments);
  const stored = await stores.registry.contentHashes(run.job.orgId, [baseId, `${baseId}#0`]);
  if (
    stored.get(baseId) === storedHash(config, embeddings, contentHash("")) ||
    stored.get(`${baseId}#0`) === storedHash(config, embeddings, contentHash("#0"))
  ) {
    return { unchanged: true, documents: 0, chunks: 0, warnings: [] };
  }
  const loaded = await loadFile(
    { name, bytes, lastModified },
    {
      limits: { maxFileBytes: config.maxUploadBytes, maxExtractedChars: config.maxExtractedChars },
      chunkSize: config.chunkSize,
      json: { recordsAsDocuments: config.jsonRecordsAsDocuments },
    },
  );
  const split = loaded.documents.length > 1 || loaded.documents.some((document) => document.idSuffix !== "");
  const sources: SourceDocument[] = loaded.documents.map((document) => ({
    docId: `${baseId}${document.idSuffix}`,
    title: document.title,
    metadata: { ...document.metadata, ...run.metadata },
    sections: document.sections,
    contentHash: contentHash(document.idSuffix),
    derivedFrom: split ? [baseId] : undefined,
  }));
  // Documents an earlier version of this file produced and this one does not (fewer JSON records).
  const previous = new Set([baseId, ...(await stores.registry.derivedDocuments(run.job.orgId, [baseId]))]);
  for (const source of sources) previous.delete(source.docId);
  const result = await indexDocuments(run.dependencies, {
    orgId: run.job.orgId,
    uploader: run.uploader,
    documents: sources,
    deleteDocIds: [...previous].filter((docId) => !docId.startsWith("raptor:")),
    signal: run.signal,
    onEmbeddingProgress,
  });
  return {
    unchanged: false,
    documents: result.documents.length,
    chunks: result.documents.reduce((sum, document) => sum + document.chunks, 0) + result.summaries,
    warnings: loaded.warnings,
  };
}
