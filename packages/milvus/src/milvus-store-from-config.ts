/**
 * The Milvus store a docqa configuration describes, and the store backend `milvus` that
 * `@docqa/core`'s `storesFromConfig` looks up by name when `VECTOR_STORE` or `KEYWORD_STORE`
 * resolves to `milvus` (`VECTORDB_URI` set). The backend's settings (`VECTORDB_*`) are its own:
 * core keeps the variables for it and this package parses them.
 */
import { type DocqaConfig, type Logger, optionalString, setting } from "@docqa/core";
import { defaultHnswExpansionSearch, type ServerVectorStore, type StoreBackend, storeBackendSettings } from "@docqa/core/stores";
import { z } from "zod";
import { createMilvusStore, type MilvusStore } from "./milvus-store.js";

/** HNSW efConstruction of new collections (Milvus's documented default range is 8 to 512). */
export const hnswConstruction = 200;

/**
 * The Milvus settings (documented in `docs/configuration.md`, "Stores"). `VECTORDB_COLLECTION`,
 * the base collection name, is core's (`config.stores.collection`): it names the embedded store's
 * files too.
 */
export const milvusSettingsSchema = z.object({
  /** `VECTORDB_URI`, default `http://localhost:19530`: the Milvus address; setting it selects Milvus (`auto`). */
  uri: setting("VECTORDB_URI", z.string().default("http://localhost:19530")),
  /** `VECTORDB_TOKEN`: Milvus token (`user:password` or an API key); default none. */
  token: setting("VECTORDB_TOKEN", optionalString()),
});

/** The parsed Milvus settings. */
export type MilvusSettings = z.output<typeof milvusSettingsSchema>;

/**
 * Creates the Milvus store of `config`: `VECTORDB_URI`, `VECTORDB_TOKEN`, `VECTORDB_COLLECTION`,
 * `STORE_TIMEOUT_MS`, `BM25_K1`, `BM25_B`, `HNSW_CONNECTIVITY` and `HNSW_EXPANSION_SEARCH`. When
 * a search engine serves BM25 (`KEYWORD_STORE` elasticsearch or opensearch, or `FULLTEXT_URI`
 * set), the store keeps no BM25 (`keywordIndex: false`): Milvus holds vectors only.
 * Connects lazily: never fails because the server is down.
 *
 * @param settings - the Milvus settings; default those of `config` (`storeBackendSettings`).
 * @throws {DocqaError} `config_invalid` when `VECTORDB_COLLECTION` is not a valid collection
 *   name, or a `VECTORDB_*` variable is invalid.
 */
export function milvusStoreFromConfig(
  config: DocqaConfig,
  logger: Logger,
  settings: MilvusSettings = storeBackendSettings(storeBackend.name, storeBackend, config),
): ServerVectorStore & MilvusStore {
  return createMilvusStore({
    address: settings.uri,
    token: settings.token,
    collection: config.stores.collection,
    timeoutMs: config.stores.timeoutMs,
    bm25: { k1: config.retrieval.bm25K1, b: config.retrieval.bm25B },
    hnsw: {
      connectivity: config.stores.vectorIndex.hnswConnectivity,
      construction: hnswConstruction,
      expansionSearch: config.stores.vectorIndex.hnswExpansionSearch ?? defaultHnswExpansionSearch,
    },
    keywordIndex: config.stores.keyword === "milvus",
    logger,
  });
}

/** The store backend `milvus`: settings `VECTORDB_*` ({@link milvusSettingsSchema}), factory {@link milvusStoreFromConfig}. */
export const storeBackend: StoreBackend<MilvusSettings> = {
  name: "milvus",
  settings: milvusSettingsSchema,
  create: milvusStoreFromConfig,
};
