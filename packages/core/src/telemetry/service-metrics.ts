/**
 * The metrics a service reports, as events: a sink interface with no metrics library behind it.
 * `@docqa/observability` implements it with `prom-client`; pass any implementation as
 * `createRagService({ metrics })`. Every method is optional and must not throw; none receives
 * document, question or answer text.
 */
import type { AnswerMode } from "../answering/answerer.js";

/** A pipeline stage finished (`runStages`), or failed. */
export interface StageEvent {
  /** The pipeline: `predict`, `search`, or the name a caller of `runStages` gave. */
  pipeline: string;
  /** The stage's name, for example `retrieve`. */
  stage: string;
  /** The PERF phase its time counts toward: `request`, `retrieval`, `context`, `generation` or `post` (`StagePhase`). */
  phase: string;
  /** How long it ran, in seconds. */
  seconds: number;
  /** `error` when the stage threw (the request then failed). */
  outcome: "ok" | "error";
  /** The `DocqaError` code of the failure (`internal_error` for any other error); null when `ok`. */
  errorCode: string | null;
}

/** A `predict` request answered. */
export interface AnswerEvent {
  /** How the answer was produced. */
  mode: AnswerMode;
  /** Whether the answerer decided the context does not answer the question. */
  abstained: boolean;
  /**
   * Why it abstained (for example `no_documents`, `not_answerable`, `low_relevance`) when the
   * answerer says; null when it did not abstain or gave no reason.
   */
  abstentionReason: string | null;
}

/** One file of an ingestion job processed. */
export interface FileIngestionEvent {
  /** `ingested` (written), `unchanged` (same bytes already stored) or `rejected` (nothing written). */
  outcome: "ingested" | "unchanged" | "rejected";
  /** The rejection's error code (`corrupt_file`, `unsupported_file_type`, ...); null otherwise. */
  errorCode: string | null;
  /** Documents the file produced (a JSON record array gives one per record); 0 unless ingested. */
  documents: number;
  /** Chunks written for it, summary nodes included; 0 unless ingested. */
  chunks: number;
}

/** An indexing write committed (`/upsert` or one ingested file). */
export interface IndexingEvent {
  /** Documents written (new or changed). */
  documentsWritten: number;
  /** Documents skipped because their content was already stored. */
  documentsUnchanged: number;
  /** Chunks of the written documents. */
  chunksWritten: number;
  /** RAPTOR summary nodes written. */
  summaries: number;
}

/** An embedding model call finished. */
export interface EmbeddingEvent {
  /** `query` (retrieval) or `documents` (ingestion, semantic splitting, summaries). */
  operation: "query" | "documents";
  /** Texts embedded. */
  texts: number;
  /** Characters embedded. */
  characters: number;
  /** How long the call took, in seconds. */
  seconds: number;
  /** The embedding model id. */
  model: string;
  /** `error` when the call threw. */
  outcome: "ok" | "error";
}

/** A store or model backend failed a call. */
export interface BackendErrorEvent {
  /** The backend's name: `embedded`, `milvus`, `opensearch`, `elasticsearch`, `embeddings`, ... */
  backend: string;
  /** The operation: `search_vector`, `search_text`, `write`, `visible`, `embed_query`, `embed_documents`. */
  operation: string;
  /** The `DocqaError` code (`store_unavailable`, ...), `internal_error` for any other error. */
  code: string;
}

/** A pass of the sweeper of uncommitted chunk versions finished (staged stores; `SweepReport`). */
export interface SweepEvent {
  /** Uncommitted versions removed. */
  versionsRemoved: number;
  /** Chunks of the removed versions. */
  chunksRemoved: number;
  /** Uncommitted versions still within the grace period (`SWEEP_GRACE_SECONDS`). */
  pending: number;
  /** Indexes or organisations that could not be swept (retried on the next pass). */
  failures: number;
  /** How long the pass took, in seconds. */
  seconds: number;
}

/** Receives a service's metric events. */
export interface ServiceMetrics {
  stage?(event: StageEvent): void;
  answer?(event: AnswerEvent): void;
  fileIngested?(event: FileIngestionEvent): void;
  indexed?(event: IndexingEvent): void;
  embedded?(event: EmbeddingEvent): void;
  backendError?(event: BackendErrorEvent): void;
  swept?(event: SweepEvent): void;
}

/** A sink that drops every event (the default). */
export const noServiceMetrics: ServiceMetrics = Object.freeze({});
