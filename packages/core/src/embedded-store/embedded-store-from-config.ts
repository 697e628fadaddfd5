/**
 * The embedded store configured from a {@link DocqaConfig}.
 */
import type { DocqaConfig } from "../config/docqa-config.js";
import type { Logger } from "../logging/logger.js";
import { createEmbeddedStore, type EmbeddedStore } from "./embedded-store.js";

/** Creates the embedded store at `DATA_DIR` with `VECTORDB_COLLECTION`, `BM25_K1` and `BM25_B`. */
export function embeddedStoreFromConfig(config: DocqaConfig, logger: Logger): EmbeddedStore {
  return createEmbeddedStore({
    dataDir: config.dataDir,
    collection: config.vectorDbCollection,
    bm25: { k1: config.bm25K1, b: config.bm25B },
    logger,
  });
}
