/**
 * Ingestion jobs of a service: a job runs now (`ingestFiles`, awaited) or in the background
 * (`startIngestion`: uploaded bytes are first spooled under `DATA_DIR/uploads/<jobId>/`, so a job
 * interrupted by a restart resumes with `resumeIngestions`). Each file is handed to the
 * service's {@link IngestionExecutor} (worker threads or this thread); every job counts against
 * the ingestion admission (`INGESTION_QUEUE_SIZE`) until it finishes. Job states are saved in the
 * job store (SQLite or Redis) after every file.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import type { Logger } from "../logging/logger.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import type { FileSource } from "./ingest-file.js";
import { type IngestionProgressListener, runIngestionJob } from "./ingest-files.js";
import type { IngestionAdmission } from "./ingestion-admission.js";
import type { IngestionExecutor } from "./ingestion-executor.js";

/** A request to ingest files into an organisation. */
export interface IngestionRequest {
  orgId: string;
  files: readonly FileSource[];
  /** Who writes: the write rules decide each file with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  /** Metadata for every document: `acl`, `owner_id`, `source`, and any other key. */
  metadata: Record<string, unknown>;
  /**
   * A directory holding the files (received uploads), deleted once the job has finished (for a
   * background job, also after a restart's resume). Default none: nothing is deleted but the
   * job's own spool.
   */
  uploadDirectory?: string | undefined;
}

/** Options of {@link IngestionJobs.run}. */
export interface IngestionRunOptions {
  onProgress?: IngestionProgressListener | undefined;
  /** Plan every file first (`IngestionExecutor.planFile`), so that progress counts every file's chunks from the start. */
  plan?: boolean | undefined;
}

/** What the jobs run on. */
export interface IngestionJobsSettings {
  /** `DATA_DIR`: uploads are spooled under `<dataDir>/uploads/<jobId>/`. */
  dataDir: string;
  jobStore(): Promise<JobStore>;
  /** Where each file is ingested. */
  executor: IngestionExecutor;
  /** `MAX_INGESTION_THREADS`: files of one job in flight at once. */
  concurrency: number;
  /** Backpressure: every job holds a place until it finishes. */
  admission: IngestionAdmission;
  /**
   * Called once a new job holds its place, before it is created: throws to refuse it (the
   * service's readiness check of the stores the job writes, `store_unavailable`).
   */
  accept?: (() => Promise<void>) | undefined;
  /** `TRACE_CONTENT`: file names go into spans. */
  traceContent?: boolean | undefined;
  /** Receives the `fileIngested` metric events; default none. */
  metrics?: ServiceMetrics | undefined;
  logger: Logger;
}

/** The ingestion jobs of a service. */
export interface IngestionJobs {
  /**
   * Runs a job to completion; rejected files are in the job's `errors`.
   *
   * @throws {DocqaError} `ingestion_busy` when `INGESTION_QUEUE_SIZE` requests are in progress.
   */
  run(request: IngestionRequest, options?: IngestionRunOptions): Promise<IngestionJob>;
  /**
   * Spools the files, saves the job queued, starts it in the background and returns it (without internals).
   *
   * @throws {DocqaError} `ingestion_busy` when `INGESTION_QUEUE_SIZE` requests are in progress.
   */
  start(request: IngestionRequest): Promise<IngestionJob>;
  /** A job of the organisation without internals, or undefined (also for another organisation's job id). */
  get(orgId: string, jobId: string): Promise<IngestionJob | undefined>;
  /** Resumes jobs left queued or running by a previous process; returns how many. */
  resume(): Promise<number>;
  /** Stops background jobs (they resume on the next start) and waits for them. */
  close(): Promise<void>;
}

/** The client-visible part of a job (without `resume`). */
function visible(job: IngestionJob): IngestionJob {
  const { resume: _internal, ...rest } = job;
  return rest;
}

/** Creates the ingestion jobs of a service. */
export function createIngestionJobs(settings: IngestionJobsSettings): IngestionJobs {
  const uploadsDirectory = join(resolve(settings.dataDir), "uploads");
  const background = new Set<Promise<unknown>>();
  const stopping = new AbortController();

  const newJob = (orgId: string, files: number): IngestionJob => ({
    jobId: randomUUID(),
    orgId,
    state: "queued",
    createdAt: new Date().toISOString(),
    files: { total: files, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
    documents: 0,
    chunks: 0,
    errors: [],
    warnings: [],
  });

  const runJob = async (
    job: IngestionJob,
    files: readonly FileSource[],
    request: Pick<IngestionRequest, "principal" | "uploader" | "metadata" | "requestId">,
    options: IngestionRunOptions = {},
  ): Promise<IngestionJob> => {
    const jobStore = await settings.jobStore();
    try {
      const finished = await runIngestionJob({
        ingest: (fileRequest) => settings.executor.ingestFile(fileRequest),
        plan: options.plan ? (fileRequest) => settings.executor.planFile(fileRequest) : undefined,
        concurrency: settings.concurrency,
        traceContent: settings.traceContent,
        logger: settings.logger,
        metrics: settings.metrics,
        jobStore,
        job,
        files,
        principal: request.principal,
        uploader: request.uploader,
        metadata: request.metadata,
        requestId: request.requestId,
        onProgress: options.onProgress,
        signal: stopping.signal,
      });
      // The job's documents are in this process's indexes when it is reported done.
      await settings.executor.settle(job.orgId);
      return finished;
    } catch (error) {
      if (stopping.signal.aborted) return job;
      job.state = "failed";
      job.failure = DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
      job.finishedAt = new Date().toISOString();
      await jobStore.save(job);
      return job;
    }
  };

  const runInBackground = (job: IngestionJob, release: () => void): void => {
    const resume = job.resume;
    if (!resume) {
      release();
      return;
    }
    const files = resume.files.map((file) => ({ ...file, lastModified: file.lastModified ? new Date(file.lastModified) : undefined }));
    const principal: Principal = resume.principal ?? { userName: resume.uploader, roles: [], groups: [] };
    const task = runJob(job, files, { ...resume, principal }).then(async (finished) => {
      if (finished.state === "running" || finished.state === "queued") return;
      finished.resume = undefined;
      await (await settings.jobStore()).save(finished);
      await rm(join(uploadsDirectory, finished.jobId), { recursive: true, force: true });
      if (resume.uploadDirectory) await rm(resume.uploadDirectory, { recursive: true, force: true });
    });
    const tracked = task
      .catch((error: unknown) =>
        settings.logger.error(`ingestion job failed: ${(error as Error).message}`, {
          component: "ingestion",
          job_id: job.jobId,
          code: "internal_error",
          error: (error as Error).message,
          stack: (error as Error).stack,
        }),
      )
      .finally(release);
    background.add(tracked);
    void tracked.finally(() => background.delete(tracked));
  };

  return {
    async run(request, options) {
      const release = settings.admission.admit();
      try {
        await settings.accept?.();
        const job = newJob(request.orgId, request.files.length);
        await (await settings.jobStore()).save(job);
        return await runJob(job, request.files, request, options);
      } finally {
        release();
        if (request.uploadDirectory) await rm(request.uploadDirectory, { recursive: true, force: true });
      }
    },

    async start(request) {
      const release = settings.admission.admit();
      try {
        await settings.accept?.();
        const job = newJob(request.orgId, request.files.length);
        const directory = join(uploadsDirectory, job.jobId);
        await mkdir(directory, { recursive: true });
        const files: NonNullable<IngestionJob["resume"]>["files"] = [];
        for (const [index, file] of request.files.entries()) {
          const name = file.name ?? (file.path ? file.path.split(/[\\/]/).at(-1) : undefined) ?? `file-${index}`;
          let path = file.path;
          if (file.bytes) {
            path = join(directory, `${index}`);
            await writeFile(path, file.bytes);
          }
          if (!path) throw new DocqaError("invalid_request", `file ${index} has neither bytes nor a path`, { component: "service" });
          files.push({
            name,
            path,
            docId: file.docId ?? name,
            replacesDocId: file.replacesDocId,
            lastModified: file.lastModified?.toISOString(),
          });
        }
        const principal = {
          userName: request.principal.userName,
          roles: [...request.principal.roles],
          groups: [...request.principal.groups],
        };
        job.resume = {
          uploader: request.uploader ?? request.principal.userName,
          principal,
          requestId: request.requestId,
          metadata: request.metadata,
          files,
          uploadDirectory: request.uploadDirectory,
        };
        await (await settings.jobStore()).save(job);
        runInBackground(structuredClone(job), release);
        return visible(job);
      } catch (error) {
        release();
        throw error;
      }
    },

    async get(orgId, jobId) {
      const job = await (await settings.jobStore()).get(orgId, jobId);
      return job ? visible(job) : undefined;
    },

    async resume() {
      const unfinished = (await (await settings.jobStore()).unfinished()).filter((job) => job.resume !== undefined);
      for (const job of unfinished) {
        settings.logger.info("resuming an interrupted ingestion job", { component: "ingestion", job_id: job.jobId });
        runInBackground(job, settings.admission.admit({ force: true }));
      }
      return unfinished.length;
    },

    async close() {
      stopping.abort();
      await Promise.allSettled([...background]);
    },
  };
}
