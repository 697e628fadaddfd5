/**
 * Every environment variable docqa reads, with its default and meaning, as one zod schema.
 * The set A variables and defaults follow the interface specification's table
 * "Configuration defaults (set A)"; the others are docqa's own and documented in
 * `docs/configuration.md`. This module is the only place that knows variable names.
 */
import { z } from "zod";

const integer = (defaultValue: number, minimum = 0) => z.coerce.number().int().min(minimum).default(defaultValue);
const optionalInteger = (minimum = 1) => z.coerce.number().int().min(minimum).optional();
const fraction = (defaultValue: number) => z.coerce.number().min(0).max(1).default(defaultValue);
const flag = (defaultValue: boolean) => z.stringbool().default(defaultValue);

/**
 * Schema of the process environment. Keys are variable names; values are parsed from strings.
 * An empty string counts as unset.
 */
export const environmentSchema = z.object({
  // Storage selection and the embedded store
  DATA_DIR: z.string().default("./data"),
  VECTOR_STORE: z.enum(["auto", "embedded", "milvus", "none"]).default("auto"),
  KEYWORD_STORE: z.enum(["auto", "embedded", "elasticsearch", "opensearch", "milvus"]).default("auto"),
  VECTORDB_URI: z.string().optional(),
  VECTORDB_COLLECTION: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "letters, digits and underscores, not starting with a digit")
    .default("docs_collection"),
  VECTORDB_TOKEN: z.string().optional(),
  FULLTEXT_URI: z.string().optional(),
  FULLTEXT_API_KEY: z.string().optional(),
  FULLTEXT_USERNAME: z.string().optional(),
  FULLTEXT_PASSWORD: z.string().optional(),
  STORE_TIMEOUT_MS: integer(10_000, 1),
  FULLTEXT_INDEX: z
    .string()
    .regex(/^[a-z0-9_][a-z0-9_-]*$/, "lower-case letters, digits, '_' and '-'")
    .default("docs_bm25"),
  // Models
  RAG_LLM_PROVIDER: z.enum(["openai", "ollama", "extractive"]).default("openai"),
  RAG_GENERATOR_MODEL: z.string().default("gpt-4o-mini"),
  HOSTEDLLM_API_KEY: z.string().optional(),
  HOSTEDLLM_BASE_URL: z.url().optional(),
  LOCALLLM_MODEL: z.string().default("llama3.1:8b"),
  LOCALLLM_BASE_URL: z.url().default("http://localhost:11434"),
  LOCALLLM_NUM_PREDICT: optionalInteger(),
  LOCALLLM_NUM_CTX: optionalInteger(),
  RAG_LLM_TEMP: z.coerce.number().min(0).max(2).default(0),
  RAG_LLM_TOP_P: fraction(0.2),
  RAG_LLM_TIMEOUT_MS: integer(60_000, 1),
  RAG_LLM_MAX_RETRIES: integer(2, 0),
  RAG_LLM_STRUCTURED_OUTPUT: z.enum(["auto", "function_calling", "json_schema", "json_mode"]).default("auto"),
  EMBED_PROVIDER: z.enum(["transformers", "openai", "ollama", "none"]).default("transformers"),
  EMBED_MODEL_NAME: z.string().default("Xenova/bge-base-en-v1.5"),
  EMBED_MODEL_PATH: z.string().optional(),
  EMBED_DIMENSION: integer(768, 1),
  EMBED_DTYPE: z.enum(["fp32", "fp16", "q8", "int8", "uint8", "q4"]).default("fp32"),
  EMBED_ALLOW_REMOTE: flag(true),
  // Retrieval
  VECTOR_RETRIEVER_TOP_K: integer(8, 1),
  BM25_RETRIEVER_TOP_K: integer(8, 1),
  RETRIEVER_TOP_K: integer(5, 1),
  WEIGHT_VECTOR: z.coerce.number().min(0).default(0.5),
  WEIGHT_BM25: z.coerce.number().min(0).default(0.5),
  SCORE_NORMALIZATION: z.enum(["min-max", "z-score"]).default("z-score"),
  BM25_K1: z.coerce.number().min(0).default(0.9),
  BM25_B: fraction(0.4),
  VECTOR_INDEX: z.enum(["auto", "exact", "hnsw"]).default("auto"),
  HNSW_MIN_VECTORS: integer(20_000, 0),
  HNSW_CONNECTIVITY: integer(16, 2),
  HNSW_EXPANSION_SEARCH: integer(64, 1),
  USE_RERANKER: flag(false),
  RERANK_TOP_K: integer(5, 1),
  RERANKER_SCORE_THRESHOLD: z.coerce.number().default(0.5),
  RERANKER_MODEL_NAME: z.string().default("Xenova/ms-marco-MiniLM-L-6-v2"),
  RERANKER_MODEL_PATH: z.string().optional(),
  RERANK_DEPTH: integer(20, 1),
  SKIP_LLM_ON_EMPTY_CONTEXT: flag(true),
  EXTRACTIVE_MIN_COVERAGE: fraction(0.15),
  ABSTENTION_CHECKS: z.enum(["auto", "all", "relevance", "off"]).default("auto"),
  ABSTAIN_MIN_PASSAGE_COVERAGE: fraction(0.3),
  ABSTAIN_MIN_DENSE: z.coerce.number().min(-1).max(1).optional(),
  CITATION_MIN_OVERLAP: fraction(0.6),
  USE_QUERY_DECOMPOSITION: flag(true),
  QUERY_DECOMPOSITION_N: integer(5, 1),
  SUBQUERY_TOP_K: integer(5, 1),
  SUBQUERY_REASONING_ENABLED: flag(true),
  MAX_QUERY_CHARS: integer(4000, 1),
  MAX_DOC_CHARS: integer(4000, 100),
  MAX_CONTEXT_CHARS: integer(16000, 100),
  // Ingestion
  CHUNK_SIZE: integer(1000, 50),
  CHUNK_OVERLAP: integer(150, 0),
  USE_SEMANTIC_SPLIT: flag(false),
  USE_RAPTOR: flag(true),
  RAPTOR_MAX_LEVELS: integer(3, 1),
  RAPTOR_CLUSTER_SIZE: integer(8, 2),
  RAPTOR_SUMMARY_CHARS: integer(800, 100),
  SEMANTIC_SPLIT_PERCENTILE: z.coerce.number().min(50).max(100).default(95),
  JSON_RECORDS_AS_DOCUMENTS: flag(true),
  MAX_UPLOAD_BYTES: integer(100 * 1024 * 1024, 1024),
  MAX_EXTRACTED_CHARS: integer(20_000_000, 1000),
  // Memory store
  CACHE_URL: z.string().optional(),
  CACHE_HOST: z.string().optional(),
  CACHE_PORT: integer(6379, 1),
  CACHE_DB: integer(0),
  CACHE_PASSWORD: z.string().optional(),
  CACHE_SSL: flag(false),
  SESSION_TIMEOUT: integer(600, 1),
  THREAD_TIMEOUT: integer(300, 1),
  MAX_SESSION_TOKENS: integer(500, 1),
  // Concurrency
  MAX_RETRIEVAL_THREADS: integer(10, 1),
  MAX_INGESTION_THREADS: integer(10, 1),
  // Authentication
  JWT_SECRET: z.string().optional(),
  JWT_ALGORITHM: z.enum(["HS256", "HS384", "HS512"]).default("HS256"),
  JWT_ISSUER: z.string().default("oauth-app"),
  TRUST_USER_INFO: flag(false),
  // Server
  HOST: z.string().default("127.0.0.1"),
  PORT: integer(8002, 0),
  PORT_B: integer(8000, 0),
  RATE_LIMIT_PER_MINUTE: integer(100, 0),
  RATE_LIMIT_PER_HOUR: integer(1000, 0),
  RATE_LIMIT_SET_A: flag(false),
  ENABLE_TESTPREDICT: flag(false),
  // Observability
  PERF_LOG: flag(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

/** The parsed environment, keyed by variable name. */
export type Environment = z.infer<typeof environmentSchema>;

/** Names of every variable docqa reads. */
export const environmentVariableNames = Object.keys(environmentSchema.shape) as (keyof Environment)[];
