/**
 * The search-engine index a docqa configuration describes, and the store backend
 * `search-engine` that `@docqa/core`'s `storesFromConfig` looks up by name when `KEYWORD_STORE`
 * resolves to it (`FULLTEXT_URI` set, or `KEYWORD_STORE=elasticsearch|opensearch`).
 */
import type { DocqaConfig, Logger } from "@docqa/core";
import { type ServerKeywordStore, type StoreBackend, searchEngineSettingsSchema } from "@docqa/core/stores";
import { createSearchEngineIndex, type SearchEngineIndex } from "./search-engine-index.js";

/**
 * The Elasticsearch/OpenSearch keyword index and registry of a configuration: `FULLTEXT_URI`,
 * `FULLTEXT_INDEX`, `KEYWORD_STORE` (engine), `FULLTEXT_API_KEY` or `FULLTEXT_USERNAME` and
 * `FULLTEXT_PASSWORD`, `FULLTEXT_SHARDS`, `FULLTEXT_REPLICAS`, `STORE_TIMEOUT_MS`, `BM25_K1` and
 * `BM25_B`. Connects lazily.
 *
 * @throws {DocqaError} `config_invalid` when `FULLTEXT_INDEX` is not a valid index base name.
 */
export function searchEngineIndexFromConfig(config: DocqaConfig, logger: Logger): ServerKeywordStore & SearchEngineIndex {
  return createSearchEngineIndex({
    node: config.stores.searchEngine.uri,
    engine: config.stores.searchEngine.engine,
    indexBase: config.stores.searchEngine.index,
    apiKey: config.stores.searchEngine.apiKey,
    username: config.stores.searchEngine.username,
    password: config.stores.searchEngine.password,
    shards: config.stores.searchEngine.shards,
    replicas: config.stores.searchEngine.replicas,
    requestTimeoutMs: config.stores.timeoutMs,
    k1: config.retrieval.bm25K1,
    b: config.retrieval.bm25B,
    logger,
  });
}

/** The store backend `search-engine`: settings `FULLTEXT_*` (`stores.searchEngine`), factory {@link searchEngineIndexFromConfig}. */
export const storeBackend: StoreBackend = {
  name: "search-engine",
  settings: searchEngineSettingsSchema,
  create: searchEngineIndexFromConfig,
};
