/**
 * Ingestion jobs: long ingestions run in the background under a `jobId` whose state and counts
 * can be read while they run. The spec names no states; docqa's are documented in
 * `docs/ingestion.md`.
 */
import type { DocqaErrorCode } from "../errors/docqa-error.js";

/**
 * Lifecycle: `queued` → `running` → one of `succeeded` (every file ingested or unchanged),
 * `partially_failed` (some files rejected), `failed` (every file rejected, or the job itself
 * failed).
 */
export type JobState = "queued" | "running" | "succeeded" | "partially_failed" | "failed";

/** A rejected file. */
export interface FileError {
  /** File name or path as given. */
  file: string;
  code: DocqaErrorCode;
  message: string;
}

/** A file that was ingested with a remark (for example, decoded from Latin-1). */
export interface FileWarning {
  file: string;
  message: string;
}

/** An ingestion job. */
export interface IngestionJob {
  jobId: string;
  orgId: string;
  state: JobState;
  /** ISO 8601 timestamps. */
  createdAt: string;
  startedAt?: string | undefined;
  finishedAt?: string | undefined;
  /** File counts: `unchanged` files were skipped because their content hash was already stored. */
  files: { total: number; processed: number; ingested: number; unchanged: number; failed: number };
  /** Documents written (a JSON record array gives one document per record). */
  documents: number;
  /** Chunks written, including RAPTOR summary nodes. */
  chunks: number;
  errors: FileError[];
  warnings: FileWarning[];
  /** Why the whole job failed, when it did. */
  failure?: string | undefined;
  /**
   * Internal: what is needed to run the job again after a restart (spooled files, the principal
   * the write rules decide with, uploader, metadata). Removed when the job finishes; never
   * returned by HTTP adapters.
   */
  resume?:
    | {
        uploader: string;
        /** Who started the job (absent in jobs saved before write rules: the uploader, without roles). */
        principal?: { userName: string; roles: string[]; groups: string[] } | undefined;
        requestId?: string | undefined;
        metadata: Record<string, unknown>;
        files: { name: string; path: string; docId: string; replacesDocId?: string | undefined; lastModified?: string }[];
        /** A directory of received uploads to delete when the job finishes. */
        uploadDirectory?: string | undefined;
      }
    | undefined;
}

/** Whether a job has finished. */
export function isFinished(state: JobState): boolean {
  return state === "succeeded" || state === "partially_failed" || state === "failed";
}
