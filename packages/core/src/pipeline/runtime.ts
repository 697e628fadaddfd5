/**
 * What the stages of a request run on: the resolved configuration and every part
 * `createRagService` prepared (stores, embeddings, the answerer, the chat model, the reranker,
 * conversation memory). Built once by the service's `ready()`; stages receive it as their second
 * argument and never build parts themselves.
 */
import type { Answerer } from "../answering/answerer.js";
import type { ChatModelChoice } from "../chat-models/chat-model-from-config.js";
import type { StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import type { DocqaConfig } from "../config/config-schema.js";
import type { OrganisationIndexModels } from "../embeddings/organisation-index-models.js";
import type { PassageVectorCache } from "../embeddings/passage-vector-cache.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import type { Logger } from "../logging/logger.js";
import type { ConversationMemory } from "../memory/conversation-memory.js";
import type { Reranker } from "../retrieval/reranker.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import type { Analyzer } from "../text/analyzer.js";

/** The prepared parts of a service, as stages see them. */
export interface Runtime {
  readonly config: DocqaConfig;
  readonly logger: Logger;
  /** The document stores (vector index, keyword index, registry). */
  readonly stores: DocumentStores;
  /** The embedding model, or why there is none (retrieval is then BM25 only). */
  readonly embeddings: EmbeddingState;
  /**
   * The embeddings of model `modelId`, loaded once with the configured provider (or the
   * service's `embeddingModels` resolver): the configured model's own state for its id. Used for
   * reindexing and for organisations whose index holds another model ({@link indexModels}).
   * Never throws: a model that cannot be loaded is `unavailable`.
   */
  embeddingsFor(modelId: string): Promise<EmbeddingState>;
  /** Organisations whose index holds vectors of another model, or none, as learned from the stores. */
  readonly indexModels: OrganisationIndexModels;
  /**
   * The answerer: the caller's, else the model answerer when a chat model is ready (with the
   * extractive answerer as its fallback), else the extractive answerer.
   */
  readonly answerer: Answerer;
  /**
   * The model name reported (PERF `model`, `generation.model`) when the answerer is not called
   * (empty context): the chat model's name when the model answerer is in use, else the answerer's name.
   */
  readonly answererModel: string;
  /** The chat model (`RAG_LLM_PROVIDER`), or why there is none. */
  readonly chatModel: ChatModelChoice;
  /** How structured output is requested from the chat model (`RAG_LLM_STRUCTURED_OUTPUT`); undefined for the model's default. */
  readonly structuredOutputMethod: StructuredOutputMethod | undefined;
  /**
   * Milliseconds one auxiliary model call (decomposition, intent, follow-up rewriting) may take:
   * the smaller of `RAG_LLM_TIMEOUT_MS` and 10,000.
   */
  readonly auxiliaryTimeoutMs: number;
  /** The reranker applied when `USE_RERANKER` is true; undefined when none is available. */
  readonly reranker: Reranker | undefined;
  /**
   * Passage vectors of the dense signal (`DENSE_CACHE_ENTRIES`, `DENSE_CACHE_MAX_MB`); undefined
   * when the cache is off. Internal: no API exposes it.
   */
  readonly passageVectors?: PassageVectorCache | undefined;
  /** The analyzer shared by the keyword index and the extractive answerer. */
  readonly analyzer: Analyzer;
  /** Receives the metric events of stages and answers (`createRagService({ metrics })`); none when undefined. */
  readonly metrics?: ServiceMetrics | undefined;
  /**
   * Conversation memory, created on first use (Redis when `CACHE_URL`/`CACHE_HOST` is set, else
   * in process).
   *
   * @throws {DocqaError} `config_invalid` or `store_unavailable` when the memory store cannot be created.
   */
  memory(): Promise<ConversationMemory>;
}
