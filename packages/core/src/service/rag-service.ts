/**
 * The public types of a docqa service: what `createRagService` returns and what its methods take.
 */
import type { Principal } from "../acl/principal.js";
import type { Answer, Source } from "../answering/answer.js";
import type { AnswerMode } from "../answering/answerer.js";
import type { DocqaConfig } from "../config/docqa-config.js";
import type { DocumentInput } from "../ingestion/document-input.js";
import type { IntentResult } from "../intent/classify-intent.js";
import type { RetrievedChunk } from "../retrieval/retrieve-chunks.js";
import type { MetadataCondition } from "../stores/chunk-filter.js";

/** Who is asking, in which organisation. Adapters build it from a verified token. */
export interface RequestContext {
  /** Organisation (the token's `org_id`). */
  orgId: string;
  /** The user and their roles and groups. */
  principal: Principal;
  /** Correlation id for logs and PERF lines; generated when absent. */
  requestId?: string | undefined;
  /** Cancels the work. */
  signal?: AbortSignal | undefined;
}

/** Input of {@link RagService.upsert} (spec `POST /upsert`). */
export interface UpsertRequest extends RequestContext {
  /** The uploader's e-mail (`user_email`); owner of documents without `metadata.owner_id`. */
  uploader: string;
  /** Documents keyed by document id. */
  documents: Readonly<Record<string, DocumentInput>>;
}

/** Output of {@link RagService.upsert}. */
export interface UpsertResult {
  /** Chunks now stored for the request's documents. */
  numChunks: number;
  /** Documents written. */
  written: number;
  /** Documents skipped because their content hash was unchanged. */
  unchanged: number;
}

/** Input of {@link RagService.predict} (spec `POST /predict`). */
export interface PredictRequest extends RequestContext {
  /** The question. */
  query: string;
  /** Thread to continue (UUID); a new one is created when absent. */
  threadId?: string | undefined;
}

/** Output of {@link RagService.predict}; adapters map it to the spec's response fields. */
export interface PredictResult {
  answer: Answer;
  /** Cited sources only, keyed `doc_<n>`. */
  sources: Record<string, Source>;
  /** The query as used for retrieval (normalised; rewritten for follow-ups). */
  query: string;
  /** The query as received. */
  originalQuery: string;
  /** The input text as received. */
  input: string;
  threadId: string;
  /** How the answer was produced. */
  answerMode: AnswerMode;
  /** Keys the model cited that were not in the context (dropped from the answer). */
  droppedCitations: string[];
  /** Milliseconds spent per phase. */
  timings: { retrievalMs: number; contextMs: number; llmMs: number; postMs: number; totalMs: number };
}

/** Input of {@link RagService.search}. */
export interface SearchRequest extends RequestContext {
  query: string;
  /** Maximum results; default `RETRIEVER_TOP_K`. */
  limit?: number | undefined;
  /** Metadata conditions, all of which must hold. */
  metadata?: readonly MetadataCondition[] | undefined;
}

/** Output of {@link RagService.search}. */
export interface SearchResult {
  results: RetrievedChunk[];
  /** Number of results returned. */
  total: number;
}

/** Input of {@link RagService.query} (spec `POST /query`). */
export interface IntentRequest extends RequestContext {
  text: string;
}

/** Health of a service and its parts. */
export interface ServiceHealth {
  status: "ok" | "degraded";
  /** Embedding model status: `ready`, `unavailable` (BM25 only) or `disabled`. */
  embeddings: { status: "ready" | "unavailable" | "disabled" | "loading"; model: string; detail?: string | undefined };
  stores: { vector: string | null; keyword: string };
  answerer: string;
}

/** A docqa service. Create it with `createRagService`. */
export interface RagService {
  /** The resolved configuration. */
  readonly config: DocqaConfig;
  /**
   * Resolves when the embedding model is loaded (or known unavailable). Every method awaits
   * it; call it at start-up to fail fast on configuration errors.
   *
   * @throws {DocqaError} `embedding_dimension_mismatch` when `EMBED_DIMENSION` is wrong.
   */
  ready(): Promise<void>;
  /** Chunks, embeds and stores documents; each replaces its previous version atomically. */
  upsert(request: UpsertRequest): Promise<UpsertResult>;
  /** Answers a question with citations, under the user's access rights. */
  predict(request: PredictRequest): Promise<PredictResult>;
  /** Hybrid search under the user's access rights, without answering. */
  search(request: SearchRequest): Promise<SearchResult>;
  /** Intent detection. */
  query(request: IntentRequest): Promise<IntentResult>;
  /** Deletes documents of the organisation. */
  deleteDocuments(context: RequestContext, docIds: readonly string[]): Promise<void>;
  /** Health detail. */
  health(): Promise<ServiceHealth>;
  /** Closes stores. */
  close(): Promise<void>;
}
