/**
 * File ingestion as a job: each file is ingested on its own (`ingestFile`, in a worker thread or
 * in this one), with up to `MAX_INGESTION_THREADS` files in flight. A rejected file is recorded in
 * the job with its error code and the rest of the batch goes on; nothing of a rejected file is
 * written. The job's state is saved after every file.
 */
import pLimit from "p-limit";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import type { Logger } from "../logging/logger.js";
import type { FileSource, IngestedFile } from "./ingest-file.js";

export type { FileSource } from "./ingest-file.js";

/** Progress of a running job, after each file. */
export type IngestionProgressListener = (job: IngestionJob, file: string) => void;

/** What one run of an ingestion job needs. */
export interface IngestionRun {
  /** Ingests one file of the job (see `IngestionExecutor.ingestFile`). */
  ingest(file: FileSource, signal: AbortSignal | undefined): Promise<IngestedFile>;
  /** Files processed at once (`MAX_INGESTION_THREADS`). */
  concurrency: number;
  logger: Logger;
  jobStore: JobStore;
  job: IngestionJob;
  files: readonly FileSource[];
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
  const limit = pLimit(Math.max(1, run.concurrency));
  let saving = Promise.resolve();
  await Promise.all(
    run.files.map((file) =>
      limit(async () => {
        // The name the caller gave (an upload's file name) wins over a spool path.
        const label = file.name ?? file.path ?? "(unnamed)";
        try {
          run.signal?.throwIfAborted();
          const outcome = await run.ingest(file, run.signal);
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
          const internal = !DocqaError.isInstance(error) || error.code === "internal_error";
          if (internal)
            run.logger.error(`file ingestion failed: ${(error as Error).message}`, {
              component: "ingestion",
              file: label,
              code: "internal_error",
              error: (error as Error).message,
              stack: (error as Error).stack,
            });
        }
        job.files.processed++;
        saving = saving.then(() => jobStore.save(job));
        run.onProgress?.(job, label);
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
