/**
 * The configuration of a docqa service as one zod schema, in sections: `stores`, `embeddings`,
 * `models` (the chat model), `retrieval`, `answering`, `ingestion`, `memory`, `access` and
 * `logging`. Each setting names the environment variable it is read from (`env` metadata, see
 * {@link setting}), so `loadConfig` (from variables) and `resolveConfig` (from code) parse the same schema and run
 * the same checks. Defaults follow the interface specification's table "Configuration defaults
 * (set A)" where the variable appears there; the others are docqa's own and documented in
 * `docs/configuration.md`. Server settings (host, ports, JWT, rate limits, the test route) are
 * not here: they belong to the HTTP adapters (`@docqa/http`'s `loadServerConfig`).
 */
import { z } from "zod";
import {
  defaultPassageCacheEntries,
  defaultPassageCacheMegabytes,
  maximumPassageCacheEntries,
} from "../embeddings/passage-vector-cache.js";
import { ingestionSchema } from "./ingestion-section.js";
import { flag, fraction, integer, nameList, optionalInteger, optionalString, setting } from "./setting-helpers.js";
import { keywordStoreVariables, resolveStoreChoice, storesSchema } from "./stores-section.js";

export { flag, fraction, integer, nameList, optionalInteger, optionalString, type SettingMetadata, setting } from "./setting-helpers.js";

/** The default transformers.js embedding model (768 dimensions, the spec's `EMBED_DIMENSION`). */
export const defaultEmbeddingModel = "Xenova/bge-base-en-v1.5";

/** `EMBED_DIMENSION` when it is not set: the dimension of {@link defaultEmbeddingModel}. */
export const defaultEmbeddingDimension = 768;

/** The embedding model. */
const embeddingsSchema = z.object({
  /**
   * `EMBED_PROVIDER`: `transformers` (the default; a local model run with transformers.js), `openai`
   * (`OpenAIEmbeddings` at `HOSTEDLLM_BASE_URL` with `HOSTEDLLM_API_KEY`), `ollama`
   * (`OllamaEmbeddings` at `LOCALLLM_BASE_URL`), or `none` (BM25 only, without a warning).
   * `openai` and `ollama` need `EMBED_MODEL_NAME` set explicitly.
   */
  provider: setting("EMBED_PROVIDER", z.enum(["transformers", "openai", "ollama", "none"]).default("transformers")),
  /**
   * `EMBED_MODEL_NAME`, default `Xenova/bge-base-en-v1.5` (768 dimensions) for transformers.js; no
   * default with `EMBED_PROVIDER=openai` or `ollama` (for example `text-embedding-3-small`,
   * `nomic-embed-text`).
   */
  modelName: setting("EMBED_MODEL_NAME", optionalString()),
  /** `EMBED_MODEL_PATH`: local directory holding `<EMBED_MODEL_NAME>/` model files (transformers.js layout). */
  modelPath: setting("EMBED_MODEL_PATH", optionalString()),
  /** `EMBED_DIMENSION`, default 768: must equal the model's output dimension and the index's. */
  dimension: setting("EMBED_DIMENSION", integer(defaultEmbeddingDimension, 1)),
  /**
   * `EMBED_DTYPE`, default `auto`: ONNX weights precision (`fp32` loads `onnx/model.onnx`, `q8`
   * loads `onnx/model_quantized.onnx`). `auto` loads `model.onnx` when `EMBED_MODEL_PATH` holds
   * it, else `model_quantized.onnx`; without `EMBED_MODEL_PATH` (cache or hub) it loads `q8`.
   */
  dtype: setting("EMBED_DTYPE", z.enum(["auto", "fp32", "fp16", "q8", "int8", "uint8", "q4"]).default("auto")),
  /**
   * `EMBED_ALLOW_REMOTE`, default false: whether transformers.js may download a model (the
   * embedding model, the reranker) from the Hugging Face hub. Off, docqa makes no network call for
   * models: they are read from `EMBED_MODEL_PATH` or transformers.js's local cache.
   */
  allowRemote: setting("EMBED_ALLOW_REMOTE", flag(false)),
  /**
   * `EMBED_THREADS`, default 0: ONNX Runtime threads per forward pass. 0 means the cores available
   * to the process in the serving thread, and those cores divided by the ingestion pool's threads in
   * each ingestion worker (`workerEmbeddingThreads`), which embed large calls data-parallel.
   */
  threads: setting("EMBED_THREADS", integer(0, 0)),
  /**
   * `EMBED_WORKER`, default true: the service's own transformers.js model (the question's
   * embedding, the answer's dense signal) runs in an embedding thread of its own
   * (`threads/model-thread.ts`), so that a forward pass never holds the serving thread's
   * event loop; false runs it in the serving thread. Needs the built package
   * (`dist/model-worker.js`); without it the serving thread embeds. The reranker has its own
   * setting, `RERANKER_WORKER`.
   */
  worker: setting("EMBED_WORKER", flag(true)),
  /**
   * `EMBED_CACHE_MAX_ENTRIES`, default 500,000 (about 0.8 GB at 384 dimensions): chunk vectors kept
   * in `DATA_DIR/embedding-cache.sqlite`, keyed by model and text, so that a chunk is never
   * embedded twice; 0 turns the cache off.
   */
  cacheMaxEntries: setting("EMBED_CACHE_MAX_ENTRIES", integer(500_000, 0)),
});

/** The chat model (a language model used for answers, decomposition, intents and follow-ups). */
const modelsSchema = z.object({
  /**
   * `RAG_LLM_PROVIDER`: `openai` (default; any OpenAI-compatible API), `ollama`, `llama-cpp` (a
   * GGUF file run in this process by node-llama-cpp, `LOCALLLM_MODEL_PATH`), or `extractive` (no model).
   */
  provider: setting("RAG_LLM_PROVIDER", z.enum(["openai", "ollama", "llama-cpp", "extractive"]).default("openai")),
  /** `RAG_GENERATOR_MODEL`, default `gpt-4o-mini`: hosted model name. */
  generatorModel: setting("RAG_GENERATOR_MODEL", z.string().default("gpt-4o-mini")),
  /** `HOSTEDLLM_API_KEY`: API key of the hosted model; without it (and without a base URL) the extractive answerer is used. */
  hostedApiKey: setting("HOSTEDLLM_API_KEY", optionalString()),
  /** `HOSTEDLLM_BASE_URL`: base URL of an OpenAI-compatible server (vLLM, llama.cpp, gateways). */
  hostedBaseUrl: setting("HOSTEDLLM_BASE_URL", z.url().optional()),
  /** `LOCALLLM_MODEL`, default `llama3.1:8b`: Ollama model name. */
  localModel: setting("LOCALLLM_MODEL", z.string().default("llama3.1:8b")),
  /** `LOCALLLM_BASE_URL`, default `http://localhost:11434`. */
  localBaseUrl: setting("LOCALLLM_BASE_URL", z.url().default("http://localhost:11434")),
  /**
   * `LOCALLLM_NUM_PREDICT`: maximum tokens to generate (Ollama, llama-cpp); default unset: Ollama's
   * model default, 1024 for llama-cpp (`defaultLlamaCppMaxTokens`).
   */
  numPredict: setting("LOCALLLM_NUM_PREDICT", optionalInteger()),
  /**
   * `LOCALLLM_NUM_CTX`: context window in tokens (Ollama; for llama-cpp, of each sequence); default
   * unset: Ollama's model default, 8192 for llama-cpp (`defaultLlamaCppContextSize`).
   */
  numCtx: setting("LOCALLLM_NUM_CTX", optionalInteger()),
  /** `LOCALLLM_MODEL_PATH`: the GGUF file `RAG_LLM_PROVIDER=llama-cpp` runs (for example the file `docqa models pull` prints). */
  localModelPath: setting("LOCALLLM_MODEL_PATH", optionalString()),
  /**
   * `LOCALLLM_THREADS`: CPU threads llama-cpp computes with; default unset: node-llama-cpp's
   * `cpuMathCores` (the machine's physical cores, the fastest setting on a CPU).
   */
  localThreads: setting("LOCALLLM_THREADS", optionalInteger()),
  /**
   * `LOCALLLM_SEQUENCES`, default 2: answers llama-cpp generates at once (context sequences decoded
   * in one batch); each holds `LOCALLLM_NUM_CTX` tokens of KV cache.
   */
  localSequences: setting("LOCALLLM_SEQUENCES", integer(2, 1)),
  /**
   * `LOCALLLM_QUEUE_SIZE`, default 16: model calls that wait for a free llama-cpp sequence; one
   * more is refused at once with 503 `model_busy` and a `Retry-After`.
   */
  localQueueSize: setting("LOCALLLM_QUEUE_SIZE", integer(16, 0)),
  /** `RAG_LLM_TEMP`, default 0. */
  temperature: setting("RAG_LLM_TEMP", z.coerce.number().min(0).max(2).default(0)),
  /** `RAG_LLM_TOP_P`, default 0.2. */
  topP: setting("RAG_LLM_TOP_P", fraction(0.2)),
  /**
   * `RAG_LLM_TIMEOUT_MS`, default 60000: milliseconds one chat model call (one attempt) may take
   * before it is aborted; a request whose answer call times out fails with 504 `model_timeout`.
   * Query decomposition and intent detection use the smaller of this and 10000.
   */
  timeoutMs: setting("RAG_LLM_TIMEOUT_MS", integer(60_000, 1)),
  /**
   * `RAG_LLM_MAX_RETRIES`, default 2: retries of a chat model call after HTTP 429, 5xx or a
   * connection failure (honouring `Retry-After`), within twice `RAG_LLM_TIMEOUT_MS` in total.
   */
  maxRetries: setting("RAG_LLM_MAX_RETRIES", integer(2, 0)),
  /**
   * `RAG_LLM_STRUCTURED_OUTPUT`, default `auto`: how the Answer object is requested:
   * `function_calling` (a forced tool call), `json_schema` (Ollama's `format` schema or
   * `response_format: json_schema`), `json_mode` (`response_format: json_object`, schema in the
   * prompt only); `auto` is `json_schema` for Ollama, a grammar built from the schema for
   * llama-cpp (whatever the value), and for the openai provider `function_calling` until the
   * server shows it does not honour a forced tool call (it rejects `tool_choice`, or answers
   * without a tool call), then `json_schema` for that model from then on.
   */
  structuredOutput: setting("RAG_LLM_STRUCTURED_OUTPUT", z.enum(["auto", "function_calling", "json_schema", "json_mode"]).default("auto")),
});

/** Retrieval: depths, fusion, BM25, the reranker, decomposition. */
const retrievalSchema = z.object({
  /** `VECTOR_RETRIEVER_TOP_K`, default 8. */
  vectorTopK: setting("VECTOR_RETRIEVER_TOP_K", integer(8, 1)),
  /** `BM25_RETRIEVER_TOP_K`, default 8. */
  bm25TopK: setting("BM25_RETRIEVER_TOP_K", integer(8, 1)),
  /**
   * `FUSION_CANDIDATES`, default 30: chunks each retriever contributes to fusion at least, so a
   * retriever returns `max(VECTOR_RETRIEVER_TOP_K, FUSION_CANDIDATES)` (and likewise for BM25).
   * Min-max normalisation needs a list deep enough for its minimum to be a typical weak match;
   * 30 was chosen among 8 to 1,000 on six set and model pairs (docs/retrieval.md). 0 keeps the
   * top-K alone.
   */
  fusionCandidates: setting("FUSION_CANDIDATES", integer(30, 0)),
  /** `RETRIEVER_TOP_K`, default 5: chunks kept after fusion, reranking and ACL filtering. */
  retrieverTopK: setting("RETRIEVER_TOP_K", integer(5, 1)),
  /** `WEIGHT_VECTOR`, default 0.5. */
  weightVector: setting("WEIGHT_VECTOR", z.coerce.number().min(0).default(0.5)),
  /** `WEIGHT_BM25`, default 0.5. */
  weightBm25: setting("WEIGHT_BM25", z.coerce.number().min(0).default(0.5)),
  /** `SCORE_NORMALIZATION`, default `min-max` (chosen with `FUSION_CANDIDATES`, see docs/retrieval.md); see `normalizeScores`. */
  scoreNormalization: setting("SCORE_NORMALIZATION", z.enum(["min-max", "z-score"]).default("min-max")),
  /**
   * `HYBRID_SEARCH`, default `node`: where the vector and BM25 lists of a query are fused. `node`:
   * two searches, fused by docqa (`WEIGHT_VECTOR`, `WEIGHT_BM25`, `SCORE_NORMALIZATION`). `engine`:
   * one hybrid request fused by the engine, when one store serves both lists and offers it (Milvus
   * with its BM25 function: `hybridSearch` with a weighted ranker of the same weights, the ACL
   * filter in each list's request) and the settings are the engine's (min-max normalisation,
   * weighted fusion); otherwise, and for a request without a query vector, fusion stays in docqa.
   * See docs/retrieval.md for what each engine's fusion computes.
   */
  hybridSearch: setting("HYBRID_SEARCH", z.enum(["node", "engine"]).default("node")),
  /** `BM25_K1`, default 0.9 (Anserini's BEIR setting): term-frequency saturation of Okapi BM25. */
  bm25K1: setting("BM25_K1", z.coerce.number().min(0).default(0.9)),
  /** `BM25_B`, default 0.4 (Anserini's BEIR setting): length normalisation of Okapi BM25. */
  bm25B: setting("BM25_B", fraction(0.4)),
  /** `USE_RERANKER`, default false. */
  useReranker: setting("USE_RERANKER", flag(false)),
  /** `RERANK_TOP_K`, default 5. */
  rerankTopK: setting("RERANK_TOP_K", integer(5, 1)),
  /** `RERANKER_SCORE_THRESHOLD`, default 0.5 (the cross-encoder's scores are probabilities in [0, 1]). */
  rerankerScoreThreshold: setting("RERANKER_SCORE_THRESHOLD", z.coerce.number().default(0.5)),
  /** `RERANKER_MODEL_NAME`, default `Xenova/ms-marco-MiniLM-L-6-v2`: the cross-encoder run with transformers.js. */
  rerankerModelName: setting("RERANKER_MODEL_NAME", z.string().default("Xenova/ms-marco-MiniLM-L-6-v2")),
  /** `RERANKER_MODEL_PATH`: local directory holding `<RERANKER_MODEL_NAME>/`; default `EMBED_MODEL_PATH`. */
  rerankerModelPath: setting("RERANKER_MODEL_PATH", optionalString()),
  /**
   * `RERANKER_WORKER`, default true: the cross-encoder (tokenizer and forward passes) runs in a
   * reranker thread of its own (`threads/model-thread.ts`), so that a reranking (about 200 ms for
   * `RERANK_DEPTH` 20) never holds the serving thread's event loop; false runs it in the serving
   * thread. A setting of its own, beside `EMBED_WORKER`: the two models run in separate threads.
   * Needs the built package (`dist/model-worker.js`); without it the serving thread reranks.
   */
  rerankerWorker: setting("RERANKER_WORKER", flag(true)),
  /**
   * `RERANK_DEPTH`, default 20: fused candidates scored by the reranker. Bounds its CPU cost: a
   * MiniLM-L6 cross-encoder needs a few milliseconds per pair on two cores, so 20 pairs stay
   * within about 200 ms.
   */
  rerankDepth: setting("RERANK_DEPTH", integer(20, 1)),
  /** `USE_QUERY_DECOMPOSITION`, default true. */
  useQueryDecomposition: setting("USE_QUERY_DECOMPOSITION", flag(true)),
  /** `QUERY_DECOMPOSITION_N`, default 5. */
  queryDecompositionN: setting("QUERY_DECOMPOSITION_N", integer(5, 1)),
  /** `SUBQUERY_TOP_K`, default 5. */
  subqueryTopK: setting("SUBQUERY_TOP_K", integer(5, 1)),
  /** `MAX_RETRIEVAL_THREADS`, default 10: concurrent retrievals of one request (sub-queries). */
  maxRetrievalThreads: setting("MAX_RETRIEVAL_THREADS", integer(10, 1)),
  /** `MAX_QUERY_CHARS`, default 4000: longer questions are rejected with `invalid_request`. */
  maxQueryChars: setting("MAX_QUERY_CHARS", integer(4000, 1)),
});

/** Answering: the context, the extractive answerer, abstention, citation checks, the empty-context rule. */
const answeringSchema = z.object({
  /**
   * `ABSTENTION_CHECKS`, default `auto`: which abstention checks run before the answerer
   * (`decideAnswerable`). `all`: relevance (`low_relevance`) and answer (`not_answerable`) checks;
   * `relevance`: only the relevance checks; `off`: none (only an empty context abstains);
   * `auto`: `all` for the extractive answerer, `relevance` when a model answers (the model reads
   * the text and abstains itself), and `all` for an extractive answer standing in for a model's
   * unusable output.
   */
  abstentionChecks: setting("ABSTENTION_CHECKS", z.enum(["auto", "all", "relevance", "off"]).default("auto")),
  /**
   * `ABSTAIN_MIN_RELEVANCE`: the answer abstains with `low_relevance` when the relevance model's
   * P(the context is about the question) is below it. Default: the threshold fitted with the
   * model on the calibration splits (`scripts/calibrate-answering.mjs`, docs/answering.md), for
   * BM25 only or for the embedding model's family. 0 turns the check off.
   */
  abstainMinRelevance: setting("ABSTAIN_MIN_RELEVANCE", z.coerce.number().min(0).max(1).optional()),
  /**
   * `ABSTAIN_MIN_ANSWERABILITY`: the answer abstains with `not_answerable` when the answerability
   * model's P(the best passage answers the question) is below it. Default: the fitted threshold
   * (docs/answering.md). 0 turns the check off. Not applied before a chat model (`ABSTENTION_CHECKS`).
   */
  abstainMinAnswerability: setting("ABSTAIN_MIN_ANSWERABILITY", z.coerce.number().min(0).max(1).optional()),
  /**
   * `DENSE_CACHE_ENTRIES`, default 20,000: passage vectors of the dense signal kept per process
   * (`PassageVectorCache`), keyed by model identity, organisation and sentence text, so that a
   * sentence of a passage asked about before is not embedded again; least recently used first out.
   * An entry costs its vector (4 bytes a dimension), its key and about 200 bytes: about 2 KB at 384
   * dimensions, 3.4 KB at 768. At most 10,000,000 (the LRU allocates its index for this many up
   * front). 0 turns the cache off (docs/answering.md#dense-signal-cache).
   */
  denseCacheEntries: setting(
    "DENSE_CACHE_ENTRIES",
    z.coerce.number().int().min(0).max(maximumPassageCacheEntries).default(defaultPassageCacheEntries),
  ),
  /**
   * `DENSE_CACHE_MAX_MB`, default 64: megabytes the dense-signal cache holds at most (vectors, keys
   * and bookkeeping, as estimated); whichever of this and `DENSE_CACHE_ENTRIES` is reached first
   * bounds it. 0 turns the cache off.
   */
  denseCacheMaxMegabytes: setting("DENSE_CACHE_MAX_MB", integer(defaultPassageCacheMegabytes, 0)),
  /**
   * `CITATION_MIN_OVERLAP`, default 0.6: a cited statement counts as supported by its source when
   * it appears there or this share of its terms does (`unsupported_citations`).
   */
  citationMinOverlap: setting("CITATION_MIN_OVERLAP", fraction(0.6)),
  /** `SKIP_LLM_ON_EMPTY_CONTEXT`, default true: with no readable context, answer the empty-context answer without calling the answerer. */
  skipModelOnEmptyContext: setting("SKIP_LLM_ON_EMPTY_CONTEXT", flag(true)),
  /** `SUBQUERY_REASONING_ENABLED`, default true: a language model is shown the sub-queries of a decomposed question. */
  subqueryReasoningEnabled: setting("SUBQUERY_REASONING_ENABLED", flag(true)),
  /** `MAX_DOC_CHARS`, default 4000: characters of one source passed to the model. */
  maxDocChars: setting("MAX_DOC_CHARS", integer(4000, 100)),
  /** `MAX_CONTEXT_CHARS`, default 16000: characters of the whole context passed to the model. */
  maxContextChars: setting("MAX_CONTEXT_CHARS", integer(16_000, 100)),
});

/** Conversation memory and the job store's connection. */
const memorySchema = z.object({
  /** `CACHE_URL`, `CACHE_HOST`, `CACHE_PORT` (6379), `CACHE_DB` (0), `CACHE_PASSWORD`, `CACHE_SSL` (false): Redis, for memory, jobs and rate limits. */
  cache: z
    .object({
      url: setting("CACHE_URL", optionalString()),
      host: setting("CACHE_HOST", optionalString()),
      port: setting("CACHE_PORT", integer(6379, 1)),
      db: setting("CACHE_DB", integer(0)),
      password: setting("CACHE_PASSWORD", optionalString()),
      ssl: setting("CACHE_SSL", flag(false)),
    })
    .prefault({}),
  /** `SESSION_TIMEOUT`, default 600 seconds. */
  sessionTimeoutSeconds: setting("SESSION_TIMEOUT", integer(600, 1)),
  /** `THREAD_TIMEOUT`, default 300 seconds. */
  threadTimeoutSeconds: setting("THREAD_TIMEOUT", integer(300, 1)),
  /** `MAX_SESSION_TOKENS`, default 500. */
  maxSessionTokens: setting("MAX_SESSION_TOKENS", integer(500, 1)),
});

/** Who may write: the write rules of `docs/access-control.md` (`acl/authorize-write.ts`). */
const accessSchema = z.object({
  /**
   * `ADMIN_ROLES`, default `admin`: comma-separated roles whose holders manage every document of
   * their organisation (replace, delete, change owner and ACL, list all). Compared
   * case-insensitively with the principal's roles (the token's `role`/`roles`, or a principal
   * resolver's).
   */
  adminRoles: setting("ADMIN_ROLES", nameList(["admin"])),
});

/** Logs. */
const loggingSchema = z.object({
  /** `PERF_LOG`, default false: print the spec's `PERF` lines. */
  perfLog: setting("PERF_LOG", flag(false)),
  /** `LOG_LEVEL`, default `info`. */
  level: setting("LOG_LEVEL", z.enum(["debug", "info", "warn", "error", "silent"]).default("info")),
  /**
   * `TRACE_CONTENT`, default false: OpenTelemetry spans also carry the question, the queries, the
   * answer's callout and file names (never by default: spans carry sizes and counts only).
   */
  traceContent: setting("TRACE_CONTENT", flag(false)),
});

/** The sections, before the `auto` choices are resolved. */
const sectionsSchema = z.object({
  stores: storesSchema.prefault({}),
  embeddings: embeddingsSchema.prefault({}),
  models: modelsSchema.prefault({}),
  retrieval: retrievalSchema.prefault({}),
  answering: answeringSchema.prefault({}),
  ingestion: ingestionSchema.prefault({}),
  memory: memorySchema.prefault({}),
  access: accessSchema.prefault({}),
  logging: loggingSchema.prefault({}),
});

/**
 * The configuration schema: the sections, checked across settings, with `auto` store choices and
 * defaults that depend on other settings resolved. Parse errors carry paths such as
 * `["retrieval", "vectorTopK"]`; `loadConfig` names the variable instead.
 */
export const configSchema = sectionsSchema
  .superRefine((config, context) => {
    const problem = (path: (string | number)[], message: string) => context.addIssue({ code: "custom", path, message });
    if ((config.embeddings.provider === "openai" || config.embeddings.provider === "ollama") && config.embeddings.modelName === undefined) {
      const example = config.embeddings.provider === "openai" ? "text-embedding-3-small" : "nomic-embed-text";
      problem(
        ["embeddings", "modelName"],
        `EMBED_PROVIDER=${config.embeddings.provider} needs EMBED_MODEL_NAME set to a model the provider serves (for example ${example}); the default ${defaultEmbeddingModel} is a transformers.js model`,
      );
    }
    if (config.ingestion.chunkOverlap >= config.ingestion.chunkSize) {
      problem(
        ["ingestion", "chunkOverlap"],
        `CHUNK_OVERLAP (${config.ingestion.chunkOverlap}) must be smaller than CHUNK_SIZE (${config.ingestion.chunkSize})`,
      );
    }
    if (config.models.provider === "llama-cpp" && config.models.localModelPath === undefined) {
      problem(
        ["models", "localModelPath"],
        "RAG_LLM_PROVIDER=llama-cpp needs LOCALLLM_MODEL_PATH set to a GGUF file (`docqa models pull` downloads one and prints the settings)",
      );
    }
    if (config.retrieval.weightVector + config.retrieval.weightBm25 === 0) {
      problem(["retrieval", "weightVector"], "WEIGHT_VECTOR and WEIGHT_BM25 are both 0");
    }
  })
  .transform((config, context) => {
    const { stores } = config;
    const vector = resolveStoreChoice("vector", stores.vector, stores);
    const keyword = resolveStoreChoice("keyword", stores.keyword, stores);
    if ((vector === "embedded") !== (keyword === "embedded") && vector !== "none") {
      context.addIssue({
        code: "custom",
        path: ["stores", "vector"],
        message: `the embedded store holds both indexes, so it cannot be combined with a server (vector store ${vector}, keyword store ${keyword}): set both VECTORDB_URI and FULLTEXT_URI, or VECTORDB_URI alone (Milvus for both), or neither; for BM25 only on a full-text server set VECTOR_STORE=none`,
      });
    }
    if (vector === "none" && keyword === "embedded") {
      context.addIssue({
        code: "custom",
        path: ["stores", "vector"],
        message: `VECTOR_STORE=none needs a server keyword store (${keywordStoreVariables()}); for BM25 only with the embedded store set EMBED_PROVIDER=none`,
      });
    }
    return {
      ...config,
      stores: {
        ...stores,
        vector,
        keyword,
      },
      embeddings: {
        ...config.embeddings,
        modelName: config.embeddings.modelName ?? defaultEmbeddingModel,
        /**
         * Whether the settings choose an embedding model beyond the defaults: `EMBED_PROVIDER`
         * other than `transformers`, `EMBED_MODEL_NAME` other than the default,
         * `EMBED_MODEL_PATH`, or `EMBED_ALLOW_REMOTE=true` (decided from the values, so parsing a
         * resolved configuration again keeps it). When not, and the default model is not in
         * transformers.js's local cache, retrieval is BM25 only without a warning
         * (`prepareEmbeddings`): nothing was asked for, so nothing failed.
         */
        chosen:
          config.embeddings.provider !== "transformers" ||
          (config.embeddings.modelName ?? defaultEmbeddingModel) !== defaultEmbeddingModel ||
          config.embeddings.modelPath !== undefined ||
          config.embeddings.allowRemote,
      },
      retrieval: { ...config.retrieval, rerankerModelPath: config.retrieval.rerankerModelPath ?? config.embeddings.modelPath },
    };
  });

/** Fully resolved configuration. Build one with `loadConfig` (environment) or `resolveConfig` (code). */
export type DocqaConfig = z.output<typeof configSchema>;

/** What `configSchema` accepts: every section and setting optional. */
export type DocqaConfigInput = z.input<typeof configSchema>;

/** Which score normalisation maps each retriever's scores to [0, 1] before fusion. */
export type ScoreNormalization = DocqaConfig["retrieval"]["scoreNormalization"];
