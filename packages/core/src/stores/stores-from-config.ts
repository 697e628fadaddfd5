/**
 * The stores a configuration selects: the embedded store (default), or server engines whose
 * packages are loaded on demand, so that `@docqa/core` does not depend on their clients:
 *
 * | Configuration | Vector index | Keyword index and registry | Package |
 * |---|---|---|---|
 * | neither `VECTORDB_URI` nor `FULLTEXT_URI` | embedded | embedded | `@docqa/core` |
 * | `VECTORDB_URI` only | Milvus | Milvus (BM25 function) | `@docqa/milvus` |
 * | both | Milvus | Elasticsearch or OpenSearch | `@docqa/milvus`, `@docqa/elasticsearch` |
 * | `FULLTEXT_URI` and `VECTOR_STORE=none` | none | Elasticsearch or OpenSearch | `@docqa/elasticsearch` |
 */
import type { DocqaConfig } from "../config/config-schema.js";
import { embeddedStoreFromConfig } from "../embedded-store/embedded-store-from-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { type DocumentStores, stagedDocumentStores, transactionalDocumentStores } from "./document-stores.js";
import { loadStoreBackend, type ServerKeywordStore, type ServerVectorStore, storeBackendSettings } from "./store-backend.js";
import { storeBackendNamed } from "./store-backend-packages.js";
import type { VectorIndex } from "./vector-index.js";

/** Whether `config` selects the embedded store (for both indexes). */
export function usesEmbeddedStore(config: DocqaConfig): boolean {
  return config.stores.vector === "embedded" && config.stores.keyword === "embedded";
}

/**
 * Creates the stores `config` selects: the embedded store, or the server backends named by
 * `config.stores.vector` and `config.stores.keyword` (a name or an alias; one store when both
 * name the same backend), looked up with `loadStoreBackend`, each given its own settings
 * (`storeBackendSettings`). Server clients connect lazily, so this does not
 * fail when a server is down.
 *
 * @param options.inMemoryIndexes - for the embedded store: false opens it for writing only
 *   (ingestion worker threads, see `createEmbeddedStore`); default true.
 * @throws {DocqaError} `config_invalid` when a selected backend's package is not installed, or
 *   its own settings are invalid (`storeBackendSettings`, naming the variables).
 */
export async function storesFromConfig(
  config: DocqaConfig,
  logger: Logger,
  options: { inMemoryIndexes?: boolean } = {},
): Promise<DocumentStores> {
  if (usesEmbeddedStore(config)) {
    return transactionalDocumentStores(embeddedStoreFromConfig(config, logger, options));
  }
  const created = new Map<string, ServerKeywordStore & Partial<VectorIndex>>();
  const backendOf = (choice: string) => storeBackendNamed(choice) ?? choice;
  for (const choice of [config.stores.vector, config.stores.keyword]) {
    const name = backendOf(choice);
    if (name === "none" || name === "embedded" || created.has(name)) continue;
    const backend = await loadStoreBackend(name);
    created.set(name, backend.create(config, logger, storeBackendSettings(name, backend, config)));
  }
  const keyword = created.get(backendOf(config.stores.keyword));
  if (!keyword) {
    throw new DocqaError("config_invalid", `no keyword store for KEYWORD_STORE=${config.stores.keyword}`, { component: "config" });
  }
  return stagedDocumentStores({
    vector: created.get(backendOf(config.stores.vector)) as ServerVectorStore | undefined,
    keyword,
    registry: keyword,
    logger,
  });
}
