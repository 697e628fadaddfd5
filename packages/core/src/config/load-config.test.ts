import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { configSchema, type DocqaConfig } from "./config-schema.js";
import { loadConfig, resolveConfig, settingsOf } from "./load-config.js";

const environmentVariableNames = settingsOf(configSchema).map((location) => location.env);

interface Row {
  variable: string;
  field: (config: DocqaConfig) => unknown;
  /** The spec's set A default. */
  defaultValue: unknown;
  /** A different valid value, to show the variable feeds this field. */
  set: string;
  parsed: unknown;
  /** Variables the set value needs beside it to be a valid configuration. */
  companions?: Record<string, string>;
}

/**
 * The spec's "Configuration defaults (set A)" table, with the camelCase field each variable feeds;
 * the rows of the server backends' own settings (`VECTORDB_URI`, `FULLTEXT_URI`, `FULLTEXT_INDEX`)
 * are checked in their packages (`milvus-store-from-config.test.ts`, `search-engine-index-from-config.test.ts`).
 */
const setA: Row[] = [
  { variable: "VECTORDB_COLLECTION", field: (c) => c.stores.collection, defaultValue: "docs_collection", set: "kb", parsed: "kb" },
  { variable: "RAG_LLM_PROVIDER", field: (c) => c.models.provider, defaultValue: "openai", set: "ollama", parsed: "ollama" },
  { variable: "RAG_LLM_TEMP", field: (c) => c.models.temperature, defaultValue: 0, set: "0.7", parsed: 0.7 },
  { variable: "RAG_LLM_TOP_P", field: (c) => c.models.topP, defaultValue: 0.2, set: "0.9", parsed: 0.9 },
  { variable: "VECTOR_RETRIEVER_TOP_K", field: (c) => c.retrieval.vectorTopK, defaultValue: 8, set: "11", parsed: 11 },
  { variable: "BM25_RETRIEVER_TOP_K", field: (c) => c.retrieval.bm25TopK, defaultValue: 8, set: "12", parsed: 12 },
  { variable: "RETRIEVER_TOP_K", field: (c) => c.retrieval.retrieverTopK, defaultValue: 5, set: "3", parsed: 3 },
  { variable: "WEIGHT_VECTOR", field: (c) => c.retrieval.weightVector, defaultValue: 0.5, set: "0.25", parsed: 0.25 },
  { variable: "WEIGHT_BM25", field: (c) => c.retrieval.weightBm25, defaultValue: 0.5, set: "0.75", parsed: 0.75 },
  { variable: "USE_RERANKER", field: (c) => c.retrieval.useReranker, defaultValue: false, set: "true", parsed: true },
  { variable: "RERANK_TOP_K", field: (c) => c.retrieval.rerankTopK, defaultValue: 5, set: "7", parsed: 7 },
  { variable: "RERANKER_SCORE_THRESHOLD", field: (c) => c.retrieval.rerankerScoreThreshold, defaultValue: 0.5, set: "0.1", parsed: 0.1 },
  {
    variable: "SKIP_LLM_ON_EMPTY_CONTEXT",
    field: (c) => c.answering.skipModelOnEmptyContext,
    defaultValue: true,
    set: "false",
    parsed: false,
  },
  { variable: "USE_QUERY_DECOMPOSITION", field: (c) => c.retrieval.useQueryDecomposition, defaultValue: true, set: "false", parsed: false },
  { variable: "QUERY_DECOMPOSITION_N", field: (c) => c.retrieval.queryDecompositionN, defaultValue: 5, set: "2", parsed: 2 },
  { variable: "SUBQUERY_TOP_K", field: (c) => c.retrieval.subqueryTopK, defaultValue: 5, set: "4", parsed: 4 },
  {
    variable: "SUBQUERY_REASONING_ENABLED",
    field: (c) => c.answering.subqueryReasoningEnabled,
    defaultValue: true,
    set: "false",
    parsed: false,
  },
  { variable: "CACHE_PORT", field: (c) => c.memory.cache.port, defaultValue: 6379, set: "6380", parsed: 6380 },
  { variable: "CACHE_DB", field: (c) => c.memory.cache.db, defaultValue: 0, set: "3", parsed: 3 },
  { variable: "CACHE_SSL", field: (c) => c.memory.cache.ssl, defaultValue: false, set: "true", parsed: true },
  { variable: "CHUNK_SIZE", field: (c) => c.ingestion.chunkSize, defaultValue: 1000, set: "800", parsed: 800 },
  { variable: "CHUNK_OVERLAP", field: (c) => c.ingestion.chunkOverlap, defaultValue: 150, set: "100", parsed: 100 },
  { variable: "USE_SEMANTIC_SPLIT", field: (c) => c.ingestion.useSemanticSplit, defaultValue: false, set: "true", parsed: true },
  { variable: "USE_RAPTOR", field: (c) => c.ingestion.useRaptor, defaultValue: true, set: "false", parsed: false },
  { variable: "EMBED_DIMENSION", field: (c) => c.embeddings.dimension, defaultValue: 768, set: "384", parsed: 384 },
  { variable: "PERF_LOG", field: (c) => c.logging.perfLog, defaultValue: false, set: "true", parsed: true },
  { variable: "LOCALLLM_NUM_PREDICT", field: (c) => c.models.numPredict, defaultValue: undefined, set: "256", parsed: 256 },
  { variable: "LOCALLLM_NUM_CTX", field: (c) => c.models.numCtx, defaultValue: undefined, set: "8192", parsed: 8192 },
  { variable: "SESSION_TIMEOUT", field: (c) => c.memory.sessionTimeoutSeconds, defaultValue: 600, set: "60", parsed: 60 },
  { variable: "THREAD_TIMEOUT", field: (c) => c.memory.threadTimeoutSeconds, defaultValue: 300, set: "30", parsed: 30 },
  { variable: "MAX_SESSION_TOKENS", field: (c) => c.memory.maxSessionTokens, defaultValue: 500, set: "1000", parsed: 1000 },
  { variable: "MAX_RETRIEVAL_THREADS", field: (c) => c.retrieval.maxRetrievalThreads, defaultValue: 10, set: "4", parsed: 4 },
  { variable: "MAX_INGESTION_THREADS", field: (c) => c.ingestion.maxIngestionThreads, defaultValue: 10, set: "2", parsed: 2 },
];

/** Runs `action`, expecting it to throw a DocqaError, and returns that error. */
function captureError(action: () => unknown): DocqaError {
  try {
    action();
  } catch (error) {
    if (DocqaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a DocqaError, but nothing was thrown");
}

describe("loadConfig defaults (spec set A)", () => {
  it("knows every set A variable", () => {
    const known = new Set<string>(environmentVariableNames);
    expect(setA.map((row) => row.variable).filter((name) => !known.has(name))).toEqual([]);
  });

  it.each(setA)("$variable defaults to $defaultValue with an empty environment", ({ field, defaultValue }) => {
    expect(field(loadConfig({}))).toBe(defaultValue);
  });

  it.each(setA)(
    "$variable=$set sets its field and leaves the other set A fields at their defaults",
    ({ variable, field, set, parsed, companions }) => {
      const config = loadConfig({ [variable]: set, ...companions });
      expect(field(config)).toBe(parsed);
      for (const other of setA) {
        if (other.variable !== variable) expect(other.field(config), other.variable).toBe(other.defaultValue);
      }
    },
  );

  it("refuses FULLTEXT_URI alone, naming the combinations that work", () => {
    const error = captureError(() => loadConfig({ FULLTEXT_URI: "http://search:9200" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toMatch(/VECTORDB_URI/);
    expect(error.message).toMatch(/VECTOR_STORE=none/);
  });

  it("selects the embedded vector store when VECTORDB_URI is unset, and Milvus when it is set", () => {
    expect(loadConfig({}).stores.vector).toBe("embedded");
    expect(loadConfig({ VECTORDB_URI: "http://milvus:19530" }).stores.vector).toBe("milvus");
  });

  it("ignores variables it does not know", () => {
    expect(loadConfig({ SOMETHING_ELSE: "x", PATH: "/bin" })).toEqual(loadConfig({}));
  });

  it("resolveConfig with no overrides equals loadConfig({})", () => {
    expect(resolveConfig()).toEqual(loadConfig({}));
  });

  it("resolveConfig merges nested overrides with the defaults", () => {
    const config = resolveConfig({ memory: { cache: { port: 7000 } }, ingestion: { chunkSize: 2000 } });
    expect(config.ingestion.chunkSize).toBe(2000);
    expect(config.ingestion.chunkOverlap).toBe(150);
    expect(config.memory.cache.port).toBe(7000);
    expect(config.memory.cache.db).toBe(0);
  });

  it("resolveConfig applies overrides to a base configuration, and a resolved configuration resolves to itself", () => {
    const base = loadConfig({ VECTORDB_URI: "http://milvus:19530", CHUNK_SIZE: "800" });
    const config = resolveConfig({ retrieval: { bm25TopK: 50 } }, base);
    expect([config.stores.vector, config.ingestion.chunkSize, config.retrieval.bm25TopK]).toEqual(["milvus", 800, 50]);
    expect(resolveConfig({}, base)).toEqual(base);
  });

  it("resolveConfig runs the same checks as loadConfig, naming settings by path", () => {
    const overlap = captureError(() => resolveConfig({ ingestion: { chunkSize: 200, chunkOverlap: 300 } }));
    expect(overlap.message).toContain("CHUNK_OVERLAP (300) must be smaller than CHUNK_SIZE (200)");
    const invalid = captureError(() => resolveConfig({ retrieval: { retrieverTopK: 0 } }));
    expect(invalid.code).toBe("config_invalid");
    expect(invalid.message).toContain("retrieval.retrieverTopK");
  });
});

describe("loadConfig parsing", () => {
  it.each(["", "   ", "\t"])("treats %j as unset", (blank) => {
    const config = loadConfig({ CHUNK_SIZE: blank, USE_RERANKER: blank, RAG_LLM_PROVIDER: blank, VECTORDB_URI: blank });
    expect(config.ingestion.chunkSize).toBe(1000);
    expect(config.retrieval.useReranker).toBe(false);
    expect(config.models.provider).toBe("openai");
    expect(config.stores.vector).toBe("embedded");
    expect(config.stores.backendVariables).toEqual({});
  });

  it("trims surrounding whitespace from values", () => {
    expect(loadConfig({ CHUNK_SIZE: " 800 " }).ingestion.chunkSize).toBe(800);
    expect(loadConfig({ RAG_LLM_PROVIDER: " ollama\n" }).models.provider).toBe("ollama");
  });

  it.each([
    ["true", true],
    ["false", false],
    ["1", true],
    ["0", false],
    ["yes", true],
    ["no", false],
    ["TRUE", true],
    ["No", false],
  ])("reads the boolean %j as %s", (value, expected) => {
    expect(loadConfig({ USE_RERANKER: value }).retrieval.useReranker).toBe(expected);
    expect(loadConfig({ USE_RAPTOR: value }).ingestion.useRaptor).toBe(expected);
  });
});

describe("loadConfig validation", () => {
  it.each([
    ["CHUNK_SIZE", "big"],
    ["CHUNK_SIZE", "12.5"],
    ["USE_RERANKER", "maybe"],
    ["RAG_LLM_PROVIDER", "foo"],
    ["RETRIEVER_TOP_K", "0"],
    ["RAG_LLM_TOP_P", "1.5"],
    ["CACHE_PORT", "-1"],
    ["VECTORDB_COLLECTION", "9bad-name"],
    ["LOCALLLM_NUM_CTX", "0"],
  ])("rejects %s=%j with config_invalid naming the variable", (variable, value) => {
    const error = captureError(() => loadConfig({ [variable]: value }));
    expect(error).toBeInstanceOf(DocqaError);
    expect(error.code).toBe("config_invalid");
    expect(error.component).toBe("config");
    expect(error.message).toContain(`${variable}=${JSON.stringify(value)}`);
    expect(error.details).toEqual([expect.stringContaining(`${variable}=`)]);
  });

  it("names every invalid variable in one error", () => {
    const error = captureError(() => loadConfig({ CHUNK_SIZE: "big", USE_RERANKER: "maybe" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain('CHUNK_SIZE="big"');
    expect(error.message).toContain('USE_RERANKER="maybe"');
    expect(error.details).toHaveLength(2);
  });

  it("rejects CHUNK_OVERLAP equal to CHUNK_SIZE", () => {
    const error = captureError(() => loadConfig({ CHUNK_OVERLAP: "1000" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toBe("[docqa] [config] invalid configuration: CHUNK_OVERLAP (1000) must be smaller than CHUNK_SIZE (1000)");
  });

  it("rejects CHUNK_OVERLAP larger than CHUNK_SIZE", () => {
    const error = captureError(() => loadConfig({ CHUNK_SIZE: "200", CHUNK_OVERLAP: "300" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("CHUNK_OVERLAP (300)");
    expect(error.message).toContain("CHUNK_SIZE (200)");
  });

  it("accepts CHUNK_OVERLAP one below CHUNK_SIZE", () => {
    const config = loadConfig({ CHUNK_SIZE: "200", CHUNK_OVERLAP: "199" });
    expect([config.ingestion.chunkSize, config.ingestion.chunkOverlap]).toEqual([200, 199]);
  });

  it("rejects WEIGHT_VECTOR and WEIGHT_BM25 both 0", () => {
    const error = captureError(() => loadConfig({ WEIGHT_VECTOR: "0", WEIGHT_BM25: "0" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("WEIGHT_VECTOR");
    expect(error.message).toContain("WEIGHT_BM25");
  });

  it("keeps the validation error as the cause", () => {
    const error = captureError(() => loadConfig({ CHUNK_SIZE: "big" }));
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe("model provider settings", () => {
  it("defaults and parses DENSE_CACHE_ENTRIES and DENSE_CACHE_MAX_MB, refusing an entry bound the LRU cannot allocate", () => {
    const defaults = loadConfig({});
    expect([defaults.answering.denseCacheEntries, defaults.answering.denseCacheMaxMegabytes]).toEqual([20_000, 64]);
    const off = loadConfig({ DENSE_CACHE_ENTRIES: "0", DENSE_CACHE_MAX_MB: "8" });
    expect([off.answering.denseCacheEntries, off.answering.denseCacheMaxMegabytes]).toEqual([0, 8]);
    expect(captureError(() => loadConfig({ DENSE_CACHE_ENTRIES: "20000000" })).message).toContain("DENSE_CACHE_ENTRIES");
  });

  it("defaults and parses RAG_LLM_TIMEOUT_MS, RAG_LLM_MAX_RETRIES and RAG_LLM_STRUCTURED_OUTPUT", () => {
    const defaults = loadConfig({});
    expect([defaults.models.timeoutMs, defaults.models.maxRetries, defaults.models.structuredOutput]).toEqual([60_000, 2, "auto"]);
    const set = loadConfig({ RAG_LLM_TIMEOUT_MS: "5000", RAG_LLM_MAX_RETRIES: "0", RAG_LLM_STRUCTURED_OUTPUT: "json_mode" });
    expect([set.models.timeoutMs, set.models.maxRetries, set.models.structuredOutput]).toEqual([5_000, 0, "json_mode"]);
  });

  it("defaults and parses the in-process model's settings (RAG_LLM_PROVIDER=llama-cpp)", () => {
    const defaults = loadConfig({});
    expect([
      defaults.models.localModelPath,
      defaults.models.localThreads,
      defaults.models.localSequences,
      defaults.models.localQueueSize,
    ]).toEqual([undefined, undefined, 2, 16]);
    const set = loadConfig({
      RAG_LLM_PROVIDER: "llama-cpp",
      LOCALLLM_MODEL_PATH: "/models/qwen.gguf",
      LOCALLLM_THREADS: "4",
      LOCALLLM_SEQUENCES: "1",
      LOCALLLM_QUEUE_SIZE: "0",
    });
    expect([
      set.models.provider,
      set.models.localModelPath,
      set.models.localThreads,
      set.models.localSequences,
      set.models.localQueueSize,
    ]).toEqual(["llama-cpp", "/models/qwen.gguf", 4, 1, 0]);
  });

  it("refuses RAG_LLM_PROVIDER=llama-cpp without LOCALLLM_MODEL_PATH, saying how to get a model", () => {
    const error = captureError(() => loadConfig({ RAG_LLM_PROVIDER: "llama-cpp" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("RAG_LLM_PROVIDER=llama-cpp needs LOCALLLM_MODEL_PATH set to a GGUF file (`docqa models pull`");
  });

  it.each([
    ["LOCALLLM_SEQUENCES", "0"],
    ["LOCALLLM_QUEUE_SIZE", "-1"],
    ["LOCALLLM_THREADS", "0"],
    ["RAG_LLM_TIMEOUT_MS", "0"],
    ["RAG_LLM_MAX_RETRIES", "-1"],
    ["RAG_LLM_STRUCTURED_OUTPUT", "tools"],
    ["EMBED_PROVIDER", "cohere"],
  ])("rejects %s=%j", (variable, value) => {
    expect(captureError(() => loadConfig({ [variable]: value })).message).toContain(`${variable}=${JSON.stringify(value)}`);
  });

  it.each(["openai", "ollama"])("EMBED_PROVIDER=%s needs EMBED_MODEL_NAME set explicitly", (provider) => {
    const error = captureError(() => loadConfig({ EMBED_PROVIDER: provider }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(`EMBED_PROVIDER=${provider} needs EMBED_MODEL_NAME`);
    expect(captureError(() => resolveConfig({ embeddings: { provider: provider as "openai" | "ollama" } })).code).toBe("config_invalid");
    const config = loadConfig({ EMBED_PROVIDER: provider, EMBED_MODEL_NAME: "nomic-embed-text" });
    expect([config.embeddings.provider, config.embeddings.modelName]).toEqual([provider, "nomic-embed-text"]);
  });
});
