/**
 * The Milvus store a docqa configuration describes, and the store backend `milvus` that
 * `@docqa/core`'s `storesFromConfig` looks up by name when `VECTOR_STORE` or `KEYWORD_STORE`
 * resolves to `milvus` (`VECTORDB_URI` set).
 */
import type { DocqaConfig, Logger } from "@docqa/core";
import { milvusSettingsSchema, type ServerVectorStore, type StoreBackend } from "@docqa/core/stores";
import { createMilvusStore, type MilvusStore } from "./milvus-store.js";

/** HNSW efConstruction of new collections (Milvus's documented default range is 8 to 512). */
export const hnswConstruction = 200;

/**
 * Creates the Milvus store of `config`: `VECTORDB_URI`, `VECTORDB_TOKEN`, `VECTORDB_COLLECTION`,
 * `STORE_TIMEOUT_MS`, `BM25_K1`, `BM25_B`, `HNSW_CONNECTIVITY` and `HNSW_EXPANSION_SEARCH`. When
 * a search engine serves BM25 (`KEYWORD_STORE` elasticsearch or opensearch, or `FULLTEXT_URI`
 * set), the store keeps no BM25 (`keywordIndex: false`): Milvus holds vectors only.
 * Connects lazily: never fails because the server is down.
 *
 * @throws {DocqaError} `config_invalid` when `VECTORDB_COLLECTION` is not a valid collection name.
 */
export function milvusStoreFromConfig(config: DocqaConfig, logger: Logger): ServerVectorStore & MilvusStore {
  return createMilvusStore({
    address: config.stores.milvus.uri,
    token: config.stores.milvus.token,
    collection: config.stores.milvus.collection,
    timeoutMs: config.stores.timeoutMs,
    bm25: { k1: config.retrieval.bm25K1, b: config.retrieval.bm25B },
    hnsw: {
      connectivity: config.stores.vectorIndex.hnswConnectivity,
      construction: hnswConstruction,
      expansionSearch: config.stores.vectorIndex.hnswExpansionSearch,
    },
    keywordIndex: config.stores.keyword === "milvus",
    logger,
  });
}

/** The store backend `milvus`: settings `VECTORDB_*` (`stores.milvus`), factory {@link milvusStoreFromConfig}. */
export const storeBackend: StoreBackend = {
  name: "milvus",
  settings: milvusSettingsSchema,
  create: milvusStoreFromConfig,
};
