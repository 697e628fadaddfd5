/**
 * The search-engine index a docqa configuration describes, and the store backend
 * `search-engine` that `@docqa/core`'s `storesFromConfig` looks up by name when `KEYWORD_STORE`
 * resolves to it (`FULLTEXT_URI` set, or `KEYWORD_STORE=elasticsearch|opensearch`). The
 * backend's settings (`FULLTEXT_*`) are its own: core keeps the variables for it and this
 * package parses them.
 */
import { type DocqaConfig, integer, type Logger, optionalInteger, optionalString, setting } from "@docqa/core";
import { type ServerKeywordStore, type StoreBackend, storeBackendSettings } from "@docqa/core/stores";
import { z } from "zod";
import { createSearchEngineIndex, type SearchEngineIndex } from "./search-engine-index.js";

/** The Elasticsearch/OpenSearch settings (documented in `docs/configuration.md`, "Stores"). */
export const searchEngineSettingsSchema = z.object({
  /**
   * `FULLTEXT_URI`, default `http://localhost:9200`: the Elasticsearch/OpenSearch address, or
   * several nodes of one cluster separated by commas; setting it selects the search engine (`auto`).
   */
  uri: setting("FULLTEXT_URI", z.string().default("http://localhost:9200")),
  /** `FULLTEXT_INDEX`, default `docs_bm25`: base full-text index name; an organisation suffix is added. */
  index: setting(
    "FULLTEXT_INDEX",
    z
      .string()
      .regex(/^[a-z0-9_][a-z0-9_-]*$/, "lower-case letters, digits, '_' and '-'")
      .default("docs_bm25"),
  ),
  /** `FULLTEXT_API_KEY`: Elasticsearch API key; default none. */
  apiKey: setting("FULLTEXT_API_KEY", optionalString()),
  /** `FULLTEXT_USERNAME`: basic-auth user; default none. */
  username: setting("FULLTEXT_USERNAME", optionalString()),
  /** `FULLTEXT_PASSWORD`: basic-auth password; default none. */
  password: setting("FULLTEXT_PASSWORD", optionalString()),
  /**
   * `FULLTEXT_SHARDS`, default 1: primary shards of each new index (one organisation's chunks
   * rarely need more; spread a large organisation over the nodes of a cluster with more).
   */
  shards: setting("FULLTEXT_SHARDS", integer(1, 1)),
  /**
   * `FULLTEXT_REPLICAS`: replica copies of each shard of new indexes; default the engine's (1).
   * With at least one replica, a cluster that loses a node serves every query and keeps every
   * acknowledged write (docs/deployment.md); on a single node, 0 keeps the cluster green.
   */
  replicas: setting("FULLTEXT_REPLICAS", optionalInteger(0)),
});

/** The parsed search-engine settings. */
export type SearchEngineSettings = z.output<typeof searchEngineSettingsSchema>;

/**
 * Which client speaks to `FULLTEXT_URI`: the engine `KEYWORD_STORE` names (`elasticsearch` or
 * `opensearch`, kept as chosen in `config.stores.keyword`); otherwise `auto`, and the engine's
 * `GET /` answer decides.
 */
export function searchEngineOf(config: DocqaConfig): "auto" | "elasticsearch" | "opensearch" {
  const chosen = config.stores.keyword;
  return chosen === "elasticsearch" || chosen === "opensearch" ? chosen : "auto";
}

/**
 * The Elasticsearch/OpenSearch keyword index and registry of a configuration: `FULLTEXT_URI`,
 * `FULLTEXT_INDEX`, `KEYWORD_STORE` (engine), `FULLTEXT_API_KEY` or `FULLTEXT_USERNAME` and
 * `FULLTEXT_PASSWORD`, `FULLTEXT_SHARDS`, `FULLTEXT_REPLICAS`, `STORE_TIMEOUT_MS`, `BM25_K1` and
 * `BM25_B`. Connects lazily.
 *
 * @param settings - the search-engine settings; default those of `config` (`storeBackendSettings`).
 * @throws {DocqaError} `config_invalid` when `FULLTEXT_INDEX` is not a valid index base name, or a
 *   `FULLTEXT_*` variable is invalid.
 */
export function searchEngineIndexFromConfig(
  config: DocqaConfig,
  logger: Logger,
  settings: SearchEngineSettings = storeBackendSettings(storeBackend.name, storeBackend, config),
): ServerKeywordStore & SearchEngineIndex {
  return createSearchEngineIndex({
    node: settings.uri,
    engine: searchEngineOf(config),
    indexBase: settings.index,
    apiKey: settings.apiKey,
    username: settings.username,
    password: settings.password,
    shards: settings.shards,
    replicas: settings.replicas,
    requestTimeoutMs: config.stores.timeoutMs,
    k1: config.retrieval.bm25K1,
    b: config.retrieval.bm25B,
    logger,
  });
}

/** The store backend `search-engine`: settings `FULLTEXT_*` ({@link searchEngineSettingsSchema}), factory {@link searchEngineIndexFromConfig}. */
export const storeBackend: StoreBackend<SearchEngineSettings> = {
  name: "search-engine",
  settings: searchEngineSettingsSchema,
  create: searchEngineIndexFromConfig,
};
