/** The options of `createRagService`: configuration, and the parts a caller may supply instead of the configured ones. */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { Answerer } from "../answering/answerer.js";
import type { DocqaConfigOverrides } from "../config/load-config.js";
import type { EmbeddingModelResolver } from "../embeddings/embeddings-for-model.js";
import type { JobStore } from "../jobs/job-store.js";
import type { AuditLog } from "../logging/audit-log.js";
import type { Logger } from "../logging/logger.js";
import type { PerfLog } from "../logging/perf-log.js";
import type { MemoryStore } from "../memory/memory-store.js";
import type { StageEdit } from "../pipeline/edit-stages.js";
import type { PredictState, RetrievalState } from "../pipeline/request-state.js";
import type { Summarizer } from "../raptor/summarizer.js";
import type { Reranker } from "../retrieval/reranker.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { SweepReport } from "../stores/sweep-uncommitted.js";
import type { TransactionalStore } from "../stores/vector-index.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";

/** Options of `createRagService`. */
export interface RagServiceOptions {
  /**
   * Configuration: a {@link DocqaConfig} from `loadConfig`/`resolveConfig`, or overrides of the
   * defaults by section (`{ retrieval: { vectorTopK: 20 } }`), checked like `loadConfig`.
   */
  config?: DocqaConfigOverrides;
  /**
   * Stores: a {@link TransactionalStore} (such as `createEmbeddedStore()`), or a
   * {@link DocumentStores} bundle (`stagedDocumentStores` over server indexes). Default: from the
   * configuration (`storesFromConfig`): the embedded store under `DATA_DIR`, or the server
   * backends selected by `VECTORDB_URI` and `FULLTEXT_URI`.
   */
  stores?: DocumentStores | TransactionalStore;
  /**
   * Embeddings: default per `EMBED_PROVIDER`: transformers.js with `EMBED_MODEL_NAME`, or
   * `OpenAIEmbeddings` / `OllamaEmbeddings` (`embeddingsFromProvider`); `null` for BM25 only.
   */
  embeddings?: EmbeddingsInterface | null;
  /** Model id recorded with vectors of user-supplied embeddings. */
  embeddingModelId?: string;
  /**
   * Embeddings of models other than the configured one, by model id: the target of
   * `reindex({ model })`, and the model of an organisation whose index was built with another one
   * (its queries are embedded with that model). Return undefined to load the id with the
   * configured provider (`EMBED_PROVIDER`, `EMBED_MODEL_PATH`, `EMBED_DTYPE`), the default.
   */
  embeddingModels?: EmbeddingModelResolver | undefined;
  /**
   * Answerer; default the model answerer (`createModelAnswerer`, with the extractive answerer as
   * its fallback) when `RAG_LLM_PROVIDER` selects a usable chat model (`chatModelFromConfig`),
   * else the extractive answerer. A given answerer is used whatever the configuration; the chat
   * model then still decomposes questions and detects intents.
   */
  answerer?: Answerer;
  /**
   * Summariser of RAPTOR clusters; default the extractive summariser. A given summariser keeps
   * ingestion in the calling thread (it cannot cross to a worker thread).
   */
  summarizer?: Summarizer;
  /** Reranker used when `USE_RERANKER` is true. */
  reranker?: Reranker;
  /**
   * Conversation memory; default Redis when `CACHE_URL`/`CACHE_HOST` is set, else in this
   * process (see docs/memory.md).
   */
  memoryStore?: MemoryStore;
  /** Where ingestion jobs are kept; default Redis when `CACHE_URL`/`CACHE_HOST` is set, else SQLite at `DATA_DIR/jobs.sqlite`. */
  jobStore?: JobStore;
  /**
   * Edits of the request pipelines (docs/architecture.md): each receives the default stage list
   * and returns the one to run, for example `insertAfter("rerank", mmrStage())`. Default: the
   * lists as they are (`defaultPredictStages`, `defaultSearchStages`).
   *
   * @throws {DocqaError} `config_invalid` from `createRagService` when an edit names a stage that
   *   does not exist.
   */
  stages?: { predict?: StageEdit<PredictState>; search?: StageEdit<RetrievalState> };
  /** Logger; default JSON lines on standard error at `LOG_LEVEL`. */
  logger?: Logger;
  /**
   * The audit trail of document writes and deletes (one line per document: who, which document,
   * which organisation, the outcome; never content). Default `info` lines `audit` of the logger
   * (`auditLogFromLogger`).
   */
  audit?: AuditLog;
  /** PERF sink; default `PERF` lines on standard output when `PERF_LOG` is true. */
  perfLog?: PerfLog;
  /**
   * Called after every pass of the sweeper of uncommitted chunk versions (staged stores only)
   * with its report: the hook for a metric such as a counter of `chunksRemoved`. Each pass with
   * removals is also logged (`swept uncommitted chunk versions`).
   */
  onSweep?: ((report: SweepReport) => void) | undefined;
  /**
   * Receives metric events (stage latencies, answers, ingestion, embeddings, backend errors);
   * default none. `@docqa/observability`'s `createPrometheusMetrics().serviceMetrics` records
   * them with `prom-client`. Traces need no option: the library's OpenTelemetry spans are
   * exported by whatever tracer provider the application registers (docs/observability.md).
   */
  metrics?: ServiceMetrics;
}
