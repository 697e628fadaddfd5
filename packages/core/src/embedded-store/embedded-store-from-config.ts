/**
 * The embedded store configured from a {@link DocqaConfig}.
 */
import type { DocqaConfig } from "../config/docqa-config.js";
import type { Logger } from "../logging/logger.js";
import { createEmbeddedStore, type EmbeddedStore } from "./embedded-store.js";

/** Creates the embedded store at `DATA_DIR` with `VECTORDB_COLLECTION`, `BM25_K1`, `BM25_B`, `VECTOR_INDEX` and `HNSW_*`. */
export function embeddedStoreFromConfig(config: DocqaConfig, logger: Logger): EmbeddedStore {
  return createEmbeddedStore({
    dataDir: config.dataDir,
    collection: config.vectorDbCollection,
    bm25: { k1: config.bm25K1, b: config.bm25B },
    vectorIndex: {
      mode: config.vectorIndex,
      minVectors: config.hnswMinVectors,
      hnsw: { connectivity: config.hnswConnectivity, expansionSearch: config.hnswExpansionSearch },
    },
    logger,
  });
}
