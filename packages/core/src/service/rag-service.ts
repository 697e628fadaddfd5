/**
 * The public types of a docqa service: what `createRagService` returns and what its methods take.
 */
import type { Principal } from "../acl/principal.js";
import type { DocqaConfig } from "../config/config-schema.js";
import type { DocumentList, DocumentSummary, ListDocumentsOptions } from "../documents/list-documents.js";
import type { DeleteDocumentsResult } from "../ingestion/delete-documents.js";
import type { DocumentInput } from "../ingestion/document-input.js";
import type { FileSource, IngestionProgressListener } from "../ingestion/ingest-files.js";
import type { UpsertDocumentsResult } from "../ingestion/upsert-documents.js";
import type { IntentResult } from "../intent/classify-intent.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { StageTiming } from "../pipeline/stage.js";
import type { RetrievalSettings, RetrievedChunk } from "../retrieval/retrieval-settings.js";
import type { MetadataCondition } from "../stores/chunk-filter.js";
import type { ReindexJob } from "../stores/reindexable-index.js";
import type { SweepReport } from "../stores/sweep-uncommitted.js";
import type { PredictResult } from "./predict-result.js";
import type { ReindexRequest, ReindexStatus } from "./reindex-jobs.js";
import type { ReadinessReport } from "./service-readiness.js";

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
  /**
   * The uploader's e-mail (`user_email`); owner of new documents without `metadata.owner_id`.
   * Default the principal; naming another user is, like `owner_id`, for administrators only.
   */
  uploader?: string | undefined;
  /** Documents keyed by document id. */
  documents: Readonly<Record<string, DocumentInput>>;
}

/** Output of {@link RagService.upsert}. */
export type UpsertResult = UpsertDocumentsResult;

/** How {@link RagService.ingestFiles} reports its progress. */
export interface IngestFilesOptions {
  /** Called as the job advances (see {@link IngestionProgressListener}). */
  onProgress?: IngestionProgressListener | undefined;
  /**
   * Plan every file before ingesting any (read, load and split into chunks, nothing written), so
   * that the progress's `plannedChunks` counts the chunks of every file from the start and an ETA
   * can be based on chunks, the embedding work; default false. Costs one more parse of each file:
   * worth it when an embedding model makes each chunk far dearer than its parse.
   */
  plan?: boolean | undefined;
}

/** Input of {@link RagService.ingestFiles} and {@link RagService.startIngestion}. */
export interface IngestFilesRequest extends RequestContext {
  files: readonly FileSource[];
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /**
   * Metadata for every document: `acl`, `owner_id`, `source`, and any other key; validated with
   * `/upsert`'s `documentMetadataSchema` (`acl`, `owner_id`, `source` strings, `created_at` an
   * ISO 8601 date).
   */
  metadata?: Record<string, unknown> | undefined;
  /**
   * A directory holding received uploads (the `path` of `files`), which the service deletes once
   * the job has finished, also after a restart's resume. Default none.
   */
  uploadDirectory?: string | undefined;
}

/** Input of {@link RagService.predict} (spec `POST /predict`). */
export interface PredictRequest extends RequestContext {
  /** The question. */
  query: string;
  /** Thread to continue (UUID); a new one is created when absent. */
  threadId?: string | undefined;
  /**
   * Previous messages of the conversation, oldest first (for example set B's `context`). The
   * last three exchanges, condensed (`condenseHistory`: at most 1500 characters), are shown to the
   * language model as context only, never as a source; the extractive answerer ignores them.
   * Default none.
   */
  history?: readonly { role: "user" | "assistant"; content: string }[] | undefined;
  /**
   * Use conversation memory (default true). False: no thread is read or written, the turn is not
   * recorded, and `threadId` is echoed (or a fresh one returned); for unauthenticated development
   * routes such as `/testpredict`, whose caller names any user.
   */
  memory?: boolean | undefined;
  /**
   * Receives the answer's tokens as the model writes them (raw text; with structured output,
   * fragments of the Answer JSON). When set, the model is called in streaming mode; the result
   * is the same as without it for the same model output (tokens are a preview). Not called at
   * all by the extractive answerer. If the model's stream breaks off after a token, the result
   * is the extractive answer with `fallbackReason: "stream_interrupted"` rather than an error.
   */
  onToken?: ((text: string) => void) | undefined;
}

export type { PredictResult } from "./predict-result.js";

/** Input of {@link RagService.search}. */
export interface SearchRequest extends RequestContext {
  query: string;
  /** Maximum results; default `RETRIEVER_TOP_K`. */
  limit?: number | undefined;
  /** Metadata conditions, all of which must hold. */
  metadata?: readonly MetadataCondition[] | undefined;
  /**
   * Retrieval settings for this request only (weights, normalisation, fusion, depths), for
   * evaluation and experiments; default the configuration's.
   */
  retrieval?:
    | Partial<
        Pick<RetrievalSettings, "weightVector" | "weightBm25" | "normalization" | "fusion" | "vectorTopK" | "bm25TopK" | "fusionCandidates">
      >
    | undefined;
  /** Apply the reranker for this request (default `USE_RERANKER`). */
  rerank?: boolean | undefined;
}

/** Output of {@link RagService.search}. */
export interface SearchResult {
  results: RetrievedChunk[];
  /**
   * Number of matches (stage `count-matches`): the chunks the user may read that pass the filters
   * and hold a term of the query, together with the results; at least `results.length`, and
   * exactly it when the keyword index cannot count.
   */
  total: number;
  /** Each stage's name, PERF phase and milliseconds, in the order they ran. Always set by `createRagService`. */
  stages?: StageTiming[];
}

/** Input of {@link RagService.listDocuments}. */
export interface ListDocumentsRequest extends RequestContext, ListDocumentsOptions {}

/** Input of {@link RagService.detectIntent} (spec `POST /query`). */
export interface IntentRequest extends RequestContext {
  text: string;
}

/** Health of a service and its parts. */
export interface ServiceHealth {
  status: "ok" | "degraded";
  /** Embedding model status: `ready`, `unavailable` (BM25 only) or `disabled`. */
  embeddings: { status: "ready" | "unavailable" | "disabled" | "loading"; model: string; detail?: string | undefined };
  stores: { vector: string | null; keyword: string };
  /** The answerer in use: `extractive`, the provider of the model answerer (`openai`, `ollama`), or a custom answerer's name. */
  answerer: string;
  /**
   * The chat model (`RAG_LLM_PROVIDER`), used for answers, query decomposition and intent
   * detection: `ready` with its provider and model, `disabled` with the reason (for example no
   * `HOSTEDLLM_API_KEY` and no `HOSTEDLLM_BASE_URL`), or `loading` before start-up finished.
   * Always set by `createRagService`.
   */
  chatModel?: {
    status: "ready" | "disabled" | "loading";
    provider?: string | undefined;
    model?: string | undefined;
    detail?: string | undefined;
  };
  /** The reranker in use (`USE_RERANKER`), or null. */
  reranker: string | null;
  /**
   * Organisations whose vector index does not hold the configured model (ingested before a model
   * was available, or with another one), as learned from requests: they are served with their
   * index's model when it can be loaded, else with BM25 alone, until reindexed; and reindex jobs
   * running in this process. Always set by `createRagService`.
   */
  vectorIndexes?: {
    /** Organisations known to hold vectors of another model, or none. */
    otherModel: number;
    /** Reindex jobs running in this process. */
    reindexing: number;
    /** A sentence for operators when `otherModel` is not 0. */
    detail?: string | undefined;
  };
}

/** Counts of a service's stores, for status pages and metrics ({@link RagService.statistics}). */
export interface ServiceStatistics {
  /**
   * Organisation stores open in this process (the embedded store's SQLite files); null when the
   * backends keep nothing open per organisation, or before the stores are prepared.
   */
  openOrganisationStores: number | null;
  /** The asked organisation's chunks (all versions, summary nodes included); absent when not asked or before the stores are prepared. */
  organisation?: { orgId: string; chunks: number };
}

/** A docqa service. Create it with `createRagService`. */
export interface RagService {
  /** The resolved configuration. */
  readonly config: DocqaConfig;
  /**
   * Resolves when the embedding model is loaded (or known unavailable), the stores are open, the
   * chat model is chosen (or known disabled), and the modules requests would otherwise load on
   * first use (word frequencies, token ranks, HNSW) are loaded, and starts the background sweeper of
   * uncommitted chunk versions on staged stores (`SWEEP_INTERVAL_SECONDS`). Every method awaits
   * the preparation; call it at start-up to fail fast on configuration errors.
   *
   * @throws {DocqaError} `embedding_dimension_mismatch` when `EMBED_DIMENSION` is wrong.
   */
  ready(): Promise<void>;
  /**
   * Chunks, embeds and stores documents in one atomic write; each replaces its previous version.
   * The write rules (docs/access-control.md) decide for every document first: a new document is
   * owned by the uploader, a stored one may be replaced only by its owner or an administrator
   * (`ADMIN_ROLES`), and only administrators may name another owner. A document whose owner or
   * ACL alone changed is re-stamped without re-embedding.
   *
   * Runs in an ingestion worker thread (decision record 0006); resolves once the write is durable
   * and visible to this service's searches.
   *
   * @throws {DocqaError} `too_many_documents` above `MAX_UPSERT_DOCUMENTS`; `invalid_request` for
   *   invalid documents; `payload_too_large` for a document above `MAX_EXTRACTED_CHARS`;
   *   `forbidden` when the write rules refuse any document (nothing is written; `details` lists
   *   them); `ingestion_busy` when `INGESTION_QUEUE_SIZE` ingestion requests are in progress;
   *   `store_unavailable`.
   */
  upsert(request: UpsertRequest): Promise<UpsertResult>;
  /**
   * Ingests files (any format of `supportedFormats`) as a job and waits for it to finish. Each file
   * is written atomically; rejected files are listed in the job's `errors` (code `forbidden` for
   * a file that would replace a document the principal may not write).
   *
   * @throws {DocqaError} `invalid_request` for metadata `documentMetadataSchema` refuses (nothing is read or saved).
   * @throws {DocqaError} `ingestion_busy` when `INGESTION_QUEUE_SIZE` ingestion requests are in progress.
   * @throws {DocqaError} `store_unavailable` before the job is created when a store it writes
   *   (vector index, keyword index, registry, job store) does not answer a readiness check within
   *   `READINESS_TIMEOUT_MS`.
   */
  ingestFiles(request: IngestFilesRequest, options?: IngestFilesOptions): Promise<IngestionJob>;
  /**
   * Starts an ingestion job in the background and returns it queued. Files given as bytes are
   * first saved under `DATA_DIR/uploads/<jobId>/`, so a job interrupted by a restart resumes
   * (see {@link RagService.resumeIngestions}).
   *
   * @throws {DocqaError} `invalid_request` for metadata `documentMetadataSchema` refuses.
   * @throws {DocqaError} `ingestion_busy` when `INGESTION_QUEUE_SIZE` ingestion requests are in progress.
   * @throws {DocqaError} `store_unavailable`, before anything is saved, as {@link RagService.ingestFiles}.
   */
  startIngestion(request: IngestFilesRequest): Promise<IngestionJob>;
  /**
   * Throws when a new ingestion request would be refused now, accepting nothing: lets an adapter
   * refuse a large upload before reading its body.
   *
   * @throws {DocqaError} `ingestion_busy` (with `retryAfterSeconds`).
   */
  checkIngestionCapacity(): void;
  /** A job of the organisation, or undefined (also for another organisation's job id). */
  getIngestionJob(context: RequestContext, jobId: string): Promise<IngestionJob | undefined>;
  /**
   * Deletes the conversation memory of `context.principal` in `context.orgId`: their session and
   * every thread they created (privacy request; docs/memory.md). Returns how many conversations
   * were deleted.
   *
   * @throws {DocqaError} `store_unavailable` when the memory store fails.
   */
  forgetUser(context: RequestContext): Promise<{ deleted: number }>;
  /** Resumes jobs left queued or running by a previous process; returns how many were resumed. */
  resumeIngestions(): Promise<number>;
  /**
   * Answers a question with citations, under the user's access rights (spec `POST /predict`
   * processing order), decomposing compound questions when `USE_QUERY_DECOMPOSITION` is true.
   *
   * @throws {DocqaError} `invalid_request` for an empty or too long query; `model_unavailable`
   *   when the chat model stays down, keeps failing or rejects the request; `model_timeout` when
   *   it does not answer within `RAG_LLM_TIMEOUT_MS`; `store_unavailable` when a store fails.
   *   Unusable model output is not an error: the extractive answer is returned instead.
   */
  predict(request: PredictRequest): Promise<PredictResult>;
  /** Hybrid search under the user's access rights, without answering. */
  search(request: SearchRequest): Promise<SearchResult>;
  /**
   * Intent detection (spec `POST /query`): by the chat model when one is configured (falling back
   * to the rules on any model failure), else by the rules. Never fails because of the model.
   */
  detectIntent(request: IntentRequest): Promise<IntentResult>;
  /**
   * Deletes documents of the organisation with everything built from them (chunks, vectors,
   * full-text entries, summary nodes); missing ids are ignored. All or nothing under the write
   * rules: only owners and administrators delete.
   *
   * @throws {DocqaError} `forbidden` when any document may not be deleted by the principal
   *   (nothing is deleted); `store_unavailable`.
   */
  deleteDocuments(context: RequestContext, docIds: readonly string[]): Promise<DeleteDocumentsResult>;
  /**
   * Deletes one document with everything built from it (see {@link RagService.deleteDocuments}).
   *
   * @throws {DocqaError} `not_found` when there is no such document; `forbidden` when the
   *   principal is neither its owner nor an administrator; `store_unavailable`.
   */
  deleteDocument(context: RequestContext, docId: string): Promise<DeleteDocumentsResult>;
  /**
   * One page of the documents the principal may read under the seven rules (every document for
   * administrators), in id order, filtered by source, type and owner. Metadata only.
   *
   * @throws {DocqaError} `invalid_request` for a bad limit or cursor; `store_unavailable`.
   */
  listDocuments(request: ListDocumentsRequest): Promise<DocumentList>;
  /**
   * A document the principal may read (any for administrators), or `undefined`: a document one
   * may not read is reported like a missing one.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  getDocument(context: RequestContext, docId: string): Promise<DocumentSummary | undefined>;
  /** Health detail (liveness: never waits for a backend). */
  health(): Promise<ServiceHealth>;
  /**
   * Counts of the stores, without preparing anything: the organisation stores open in this
   * process and, with `orgId`, that organisation's chunks.
   *
   * @throws {DocqaError} `store_unavailable` when counting fails.
   */
  statistics(options?: { orgId?: string | undefined }): Promise<ServiceStatistics>;
  /**
   * Readiness: whether every configured backend (vector index, keyword index, registry, job
   * store, memory store) answers now, each asked within `options.timeoutMs` (default
   * `READINESS_TIMEOUT_MS`), and the service has finished starting. Never throws: a backend
   * that fails is reported `down` with the reason.
   */
  readiness(options?: { timeoutMs?: number | undefined }): Promise<ReadinessReport>;
  /**
   * Rebuilds the organisation's vector index with `request.model` (default the configured model)
   * and waits for the end: its committed chunks are embedded into a new index beside the live one
   * while reads and writes go on (queries use the live index: its model when it can be loaded,
   * else BM25 alone), chunks written meanwhile are caught up, and the live index switches to the
   * new one atomically. Returns the job, `succeeded` or `failed` (the live index then unchanged).
   * With the embedded store, a job interrupted by a restart resumes where it stopped. On a
   * keyword-only deployment there is nothing to rebuild.
   *
   * @throws {DocqaError} `invalid_request` when the organisation has no chunks, a job for it is
   *   already running, or the deployment has no vector index; `model_unavailable` when the model
   *   cannot be loaded; `store_unavailable`.
   */
  reindex(request: ReindexRequest, options?: { onProgress?: ((job: ReindexJob) => void) | undefined }): Promise<ReindexJob>;
  /**
   * Starts {@link RagService.reindex} in the background and returns the job as recorded (state
   * `running`), or finished when there was nothing to do. Follow it with {@link RagService.reindexStatus}.
   *
   * @throws {DocqaError} as {@link RagService.reindex}, for a job that cannot start.
   */
  startReindex(request: ReindexRequest): Promise<ReindexJob>;
  /**
   * What the organisation's vector index holds (its model, compared with the configured one) and
   * its latest reindex job, started by any process.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  reindexStatus(context: Pick<RequestContext, "orgId">): Promise<ReindexStatus>;
  /**
   * Runs one pass of the sweeper of uncommitted chunk versions now (staged stores: Milvus,
   * Elasticsearch/OpenSearch; an empty report for the embedded store, which leaves none): versions
   * uncommitted for `SWEEP_GRACE_SECONDS` are removed. `ready()` also starts a pass every
   * `SWEEP_INTERVAL_SECONDS` in the background. Never throws: failures are in the report.
   */
  sweep(): Promise<SweepReport>;
  /** Stops background jobs (they resume on the next start) and closes stores. */
  close(): Promise<void>;
}
