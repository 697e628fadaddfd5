/**
 * The embedded store configured from a {@link DocqaConfig}.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { Logger } from "../logging/logger.js";
import { createEmbeddedStore, type EmbeddedStore } from "./embedded-store.js";

/**
 * Creates the embedded store at `DATA_DIR` with `VECTORDB_COLLECTION`, `BM25_K1`, `BM25_B`, `VECTOR_INDEX` and `HNSW_*`.
 *
 * @param options.inMemoryIndexes - false for a store that only writes (ingestion worker threads); default true.
 */
export function embeddedStoreFromConfig(config: DocqaConfig, logger: Logger, options: { inMemoryIndexes?: boolean } = {}): EmbeddedStore {
  return createEmbeddedStore({
    inMemoryIndexes: options.inMemoryIndexes,
    dataDir: config.stores.dataDir,
    collection: config.stores.milvus.collection,
    bm25: { k1: config.retrieval.bm25K1, b: config.retrieval.bm25B },
    vectorIndex: {
      mode: config.stores.vectorIndex.mode,
      minVectors: config.stores.vectorIndex.hnswMinVectors,
      hnsw: { connectivity: config.stores.vectorIndex.hnswConnectivity, expansionSearch: config.stores.vectorIndex.hnswExpansionSearch },
    },
    logger,
  });
}
