/**
 * Picks the client for `FULLTEXT_URI`: the one `KEYWORD_STORE` names, or, with `auto`, the one
 * the server's `GET /` answer calls for (`version.distribution` is `opensearch` on OpenSearch and
 * absent on Elasticsearch).
 */
import { DocqaError } from "@docqa/core";
import { createElasticsearchClient } from "./elasticsearch-client.js";
import { createOpenSearchClient } from "./opensearch-client.js";
import type { SearchEngine, SearchEngineClient, SearchEngineConnectionSettings } from "./search-engine-client.js";

/** Which engine to use: a given one, or `auto` (ask the server). */
export type SearchEngineChoice = "auto" | SearchEngine;

/** What a server says about itself in `GET /`. */
export interface SearchEngineInfo {
  engine: SearchEngine;
  /** `version.number`, for example `2.19.1`; `unknown` when absent. */
  version: string;
}

/** Constructors of the two clients; replaceable in tests. */
export interface SearchEngineClientFactories {
  elasticsearch(settings: SearchEngineConnectionSettings): SearchEngineClient;
  opensearch(settings: SearchEngineConnectionSettings): SearchEngineClient;
}

const defaultFactories: SearchEngineClientFactories = { elasticsearch: createElasticsearchClient, opensearch: createOpenSearchClient };

/**
 * Reads the engine and version from a `GET /` body: OpenSearch sets
 * `version.distribution: "opensearch"`; Elasticsearch has no `distribution` (and sends
 * `tagline: "You Know, for Search"`).
 *
 * @throws {DocqaError} `store_unavailable` when the body is not a cluster's `GET /` answer.
 */
export function searchEngineInfo(body: unknown): SearchEngineInfo {
  const version = (typeof body === "object" && body !== null ? (body as { version?: unknown }).version : undefined) as
    | { distribution?: unknown; number?: unknown }
    | undefined;
  if (typeof version !== "object" || version === null) {
    throw new DocqaError("store_unavailable", "FULLTEXT_URI does not answer GET / like Elasticsearch or OpenSearch (no version)", {
      component: "search-engine",
    });
  }
  return {
    engine: version.distribution === "opensearch" ? "opensearch" : "elasticsearch",
    version: typeof version.number === "string" ? version.number : "unknown",
  };
}

/**
 * The client for `settings.engine`. With `auto`, asks the server with the OpenSearch client
 * (which, unlike Elasticsearch's, talks to both) and keeps it for OpenSearch, or replaces it with
 * an Elasticsearch client.
 *
 * @throws {DocqaError} `store_unavailable` when detection cannot reach the server.
 */
export async function connectSearchEngine(
  settings: SearchEngineConnectionSettings & { engine: SearchEngineChoice },
  factories: SearchEngineClientFactories = defaultFactories,
): Promise<SearchEngineClient> {
  if (settings.engine !== "auto") return factories[settings.engine](settings);
  const probe = factories.opensearch(settings);
  let info: SearchEngineInfo;
  try {
    info = searchEngineInfo((await probe.request({ method: "GET", path: "/" })).body);
  } catch (error) {
    await probe.close().catch(() => undefined);
    const reason = DocqaError.isInstance(error) ? error.publicMessage : String(error);
    throw new DocqaError("store_unavailable", `cannot detect the engine at FULLTEXT_URI (KEYWORD_STORE=auto): ${reason}`, {
      component: "search-engine",
      cause: error,
    });
  }
  if (info.engine === "opensearch") return probe;
  await probe.close();
  return factories.elasticsearch(settings);
}
