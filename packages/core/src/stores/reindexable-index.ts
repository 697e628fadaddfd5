/**
 * What a vector index offers to rebuild an organisation's vectors with another embedding model
 * without downtime (`docqa reindex`, `service.reindex`): a *target* beside the live index that
 * receives the organisation's chunks embedded with the new model while reads and writes go on
 * against the live one, and an atomic switch of the live index to the target once it has caught
 * up. Implemented by the embedded store (a side table, switched in one SQLite transaction) and
 * Milvus (a new collection generation behind an alias). A keyword-only engine
 * (Elasticsearch/OpenSearch) holds no vectors, so it has nothing to rebuild: its BM25 index is
 * untouched by a model change.
 */
import type { ChunkRecord } from "./chunk-record.js";
import type { DocumentRegistry } from "./document-registry.js";
import type { EmbeddingModelInfo } from "./vector-index.js";

/**
 * States of a reindex job: `running` (copying and embedding, catching up, switching, or retiring
 * the old index), `succeeded` (the organisation's live index holds the new model), `failed`
 * (nothing changed for readers; `failure` says why; running it again resumes or restarts).
 */
export type ReindexState = "running" | "succeeded" | "failed";

/**
 * Phases of a running job: `copying` (embedding the live chunks into the target), `catching_up`
 * (chunks written meanwhile), `switching` (the atomic switch), `retiring` (after the switch: chunks
 * written through the old index by other processes are copied over, then the old index is removed).
 */
export type ReindexPhase = "copying" | "catching_up" | "switching" | "retiring";

/** A reindex job: what is rebuilt, how far it got. Stored with the index, so every process sees it. */
export interface ReindexJob {
  jobId: string;
  orgId: string;
  /** The model the index is rebuilt with. */
  model: EmbeddingModelInfo;
  /** The live index's model when the job started: a model, or `null` (chunks without vectors). */
  fromModel: EmbeddingModelInfo | null;
  state: ReindexState;
  /** While `running`. */
  phase?: ReindexPhase | undefined;
  /** Chunks of the organisation when the job started (the progress bar's total). */
  total: number;
  /** Chunks embedded and written to the target so far (catch-up included, so it may exceed `total`). */
  processed: number;
  /** ISO 8601 times. `updatedAt` is refreshed while the job runs (a heartbeat). */
  startedAt: string;
  updatedAt: string;
  finishedAt?: string | undefined;
  /** Why the job failed. */
  failure?: string | undefined;
}

/** A reindex job whose heartbeat is older than this is no longer running (its process died). */
export const reindexHeartbeatTimeoutMs = 60_000;

/** The target of one reindex: see {@link ReindexableIndex.beginReindex}. */
export interface ReindexTarget {
  /**
   * The next chunks to embed: live chunks of committed versions that the target does not hold yet
   * (at most `limit`), in a stable order; an empty list once the target has caught up with the
   * live index. Before {@link activate}, this is the copy and the catch-up; after it, chunks that
   * other processes wrote through the old index during the switch.
   *
   * @param registry - which versions are committed, for staged stores (write → commit → prune);
   *   undefined for a transactional store, whose chunks are all committed.
   */
  pending(limit: number, registry: Pick<DocumentRegistry, "contentHashes"> | undefined): Promise<ChunkRecord[]>;
  /**
   * Writes chunks, each with its embedding by the target model, to the target.
   *
   * @throws {DocqaError} `store_unavailable`; `embedding_dimension_mismatch`.
   */
  write(chunks: readonly ChunkRecord[]): Promise<void>;
  /** Saves the job (progress and heartbeat) with the index, where other processes read it. */
  save(job: ReindexJob): Promise<void>;
  /**
   * Makes the target the live index, atomically for readers. Returns false (and changes nothing)
   * when a write came in since the last {@link pending} returned nothing: catch up, then call
   * again.
   */
  activate(): Promise<boolean>;
  /**
   * After {@link activate}: how long to wait before {@link retire}, in milliseconds, so that
   * other processes notice the switch and writes that started before it land (0 when the switch
   * is seen by every process at once).
   */
  readonly settleMs: number;
  /** After {@link activate}: removes the old index. */
  retire(): Promise<void>;
  /** Before {@link activate}: removes the target (the job failed or was stopped). */
  discard(): Promise<void>;
}

/** A vector index that can rebuild an organisation with another embedding model. */
export interface ReindexableIndex {
  /** Name used in logs, for example `embedded` or `milvus`. */
  readonly name: string;
  /**
   * The model of the organisation's live vectors: the model, `null` when it holds chunks without
   * vectors, or undefined when it holds no chunks.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  vectorModel(orgId: string): Promise<EmbeddingModelInfo | null | undefined>;
  /**
   * Prepares a target for `job.model` beside the live index and records `job`. A target of an
   * interrupted job for the same model is resumed; one for another model is discarded.
   *
   * @throws {DocqaError} `invalid_request` when another job for the organisation is running (its
   *   heartbeat is younger than {@link reindexHeartbeatTimeoutMs}); `store_unavailable`.
   */
  beginReindex(orgId: string, job: ReindexJob): Promise<ReindexTarget>;
  /**
   * The organisation's latest reindex job (running or finished), or undefined. A `running` job
   * whose heartbeat is older than {@link reindexHeartbeatTimeoutMs} is reported `failed`.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  reindexJob(orgId: string): Promise<ReindexJob | undefined>;
}

/** Whether `index` can be reindexed (implements {@link ReindexableIndex}). */
export function isReindexable<T>(index: T): index is T & ReindexableIndex {
  const candidate = index as Partial<ReindexableIndex> | undefined;
  return (
    typeof candidate?.vectorModel === "function" &&
    typeof candidate.beginReindex === "function" &&
    typeof candidate.reindexJob === "function"
  );
}

/** A job as readers see it: `running` with a heartbeat older than the timeout is `failed`. */
export function observedReindexJob(job: ReindexJob, now = Date.now()): ReindexJob {
  if (job.state !== "running" || now - Date.parse(job.updatedAt) < reindexHeartbeatTimeoutMs) return job;
  return {
    ...job,
    state: "failed",
    phase: undefined,
    failure: `interrupted: no progress since ${job.updatedAt} (the process running it stopped); run docqa reindex again to resume`,
  };
}
