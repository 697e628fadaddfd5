/**
 * Prepares the parts of a service once, lazily: stores, embeddings, the chat model (and the
 * model answerer and intent classifier built on it), the reranker, the job store and
 * conversation memory. `runtime()` resolves to the typed {@link Runtime} the pipeline stages run
 * on; a failed preparation is retried on the next call.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { Answerer } from "../answering/answerer.js";
import { createModelAnswerer } from "../answering/create-model-answerer.js";
import { createExtractiveAnswerer } from "../answering/extractive-answerer.js";
import { type ChatModelChoice, chatModelFromConfig } from "../chat-models/chat-model-from-config.js";
import type { StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import type { DocqaConfig } from "../config/config-schema.js";
import { embeddingStateFromConfig } from "../embeddings/embedding-state-from-config.js";
import { createEmbeddingModelLoader, type EmbeddingModelResolver } from "../embeddings/embeddings-for-model.js";
import { OrganisationIndexModels } from "../embeddings/organisation-index-models.js";
import { PassageVectorCache } from "../embeddings/passage-vector-cache.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import {
  createModelIntentClassifier,
  createRuleIntentClassifier,
  type IntentClassifier,
} from "../intent/create-model-intent-classifier.js";
import type { JobStore } from "../jobs/job-store.js";
import type { Logger } from "../logging/logger.js";
import { type ConversationMemory, createConversationMemory } from "../memory/conversation-memory.js";
import { createTokenCounter } from "../memory/count-tokens.js";
import type { MemoryStore } from "../memory/memory-store.js";
import type { Runtime } from "../pipeline/runtime.js";
import { CrossEncoderReranker } from "../retrieval/cross-encoder-reranker.js";
import type { Reranker } from "../retrieval/reranker.js";
import { type CacheStores, cacheStoresFromConfig } from "../stores/cache-stores-from-config.js";
import { type DocumentStores, transactionalDocumentStores } from "../stores/document-stores.js";
import { storesFromConfig } from "../stores/stores-from-config.js";
import type { TransactionalStore } from "../stores/vector-index.js";
import { instrumentEmbeddings } from "../telemetry/instrument-embeddings.js";
import { instrumentDocumentStores } from "../telemetry/instrument-stores.js";
import { noServiceMetrics, type ServiceMetrics } from "../telemetry/service-metrics.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";

/** The parts a caller may supply instead of the configured ones (see `RagServiceOptions`). */
export interface RuntimeParts {
  stores?: DocumentStores | TransactionalStore | undefined;
  embeddings?: EmbeddingsInterface | null | undefined;
  embeddingModelId?: string | undefined;
  answerer?: Answerer | undefined;
  reranker?: Reranker | undefined;
  memoryStore?: MemoryStore | undefined;
  jobStore?: JobStore | undefined;
  /** Embeddings of other models by id (see `RagServiceOptions.embeddingModels`). */
  embeddingModels?: EmbeddingModelResolver | undefined;
  /** Receives metric events; default none. */
  metrics?: ServiceMetrics | undefined;
}

/** The lazily prepared parts of a service. */
export interface PreparedRuntime {
  /** Prepares everything once (retried after a failure) and returns the runtime. */
  runtime(): Promise<Runtime>;
  /** The intent classifier: by the chat model when one is ready, else by the rules. Prepares only the chat model. */
  intentClassifier(): Promise<IntentClassifier>;
  /** The job store (SQLite under `DATA_DIR`, Redis, or the caller's). */
  jobStore(): Promise<JobStore>;
  /** The conversation memory store (Redis, in this process, or the caller's), without the memory built on it. */
  memoryStore(): Promise<MemoryStore>;
  /** What is known so far, without preparing anything (for health). */
  snapshot(): {
    stores: DocumentStores | undefined;
    embeddings: EmbeddingState | undefined;
    chatModel: ChatModelChoice | undefined;
    answerer: Answerer;
    reranker: Reranker | undefined;
    indexModels: OrganisationIndexModels;
  };
  /** Closes the model threads (after the calls they were given), stores, pending memory writes and the cache connection. */
  close(): Promise<void>;
}

/** `RAG_LLM_STRUCTURED_OUTPUT` values and the LangChain methods they select (`auto`: the model's default). */
const structuredOutputMethods: Record<DocqaConfig["models"]["structuredOutput"], StructuredOutputMethod | undefined> = {
  auto: undefined,
  function_calling: "functionCalling",
  json_schema: "jsonSchema",
  json_mode: "jsonMode",
};

/**
 * Milliseconds the OpenAI client's own timeout exceeds `RAG_LLM_TIMEOUT_MS`, so that docqa's
 * per-attempt timeout (`callWithResilience`) fires first and the client's is only a backstop.
 */
const clientTimeoutMarginMs = 5_000;

/** Memoises a promise-returning function; a rejection is forgotten so the next call retries. */
function once<T>(create: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= create().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** Prepares the runtime of a service from its configuration and the caller's parts. */
export function prepareRuntime(config: DocqaConfig, parts: RuntimeParts, logger: Logger): PreparedRuntime {
  const structuredOutputMethod = structuredOutputMethods[config.models.structuredOutput];
  const auxiliaryTimeoutMs = Math.min(10_000, config.models.timeoutMs);
  const analyzer = createEnglishAnalyzer();
  const extractiveAnswerer = createExtractiveAnswerer({ analyzer });
  let stores: DocumentStores | undefined =
    parts.stores === undefined ? undefined : "visible" in parts.stores ? parts.stores : transactionalDocumentStores(parts.stores);
  let embeddings: EmbeddingState | undefined;
  let chatModel: ChatModelChoice | undefined;
  let answerer: Answerer = parts.answerer ?? extractiveAnswerer;
  let answererModel = answerer.name;
  let intent: IntentClassifier = createRuleIntentClassifier();
  /** The configured cross-encoder, disposed on close (a caller's reranker is the caller's to close). */
  const configuredReranker =
    config.retrieval.useReranker && !parts.reranker
      ? new CrossEncoderReranker({
          modelName: config.retrieval.rerankerModelName,
          localModelPath: config.retrieval.rerankerModelPath,
          allowRemote: config.embeddings.allowRemote,
          thread: config.retrieval.rerankerWorker ? "worker" : "caller",
        })
      : undefined;
  let reranker: Reranker | undefined = parts.reranker ?? configuredReranker;

  const cacheStores = once(() => cacheStoresFromConfig(config, logger));
  let cacheStarted = false;
  const cache = (): Promise<CacheStores> => {
    cacheStarted = true;
    return cacheStores();
  };
  const jobStore = async (): Promise<JobStore> => parts.jobStore ?? (await cache()).jobStore;
  const memoryStore = async (): Promise<MemoryStore> => parts.memoryStore ?? (await cache()).memoryStore;
  const memory = once(async (): Promise<ConversationMemory> => {
    // Loaded in the background, awaited only when a thread with history is read (a failure then
    // surfaces as a failed read: answered without memory, with a warning).
    const countTokens = createTokenCounter(
      config.models.provider === "ollama"
        ? config.models.localModel
        : config.models.provider === "llama-cpp"
          ? config.models.localModelPath
          : config.models.generatorModel,
    );
    countTokens.catch(() => {});
    return createConversationMemory({
      store: await memoryStore(),
      sessionTimeoutSeconds: config.memory.sessionTimeoutSeconds,
      threadTimeoutSeconds: config.memory.threadTimeoutSeconds,
      maxSessionTokens: config.memory.maxSessionTokens,
      countTokens,
      logger,
    });
  });
  let memoryStarted = false;

  const indexModels = new OrganisationIndexModels(() => (embeddings?.status === "ready" ? embeddings.model : undefined), logger);
  /** The serving thread's models embed in an embedding thread of their own (`EMBED_WORKER`). */
  const embeddingThread = config.embeddings.worker ? "worker" : "caller";
  const embeddingsFor = createEmbeddingModelLoader(config, {
    configured: () => runtime().then((prepared) => prepared.embeddings),
    resolver: parts.embeddingModels,
    logger,
    thread: embeddingThread,
  });

  const prepareStores = async (): Promise<DocumentStores> => {
    stores ??= await storesFromConfig(config, logger);
    return stores;
  };

  const prepareReranker = async (): Promise<void> => {
    if (config.retrieval.useReranker && !reranker) {
      logger.warn("USE_RERANKER is true but no reranker is configured; results are not reranked", { component: "retrieval" });
      return;
    }
    if (!(reranker instanceof CrossEncoderReranker)) return;
    try {
      await reranker.load();
    } catch (error) {
      logger.warn(
        `reranker unavailable; results are not reranked: ${DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message}`,
        { component: "reranker" },
      );
      // Its thread, if it started one, has nothing left to do.
      if (reranker === configuredReranker) await configuredReranker.dispose();
      reranker = undefined;
    }
  };

  /** Embeddings per `EMBED_PROVIDER` (`embeddingStateFromConfig`), or the caller's. */
  const prepareEmbeddingState = (): Promise<EmbeddingState> =>
    embeddingStateFromConfig(
      config,
      { embeddings: parts.embeddings, embeddingModelId: parts.embeddingModelId, thread: embeddingThread },
      logger,
    );

  /**
   * Chooses the chat model once (`chatModelFromConfig`; it logs why when there is none) and
   * builds the model answerer and the model intent classifier on it. Never throws.
   */
  const prepareChatModel = once(async (): Promise<ChatModelChoice> => {
    const choice = await chatModelFromConfig(config, { logger, timeoutMs: config.models.timeoutMs + clientTimeoutMarginMs }).catch(
      (error: unknown): ChatModelChoice => {
        const reason = `the chat model could not be created: ${(error as Error).message}`;
        logger.warn(`no chat model; answers use the extractive answerer: ${reason}`, { component: "models" });
        return { status: "disabled", reason };
      },
    );
    chatModel = choice;
    if (choice.status === "ready") {
      if (!parts.answerer) {
        answerer = createModelAnswerer({
          model: choice.model,
          modelName: choice.modelName,
          numPredict: choice.numPredict,
          numCtx: choice.numCtx,
          structuredOutputMethod,
          resilience: { timeoutMs: config.models.timeoutMs, maxRetries: config.models.maxRetries },
          logger,
          fallback: extractiveAnswerer,
        });
        answererModel = choice.modelName;
      }
      intent = createModelIntentClassifier(choice.model, {
        modelName: choice.modelName,
        structuredOutputMethod,
        resilience: { timeoutMs: auxiliaryTimeoutMs, maxRetries: 0 },
        logger,
      });
      logger.info("chat model ready", { component: "models", provider: choice.provider, model: choice.modelName });
    }
    return choice;
  });

  const runtime = once(async (): Promise<Runtime> => {
    const [embeddingState, , readyStores, choice] = await Promise.all([
      prepareEmbeddingState(),
      prepareReranker(),
      prepareStores(),
      prepareChatModel(),
    ]);
    embeddings = embeddingState;
    // Spans and metric events of every store and embedding call, in one place (telemetry/).
    const metrics = parts.metrics ?? noServiceMetrics;
    return {
      config,
      logger,
      stores: instrumentDocumentStores(readyStores, metrics),
      embeddings: instrumentEmbeddings(embeddingState, metrics),
      embeddingsFor,
      indexModels,
      metrics,
      answerer,
      answererModel,
      chatModel: choice,
      structuredOutputMethod,
      auxiliaryTimeoutMs,
      reranker,
      passageVectors:
        config.answering.denseCacheEntries > 0 && config.answering.denseCacheMaxMegabytes > 0
          ? new PassageVectorCache({
              maxEntries: config.answering.denseCacheEntries,
              maxBytes: config.answering.denseCacheMaxMegabytes * 2 ** 20,
            })
          : undefined,
      analyzer,
      memory: () => {
        memoryStarted = true;
        return memory();
      },
    };
  });

  return {
    runtime,
    async intentClassifier() {
      await prepareChatModel();
      return intent;
    },
    jobStore,
    memoryStore,
    snapshot: () => ({ stores, embeddings, chatModel, answerer, reranker, indexModels }),
    async close() {
      if (embeddings?.status === "ready") await embeddings.dispose?.();
      await configuredReranker?.dispose();
      await stores?.close();
      await parts.jobStore?.close();
      if (memoryStarted) await (await memory().catch(() => undefined))?.settled();
      if (cacheStarted) await (await cacheStores().catch(() => undefined))?.close();
    },
  };
}
