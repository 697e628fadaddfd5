/**
 * Where ingestion jobs are kept: in memory (tests), in SQLite under `DATA_DIR` (the embedded
 * default, survives restarts), or in Redis (production, shared by every server instance).
 */
import type { IngestionJob } from "./ingestion-job.js";

/** A store of ingestion jobs, isolated by organisation. */
export interface JobStore {
  /** Name used in logs, for example `sqlite` or `redis`. */
  readonly name: string;
  /** Saves a job (insert or replace). */
  save(job: IngestionJob): Promise<void>;
  /** The job, only if it belongs to `orgId`; undefined otherwise. */
  get(orgId: string, jobId: string): Promise<IngestionJob | undefined>;
  /** Jobs not finished (queued or running), of every organisation: for resuming after a restart. */
  unfinished(): Promise<IngestionJob[]>;
  /**
   * Checks that the backend answers (readiness probes, and ingestion before it accepts a job):
   * Redis `PING`, a query of the SQLite file; resolves at once in memory.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
