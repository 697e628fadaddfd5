/**
 * The embedded store configured from a {@link DocqaConfig}.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { Logger } from "../logging/logger.js";
import { createEmbeddedStore, type EmbeddedStore } from "./embedded-store.js";

/**
 * Most organisation files a write-only store (one per ingestion worker thread) keeps open: a
 * thread runs one task at a time, so a few cover the organisations it writes in turn while its
 * descriptors (3 a file) stay few beside the serving thread's `MAX_OPEN_ORGANISATIONS`.
 */
export const writeOnlyOpenOrganisations = 4;

/**
 * Creates the embedded store at `DATA_DIR` with `VECTORDB_COLLECTION`, `BM25_K1`, `BM25_B`,
 * `VECTOR_INDEX`, `HNSW_*` and `MAX_OPEN_ORGANISATIONS`.
 *
 * @param options.inMemoryIndexes - false for a store that only writes (ingestion worker threads);
 *   default true. Such a store keeps at most {@link writeOnlyOpenOrganisations} files open (fewer
 *   when `MAX_OPEN_ORGANISATIONS` is lower): each worker thread has its own connections, and
 *   reopening a file costs no index build there.
 */
export function embeddedStoreFromConfig(config: DocqaConfig, logger: Logger, options: { inMemoryIndexes?: boolean } = {}): EmbeddedStore {
  return createEmbeddedStore({
    inMemoryIndexes: options.inMemoryIndexes,
    dataDir: config.stores.dataDir,
    collection: config.stores.collection,
    bm25: { k1: config.retrieval.bm25K1, b: config.retrieval.bm25B },
    vectorIndex: {
      mode: config.stores.vectorIndex.mode,
      minVectors: config.stores.vectorIndex.hnswMinVectors,
      hnsw: { connectivity: config.stores.vectorIndex.hnswConnectivity, expansionSearch: config.stores.vectorIndex.hnswExpansionSearch },
    },
    maxOpenOrganisations:
      options.inMemoryIndexes === false
        ? Math.min(writeOnlyOpenOrganisations, config.stores.maxOpenOrganisations)
        : config.stores.maxOpenOrganisations,
    logger,
  });
}
