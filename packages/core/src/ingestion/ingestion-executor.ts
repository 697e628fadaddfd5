/**
 * Where ingestion work runs. An {@link IngestionExecutor} parses, chunks, embeds and writes; the
 * service and its jobs only hand it requests. Two kinds exist: the pool of worker threads
 * (`worker-pool-executor.ts`, the default when the service builds its own stores and embeddings,
 * decision record 0006) and the calling thread ({@link createInProcessExecutor}: for stores,
 * embeddings or a summariser given as objects, which cannot cross to another thread, or with
 * `INGESTION_WORKERS=false`).
 */
import type { Principal } from "../acl/principal.js";
import type { DocumentInput } from "./document-input.js";
import type { IndexingDependencies } from "./index-documents.js";
import { type FileIngestionRequest, type FilePlan, type IngestedFile, ingestFile, planFile } from "./ingest-file.js";
import { parseUpsertDocuments, type UpsertDocumentsResult, upsertDocuments } from "./upsert-documents.js";

/** An `/upsert` as the executor receives it: the documents are validated where they are indexed. */
export interface UpsertTask {
  orgId: string;
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  /** The `documents` map as received (validated by `parseUpsertDocuments` before anything is written). */
  documents: Readonly<Record<string, DocumentInput>> | unknown;
  signal?: AbortSignal | undefined;
}

/** Runs ingestion work. */
export interface IngestionExecutor {
  /** `workers` (a pool of worker threads) or `in-process` (the calling thread). */
  readonly mode: "workers" | "in-process";
  /** Worker threads at most (1 for `in-process`). */
  readonly threads: number;
  /**
   * Validates, chunks, embeds and writes an `/upsert` in one atomic write; resolves once it is
   * durable and visible to searches of this process.
   *
   * @throws {DocqaError} `invalid_request`, `payload_too_large`, `store_unavailable`, ...
   */
  upsert(task: UpsertTask): Promise<UpsertDocumentsResult>;
  /**
   * Ingests one file (see `ingestFile`); resolves once its documents are durable. Searches of this
   * process see them (each search first applies committed writes); {@link settle} waits until
   * this process's in-memory indexes hold them.
   *
   * @throws {DocqaError} the file's rejection code, or a store error.
   */
  ingestFile(request: FileIngestionRequest): Promise<IngestedFile>;
  /** Resolves once the writes of the organisation's finished file tasks are applied to this process's stores. */
  settle(orgId: string): Promise<void>;
  /**
   * Foresees the chunks of one file without writing anything (see `planFile`), where files are
   * ingested, so that a job's progress can count chunks from the start.
   *
   * @throws {DocqaError} a store error (a file that will be rejected plans 0 chunks).
   */
  planFile(request: FileIngestionRequest): Promise<FilePlan>;
  /**
   * Embeds texts as documents with `modelId` (default the configured model), in the worker threads
   * for `workers` (data-parallel across them), or returns undefined when that model is not
   * available.
   */
  embedDocuments(texts: readonly string[], modelId?: string): Promise<number[][] | undefined>;
  /** Stops the workers (work in progress is abandoned) and releases what the executor opened. */
  close(): Promise<void>;
}

/** Runs an upsert task against `dependencies`: validation, then `upsertDocuments`. */
export function runUpsertTask(dependencies: IndexingDependencies, task: UpsertTask): Promise<UpsertDocumentsResult> {
  const documents = parseUpsertDocuments(task.documents, dependencies.config.ingestion.maxExtractedChars);
  return upsertDocuments(dependencies, {
    orgId: task.orgId,
    principal: task.principal,
    uploader: task.uploader,
    requestId: task.requestId,
    documents,
    signal: task.signal,
  });
}

/**
 * An executor that runs everything in the calling thread, with the service's own stores and
 * embeddings.
 *
 * @param indexing - what indexing works with, prepared on first use.
 */
export function createInProcessExecutor(indexing: () => Promise<IndexingDependencies>): IngestionExecutor {
  return {
    mode: "in-process",
    threads: 1,
    async upsert(task) {
      return runUpsertTask(await indexing(), task);
    },
    async ingestFile(request) {
      return ingestFile(await indexing(), request);
    },
    async planFile(request) {
      return planFile(await indexing(), request);
    },
    async settle() {},
    async embedDocuments(texts, modelId) {
      const dependencies = await indexing();
      const embeddings = modelId && dependencies.embeddingsFor ? await dependencies.embeddingsFor(modelId) : dependencies.embeddings;
      return embeddings.status === "ready" ? embeddings.embeddings.embedDocuments([...texts]) : undefined;
    },
    async close() {},
  };
}
