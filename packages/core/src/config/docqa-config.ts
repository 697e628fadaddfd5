/**
 * The typed configuration of a docqa service. Each field names the environment variable it is
 * read from by {@link loadConfig}; defaults follow the interface specification's table
 * "Configuration defaults (set A)" where the variable appears there.
 */
import type { Environment } from "./environment-schema.js";

/** Which score normalisation maps each retriever's scores to [0, 1] before fusion. */
export type ScoreNormalization = "min-max" | "z-score";

/** Fully resolved configuration. Build one with {@link loadConfig} or {@link resolveConfig}. */
export interface DocqaConfig {
  /** `DATA_DIR`, default `./data`: where the embedded store keeps one SQLite database per organisation. */
  dataDir: string;
  /**
   * `VECTOR_STORE`: `embedded`, `milvus`, or `none` (BM25 only on a full-text server). `auto`
   * (default) picks Milvus when `VECTORDB_URI` is set, else the embedded store.
   */
  vectorStore: "embedded" | "milvus" | "none";
  /**
   * `KEYWORD_STORE`: `embedded`, `search-engine` (Elasticsearch or OpenSearch at `FULLTEXT_URI`)
   * or `milvus` (Milvus's BM25 function). `auto` (default) picks the search engine when
   * `FULLTEXT_URI` is set, else Milvus when `VECTORDB_URI` is set, else the embedded store.
   */
  keywordStore: "embedded" | "search-engine" | "milvus";
  /**
   * Which client speaks to `FULLTEXT_URI`: `KEYWORD_STORE=elasticsearch` or `opensearch`; with
   * `auto`, the engine's `GET /` answer decides.
   */
  fullTextEngine: "auto" | "elasticsearch" | "opensearch";
  /** `VECTORDB_URI`, default `http://localhost:19530` (used only when the Milvus store is selected). */
  vectorDbUri: string;
  /** `VECTORDB_COLLECTION`, default `docs_collection`: base collection name; an organisation suffix is added. */
  vectorDbCollection: string;
  /** `FULLTEXT_URI`, default `http://localhost:9200` (used only when a full-text server is selected). */
  fullTextUri: string;
  /** `FULLTEXT_INDEX`, default `docs_bm25`: base full-text index name; an organisation suffix is added. */
  fullTextIndex: string;
  /** `VECTORDB_TOKEN`: Milvus token (`user:password` or an API key); default none. */
  vectorDbToken: string | undefined;
  /** `FULLTEXT_API_KEY`, or `FULLTEXT_USERNAME` and `FULLTEXT_PASSWORD`: search engine credentials; default none. */
  fullTextAuth: { apiKey: string | undefined; username: string | undefined; password: string | undefined };
  /**
   * `STORE_TIMEOUT_MS`, default 10000: how long a call to a server store may take before the
   * request fails with 503 (`store_unavailable`).
   */
  storeTimeoutMs: number;
  /** `RAG_LLM_PROVIDER`: `openai` (default; any OpenAI-compatible API), `ollama`, or `extractive` (no model). */
  llmProvider: "openai" | "ollama" | "extractive";
  /** `RAG_GENERATOR_MODEL`, default `gpt-4o-mini`: hosted model name. */
  generatorModel: string;
  /** `HOSTEDLLM_API_KEY`: API key of the hosted model; without it the extractive answerer is used. */
  hostedLlmApiKey: string | undefined;
  /** `HOSTEDLLM_BASE_URL`: base URL of an OpenAI-compatible server (vLLM, llama.cpp, gateways). */
  hostedLlmBaseUrl: string | undefined;
  /** `LOCALLLM_MODEL`, default `llama3.1:8b`: Ollama model name. */
  localLlmModel: string;
  /** `LOCALLLM_BASE_URL`, default `http://localhost:11434`. */
  localLlmBaseUrl: string;
  /** `LOCALLLM_NUM_PREDICT`: maximum tokens to generate; default unset (model default). */
  localLlmNumPredict: number | undefined;
  /** `LOCALLLM_NUM_CTX`: context window in tokens; default unset (model default). */
  localLlmNumCtx: number | undefined;
  /** `RAG_LLM_TEMP`, default 0. */
  llmTemperature: number;
  /** `RAG_LLM_TOP_P`, default 0.2. */
  llmTopP: number;
  /**
   * `RAG_LLM_TIMEOUT_MS`, default 60000: milliseconds one chat model call (one attempt) may take
   * before it is aborted; a request whose answer call times out fails with 504 `model_timeout`.
   * Query decomposition and intent detection use the smaller of this and 10000.
   */
  llmTimeoutMs: number;
  /**
   * `RAG_LLM_MAX_RETRIES`, default 2: retries of a chat model call after HTTP 429, 5xx or a
   * connection failure (honouring `Retry-After`), within twice `RAG_LLM_TIMEOUT_MS` in total.
   */
  llmMaxRetries: number;
  /**
   * `RAG_LLM_STRUCTURED_OUTPUT`, default `auto`: how the Answer object is requested:
   * `function_calling` (a forced tool call), `json_schema` (Ollama's `format` schema or
   * `response_format: json_schema`), `json_mode` (`response_format: json_object`, schema in the
   * prompt only); `auto` is `json_schema` for Ollama and `function_calling` otherwise.
   */
  llmStructuredOutput: "auto" | "function_calling" | "json_schema" | "json_mode";
  /**
   * `EMBED_PROVIDER`: `transformers` (default; a local model run with transformers.js), `openai`
   * (`OpenAIEmbeddings` at `HOSTEDLLM_BASE_URL` with `HOSTEDLLM_API_KEY`), `ollama`
   * (`OllamaEmbeddings` at `LOCALLLM_BASE_URL`), or `none` (no embeddings: retrieval uses BM25
   * only, without a warning). `openai` and `ollama` need `EMBED_MODEL_NAME` set explicitly.
   */
  embedProvider: "transformers" | "openai" | "ollama" | "none";
  /**
   * `EMBED_MODEL_NAME`, default `Xenova/bge-base-en-v1.5` (768 dimensions) for transformers.js; no
   * default with `EMBED_PROVIDER=openai` or `ollama` (for example `text-embedding-3-small`,
   * `nomic-embed-text`).
   */
  embedModelName: string;
  /** `EMBED_MODEL_PATH`: local directory holding `<EMBED_MODEL_NAME>/` model files (transformers.js layout). */
  embedModelPath: string | undefined;
  /** `EMBED_DIMENSION`, default 768: must equal the model's output dimension and the index's. */
  embedDimension: number;
  /** `EMBED_DTYPE`, default `fp32`: ONNX weights precision (`q8` loads `onnx/model_quantized.onnx`). */
  embedDtype: "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4";
  /** `EMBED_ALLOW_REMOTE`, default true: whether transformers.js may download the model from the Hugging Face hub. */
  embedAllowRemote: boolean;
  /** `VECTOR_RETRIEVER_TOP_K`, default 8. */
  vectorTopK: number;
  /** `BM25_RETRIEVER_TOP_K`, default 8. */
  bm25TopK: number;
  /** `RETRIEVER_TOP_K`, default 5: chunks kept after fusion, reranking and ACL filtering. */
  retrieverTopK: number;
  /** `WEIGHT_VECTOR`, default 0.5. */
  weightVector: number;
  /** `WEIGHT_BM25`, default 0.5. */
  weightBm25: number;
  /** `SCORE_NORMALIZATION`, default `z-score` (chosen on SciFact, see docs/retrieval.md); see `normalizeScores`. */
  scoreNormalization: ScoreNormalization;
  /** `BM25_K1`, default 0.9 (Anserini's BEIR setting): term-frequency saturation of Okapi BM25. */
  bm25K1: number;
  /** `BM25_B`, default 0.4 (Anserini's BEIR setting): length normalisation of Okapi BM25. */
  bm25B: number;
  /**
   * `VECTOR_INDEX`: `auto` (default: an HNSW graph for organisations with `HNSW_MIN_VECTORS`
   * vectors, exact search below), `exact` (always scan every vector), or `hnsw` (a graph for every
   * organisation). Graphs
   * are built in the background; searches are exact until the graph is ready, and for filters that
   * allow under 5 % of the vectors.
   */
  vectorIndex: "auto" | "exact" | "hnsw";
  /** `HNSW_MIN_VECTORS`, default 20000. */
  hnswMinVectors: number;
  /** `HNSW_CONNECTIVITY`, default 16: graph degree M. */
  hnswConnectivity: number;
  /** `HNSW_EXPANSION_SEARCH`, default 64: candidate list size ef at search time. */
  hnswExpansionSearch: number;
  /** `USE_RERANKER`, default false. */
  useReranker: boolean;
  /** `RERANK_TOP_K`, default 5. */
  rerankTopK: number;
  /** `RERANKER_SCORE_THRESHOLD`, default 0.5 (the cross-encoder's scores are probabilities in [0, 1]). */
  rerankerScoreThreshold: number;
  /** `RERANKER_MODEL_NAME`, default `Xenova/ms-marco-MiniLM-L-6-v2`: the cross-encoder run with transformers.js. */
  rerankerModelName: string;
  /** `RERANKER_MODEL_PATH`: local directory holding `<RERANKER_MODEL_NAME>/`; default `EMBED_MODEL_PATH`. */
  rerankerModelPath: string | undefined;
  /**
   * `RERANK_DEPTH`, default 20: fused candidates scored by the reranker. Bounds its CPU cost: a
   * MiniLM-L6 cross-encoder needs a few milliseconds per pair on two cores, so 20 pairs stay
   * within about 200 ms.
   */
  rerankDepth: number;
  /**
   * `EXTRACTIVE_MIN_COVERAGE`, default 0.15: the extractive answerer abstains when no sentence
   * covers at least this IDF-weighted share of the question's content terms.
   */
  extractiveMinCoverage: number;
  /**
   * `ABSTENTION_CHECKS`, default `auto`: which abstention checks run before the answerer
   * (`decideAnswerable`). `all`: relevance (`low_relevance`) and answer (`not_answerable`) checks;
   * `relevance`: only the relevance checks; `off`: none (only an empty context abstains);
   * `auto`: `all` for the extractive answerer, `relevance` when a model answers (the model reads
   * the text and abstains itself).
   */
  abstentionChecks: "auto" | "all" | "relevance" | "off";
  /**
   * `ABSTAIN_MIN_PASSAGE_COVERAGE`, default 0.3: without an embedding model (BM25 only), the
   * answer abstains with `low_relevance` when no retrieved chunk (text and title) holds this idf-weighted share of the question's content
   * terms.
   */
  abstainMinPassageCoverage: number;
  /**
   * `ABSTAIN_MIN_DENSE`: with an embedding model, the answer abstains with `low_relevance` when
   * no sentence's dense signal (cosine with the question, relative to the question's own) reaches
   * it. Default: the value measured for the model's family (`defaultDenseThreshold`: 0.5 for
   * all-MiniLM, 0.64 for bge), 0.5 for other models.
   */
  abstainMinDense: number | undefined;
  /**
   * `CITATION_MIN_OVERLAP`, default 0.6: a cited statement counts as supported by its source when
   * it appears there or this share of its terms does (`unsupported_citations`).
   */
  citationMinOverlap: number;
  /** `SKIP_LLM_ON_EMPTY_CONTEXT`, default true. */
  skipLlmOnEmptyContext: boolean;
  /** `USE_QUERY_DECOMPOSITION`, default true. */
  useQueryDecomposition: boolean;
  /** `QUERY_DECOMPOSITION_N`, default 5. */
  queryDecompositionN: number;
  /** `SUBQUERY_TOP_K`, default 5. */
  subqueryTopK: number;
  /** `SUBQUERY_REASONING_ENABLED`, default true. */
  subqueryReasoningEnabled: boolean;
  /** `MAX_QUERY_CHARS`, default 4000: longer questions are rejected with `invalid_request`. */
  maxQueryChars: number;
  /** `MAX_DOC_CHARS`, default 4000: characters of one source passed to the model. */
  maxDocChars: number;
  /** `MAX_CONTEXT_CHARS`, default 16000: characters of the whole context passed to the model. */
  maxContextChars: number;
  /** `CHUNK_SIZE`, default 1000 characters. */
  chunkSize: number;
  /** `CHUNK_OVERLAP`, default 150 characters. */
  chunkOverlap: number;
  /** `USE_SEMANTIC_SPLIT`, default false. */
  useSemanticSplit: boolean;
  /** `USE_RAPTOR`, default true. */
  useRaptor: boolean;
  /** `RAPTOR_MAX_LEVELS`, default 3: summary levels built above the chunks. */
  raptorMaxLevels: number;
  /** `RAPTOR_CLUSTER_SIZE`, default 8: largest cluster summarised into one node. */
  raptorClusterSize: number;
  /** `RAPTOR_SUMMARY_CHARS`, default 800: target length of an extractive summary. */
  raptorSummaryChars: number;
  /** `SEMANTIC_SPLIT_PERCENTILE`, default 95: percentile of adjacent-sentence distances that marks a cut. */
  semanticSplitPercentile: number;
  /** `JSON_RECORDS_AS_DOCUMENTS`, default true: each record of a JSON record array becomes its own document. */
  jsonRecordsAsDocuments: boolean;
  /** `MAX_UPLOAD_BYTES`, default 104857600 (100 MiB): largest request body or uploaded file. */
  maxUploadBytes: number;
  /** `MAX_EXTRACTED_CHARS`, default 20000000: most characters of text taken from one file. */
  maxExtractedChars: number;
  /** `CACHE_URL`, `CACHE_HOST`, `CACHE_PORT` (6379), `CACHE_DB` (0), `CACHE_PASSWORD`, `CACHE_SSL` (false). */
  cache: {
    url: string | undefined;
    host: string | undefined;
    port: number;
    db: number;
    password: string | undefined;
    ssl: boolean;
  };
  /** `SESSION_TIMEOUT`, default 600 seconds. */
  sessionTimeoutSeconds: number;
  /** `THREAD_TIMEOUT`, default 300 seconds. */
  threadTimeoutSeconds: number;
  /** `MAX_SESSION_TOKENS`, default 500. */
  maxSessionTokens: number;
  /** `MAX_RETRIEVAL_THREADS`, default 10: concurrent retrievals of one request (sub-queries). */
  maxRetrievalThreads: number;
  /** `MAX_INGESTION_THREADS`, default 10: files ingested concurrently. */
  maxIngestionThreads: number;
  /** `JWT_SECRET`, `JWT_ALGORITHM` (HS256), `JWT_ISSUER` (`oauth-app`). The secret has no default. */
  jwt: {
    secret: string | undefined;
    algorithm: "HS256" | "HS384" | "HS512";
    issuer: string;
  };
  /**
   * `TRUST_USER_INFO`, default false. When false, `user_info.user_name` (and `/upsert`'s
   * `user_email`) must equal the token's `email` claim, case-insensitively, else 403.
   */
  trustUserInfo: boolean;
  /** `HOST`, default `127.0.0.1`; `PORT`, default 8002 (set A). */
  host: string;
  port: number;
  /** `PORT_B`, default 8000: port of set B. */
  portB: number;
  /**
   * Per-user request budgets of set B (spec: 100 per minute and 1,000 per hour):
   * `RATE_LIMIT_PER_MINUTE` (100) and `RATE_LIMIT_PER_HOUR` (1000); `RATE_LIMIT_SET_A`, default
   * false, applies them to set A's authenticated routes too.
   */
  rateLimits: { perMinute: number; perHour: number; setA: boolean };
  /** `ENABLE_TESTPREDICT`, default false: serve the unauthenticated development route `/testpredict`. */
  enableTestPredict: boolean;
  /** `PERF_LOG`, default false: print the spec's `PERF` lines. */
  perfLog: boolean;
  /** `LOG_LEVEL`, default `info`. */
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
}

/** Maps a parsed environment to a {@link DocqaConfig}. */
export function configFromEnvironment(environment: Environment): DocqaConfig {
  const vectorStore = environment.VECTOR_STORE === "auto" ? (environment.VECTORDB_URI ? "milvus" : "embedded") : environment.VECTOR_STORE;
  const keywordStore: DocqaConfig["keywordStore"] =
    environment.KEYWORD_STORE === "auto"
      ? environment.FULLTEXT_URI
        ? "search-engine"
        : environment.VECTORDB_URI
          ? "milvus"
          : "embedded"
      : environment.KEYWORD_STORE === "elasticsearch" || environment.KEYWORD_STORE === "opensearch"
        ? "search-engine"
        : environment.KEYWORD_STORE;
  return {
    dataDir: environment.DATA_DIR,
    vectorStore,
    keywordStore,
    fullTextEngine:
      environment.KEYWORD_STORE === "elasticsearch" || environment.KEYWORD_STORE === "opensearch" ? environment.KEYWORD_STORE : "auto",
    vectorDbToken: environment.VECTORDB_TOKEN,
    fullTextAuth: {
      apiKey: environment.FULLTEXT_API_KEY,
      username: environment.FULLTEXT_USERNAME,
      password: environment.FULLTEXT_PASSWORD,
    },
    storeTimeoutMs: environment.STORE_TIMEOUT_MS,
    vectorDbUri: environment.VECTORDB_URI ?? "http://localhost:19530",
    vectorDbCollection: environment.VECTORDB_COLLECTION,
    fullTextUri: environment.FULLTEXT_URI ?? "http://localhost:9200",
    fullTextIndex: environment.FULLTEXT_INDEX,
    llmProvider: environment.RAG_LLM_PROVIDER,
    generatorModel: environment.RAG_GENERATOR_MODEL,
    hostedLlmApiKey: environment.HOSTEDLLM_API_KEY,
    hostedLlmBaseUrl: environment.HOSTEDLLM_BASE_URL,
    localLlmModel: environment.LOCALLLM_MODEL,
    localLlmBaseUrl: environment.LOCALLLM_BASE_URL,
    localLlmNumPredict: environment.LOCALLLM_NUM_PREDICT,
    localLlmNumCtx: environment.LOCALLLM_NUM_CTX,
    llmTemperature: environment.RAG_LLM_TEMP,
    llmTopP: environment.RAG_LLM_TOP_P,
    llmTimeoutMs: environment.RAG_LLM_TIMEOUT_MS,
    llmMaxRetries: environment.RAG_LLM_MAX_RETRIES,
    llmStructuredOutput: environment.RAG_LLM_STRUCTURED_OUTPUT,
    embedProvider: environment.EMBED_PROVIDER,
    embedModelName: environment.EMBED_MODEL_NAME,
    embedModelPath: environment.EMBED_MODEL_PATH,
    embedDimension: environment.EMBED_DIMENSION,
    embedDtype: environment.EMBED_DTYPE,
    embedAllowRemote: environment.EMBED_ALLOW_REMOTE,
    vectorTopK: environment.VECTOR_RETRIEVER_TOP_K,
    bm25TopK: environment.BM25_RETRIEVER_TOP_K,
    retrieverTopK: environment.RETRIEVER_TOP_K,
    weightVector: environment.WEIGHT_VECTOR,
    weightBm25: environment.WEIGHT_BM25,
    scoreNormalization: environment.SCORE_NORMALIZATION,
    bm25K1: environment.BM25_K1,
    bm25B: environment.BM25_B,
    vectorIndex: environment.VECTOR_INDEX,
    hnswMinVectors: environment.HNSW_MIN_VECTORS,
    hnswConnectivity: environment.HNSW_CONNECTIVITY,
    hnswExpansionSearch: environment.HNSW_EXPANSION_SEARCH,
    useReranker: environment.USE_RERANKER,
    rerankTopK: environment.RERANK_TOP_K,
    rerankerScoreThreshold: environment.RERANKER_SCORE_THRESHOLD,
    rerankerModelName: environment.RERANKER_MODEL_NAME,
    rerankerModelPath: environment.RERANKER_MODEL_PATH ?? environment.EMBED_MODEL_PATH,
    rerankDepth: environment.RERANK_DEPTH,
    extractiveMinCoverage: environment.EXTRACTIVE_MIN_COVERAGE,
    abstentionChecks: environment.ABSTENTION_CHECKS,
    abstainMinPassageCoverage: environment.ABSTAIN_MIN_PASSAGE_COVERAGE,
    abstainMinDense: environment.ABSTAIN_MIN_DENSE,
    citationMinOverlap: environment.CITATION_MIN_OVERLAP,
    skipLlmOnEmptyContext: environment.SKIP_LLM_ON_EMPTY_CONTEXT,
    useQueryDecomposition: environment.USE_QUERY_DECOMPOSITION,
    queryDecompositionN: environment.QUERY_DECOMPOSITION_N,
    subqueryTopK: environment.SUBQUERY_TOP_K,
    subqueryReasoningEnabled: environment.SUBQUERY_REASONING_ENABLED,
    maxQueryChars: environment.MAX_QUERY_CHARS,
    maxDocChars: environment.MAX_DOC_CHARS,
    maxContextChars: environment.MAX_CONTEXT_CHARS,
    chunkSize: environment.CHUNK_SIZE,
    chunkOverlap: environment.CHUNK_OVERLAP,
    useSemanticSplit: environment.USE_SEMANTIC_SPLIT,
    useRaptor: environment.USE_RAPTOR,
    raptorMaxLevels: environment.RAPTOR_MAX_LEVELS,
    raptorClusterSize: environment.RAPTOR_CLUSTER_SIZE,
    raptorSummaryChars: environment.RAPTOR_SUMMARY_CHARS,
    semanticSplitPercentile: environment.SEMANTIC_SPLIT_PERCENTILE,
    jsonRecordsAsDocuments: environment.JSON_RECORDS_AS_DOCUMENTS,
    maxUploadBytes: environment.MAX_UPLOAD_BYTES,
    maxExtractedChars: environment.MAX_EXTRACTED_CHARS,
    cache: {
      url: environment.CACHE_URL,
      host: environment.CACHE_HOST,
      port: environment.CACHE_PORT,
      db: environment.CACHE_DB,
      password: environment.CACHE_PASSWORD,
      ssl: environment.CACHE_SSL,
    },
    sessionTimeoutSeconds: environment.SESSION_TIMEOUT,
    threadTimeoutSeconds: environment.THREAD_TIMEOUT,
    maxSessionTokens: environment.MAX_SESSION_TOKENS,
    maxRetrievalThreads: environment.MAX_RETRIEVAL_THREADS,
    maxIngestionThreads: environment.MAX_INGESTION_THREADS,
    jwt: { secret: environment.JWT_SECRET, algorithm: environment.JWT_ALGORITHM, issuer: environment.JWT_ISSUER },
    trustUserInfo: environment.TRUST_USER_INFO,
    host: environment.HOST,
    port: environment.PORT,
    portB: environment.PORT_B,
    rateLimits: {
      perMinute: environment.RATE_LIMIT_PER_MINUTE,
      perHour: environment.RATE_LIMIT_PER_HOUR,
      setA: environment.RATE_LIMIT_SET_A,
    },
    enableTestPredict: environment.ENABLE_TESTPREDICT,
    perfLog: environment.PERF_LOG,
    logLevel: environment.LOG_LEVEL,
  };
}
