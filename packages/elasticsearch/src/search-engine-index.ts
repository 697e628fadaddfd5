/**
 * The keyword index and document registry on Elasticsearch or OpenSearch: per-organisation BM25
 * chunk indexes with ACL pre-filtering, written with the staged protocol of `@docqa/core`
 * (`write` → registry `commit` → `prune`), and a per-organisation registry index of committed
 * document versions. See the package README for the index layout.
 *
 * This file holds the connection and the chunk index's own work (count, search, write, prune);
 * it composes the index lifecycle (`index-lifecycle.ts`), bulk sending (`send-bulk.ts`) and the
 * registry (`search-engine-registry.ts`).
 */
import { DocqaError, type Logger, silentLogger } from "@docqa/core";
import type {
  ChunkRecord,
  CountOptions,
  DocumentVersion,
  ScoredChunk,
  SearchOptions,
  ServerKeywordStore,
  SweepableIndex,
} from "@docqa/core/stores";
import {
  type BulkLimits,
  type BulkOperation,
  chunkDocumentId,
  chunkFromSource,
  defaultBulkLimits,
  storedChunk,
} from "./chunk-documents.js";
import { clusterHealth, clusterHealthFields } from "./cluster-health.js";
import { connectSearchEngine, type SearchEngineChoice } from "./connect-search-engine.js";
import { chunkIndexDefinition, type IndexDefinitionSettings } from "./index-definitions.js";
import { createIndexLifecycle } from "./index-lifecycle.js";
import { type OrganisationIndexNames, organisationIndexNames, validateIndexBase } from "./index-names.js";
import {
  clusterNodes,
  encodePathSegment,
  isMissingIndex,
  redactUrl,
  type SearchEngineClient,
  unexpectedAnswer,
} from "./search-engine-client.js";
import { createSearchEngineRegistry } from "./search-engine-registry.js";
import { assertDeletedByQuery, createSearchEngineSweep } from "./search-engine-sweep.js";
import { documentChunksBody, maximumResultWindow, pruneBodies, textCountBody, textSearchBody } from "./search-queries.js";
import { sendBulk } from "./send-bulk.js";

/** Settings of {@link createSearchEngineIndex}. Each names its environment variable. */
export interface SearchEngineIndexSettings {
  /** `FULLTEXT_URI`, default `http://localhost:9200`. */
  node?: string | undefined;
  /** `KEYWORD_STORE=elasticsearch|opensearch`; default `auto` (ask the server's `GET /` once, lazily). */
  engine?: SearchEngineChoice | undefined;
  /** `FULLTEXT_INDEX`, default `docs_bm25`: base of the per-organisation index names. */
  indexBase?: string | undefined;
  /** `FULLTEXT_API_KEY`: Elasticsearch API key; default none. */
  apiKey?: string | undefined;
  /** `FULLTEXT_USERNAME`: basic-auth user; default none. */
  username?: string | undefined;
  /** `FULLTEXT_PASSWORD`: basic-auth password; default none. */
  password?: string | undefined;
  /** `STORE_TIMEOUT_MS`, default 10,000: time one request may take (no retries). */
  requestTimeoutMs?: number | undefined;
  /** `BM25_K1`, default 0.9: BM25 `k1` of new indexes. */
  k1?: number | undefined;
  /** `BM25_B`, default 0.4: BM25 `b` of new indexes. */
  b?: number | undefined;
  /** Extra weight of title matches; default 0 (plain BM25 over title and text). See `TextSearchOptions.titleBoost`. */
  titleBoost?: number | undefined;
  /** Primary shards of new indexes; default 1. */
  shards?: number | undefined;
  /** Replicas of new indexes; default: the engine's (1). */
  replicas?: number | undefined;
  /** Bulk request limits; default 500 documents or 5 MiB. */
  bulkLimits?: Partial<BulkLimits> | undefined;
  /** Logger; default silent. */
  logger?: Logger | undefined;
  /** A ready client, instead of connecting to {@link node} (tests, custom transports). */
  client?: SearchEngineClient | undefined;
}

/** The store {@link createSearchEngineIndex} returns (also swept of uncommitted versions: `SweepableIndex`). */
export interface SearchEngineIndex extends ServerKeywordStore, SweepableIndex {
  /**
   * `elasticsearch` or `opensearch`: the configured engine, or with `auto` the detected one, and
   * `search-engine` until the first request has detected it.
   */
  readonly name: string;
  /** The index names of an organisation. */
  indexNames(orgId: string): OrganisationIndexNames;
}

/**
 * Creates the Elasticsearch/OpenSearch keyword index and registry. Connects lazily: creating it
 * never fails for an unreachable server; the first call that needs the server does.
 *
 * @throws {DocqaError} `config_invalid` when `indexBase` is not a valid index name base.
 * @example
 * ```ts
 * const index = createSearchEngineIndex({ node: "http://localhost:9200", indexBase: "docs_bm25" });
 * const stores = stagedDocumentStores({ keyword: index, registry: index });
 * ```
 */
export function createSearchEngineIndex(settings: SearchEngineIndexSettings = {}): SearchEngineIndex {
  const node = settings.node ?? "http://localhost:9200";
  const engine = settings.engine ?? "auto";
  const base = validateIndexBase(settings.indexBase ?? "docs_bm25");
  const logger = settings.logger ?? silentLogger;
  const limits: BulkLimits = { ...defaultBulkLimits, ...settings.bulkLimits };
  const definitionSettings: IndexDefinitionSettings = {
    k1: settings.k1 ?? 0.9,
    b: settings.b ?? 0.4,
    shards: settings.shards ?? 1,
    replicas: settings.replicas,
  };
  const titleBoost = settings.titleBoost ?? 0;

  let client: SearchEngineClient | undefined = settings.client;
  let connecting: Promise<SearchEngineClient> | undefined;
  let closed = false;

  const connection = async (): Promise<SearchEngineClient> => {
    if (client) return client;
    if (closed) throw new DocqaError("store_unavailable", "the search engine index is closed", { component: store.name });
    connecting ??= connectSearchEngine({
      node,
      engine,
      apiKey: settings.apiKey,
      username: settings.username,
      password: settings.password,
      requestTimeoutMs: settings.requestTimeoutMs ?? 10_000,
    }).then(
      (connected) => {
        client = connected;
        logger.info("search engine connected", { component: connected.engine, node: redactUrl(node) });
        return connected;
      },
      (error: unknown) => {
        connecting = undefined;
        throw error;
      },
    );
    return connecting;
  };

  const indexes = createIndexLifecycle(logger);
  const runBulk = (search: SearchEngineClient, alias: string, operations: readonly BulkOperation[], what: string) =>
    sendBulk(search, alias, operations, what, { limits, onIndexMissing: (missing) => indexes.forget(missing) });
  const registry = createSearchEngineRegistry({
    connection,
    indexNames: (orgId) => organisationIndexNames(base, orgId),
    indexes,
    definitionSettings,
    bulk: runBulk,
  });

  const sweep = createSearchEngineSweep(connection, base);

  /** The `_count` of the organisation's chunk index (of the chunks matching `body`'s query when given); 0 without an index. */
  const countChunks = async (orgId: string, body?: object, signal?: AbortSignal): Promise<number> => {
    const search = await connection();
    const path = `/${encodePathSegment(organisationIndexNames(base, orgId).chunks)}/_count`;
    const response = await search.request(body ? { method: "POST", path, body } : { method: "GET", path }, { allowStatus: [404], signal });
    if (isMissingIndex(response)) return 0;
    const count = (response.body as { count?: unknown }).count;
    if (typeof count !== "number") throw unexpectedAnswer(search, "_count", response.body);
    return count;
  };

  const store: SearchEngineIndex = {
    get name() {
      return client?.engine ?? (engine === "auto" ? "search-engine" : engine);
    },
    writes: "staged",

    indexNames: (orgId) => organisationIndexNames(base, orgId),

    count(orgId) {
      return countChunks(orgId);
    },

    async searchByText(orgId, query, options: SearchOptions): Promise<ScoredChunk[]> {
      const body = textSearchBody(query, { topK: options.topK, filter: options.filter, titleBoost });
      if (body.size === 0) return [];
      options.signal?.throwIfAborted();
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      const response = await search.request(
        { method: "POST", path: `/${encodePathSegment(names.chunks)}/_search`, body },
        { allowStatus: [404], signal: options.signal },
      );
      if (isMissingIndex(response)) return [];
      const hits = (response.body as { hits?: { hits?: unknown } }).hits?.hits;
      if (!Array.isArray(hits)) throw unexpectedAnswer(search, "_search", response.body);
      return hits.map((hit: { _source?: unknown; _score?: unknown }) => {
        const chunk: ChunkRecord = chunkFromSource(hit._source, search.engine);
        const score = typeof hit._score === "number" ? hit._score : 0;
        return { chunk, score };
      });
    },

    /**
     * One `_count` of the chunks matching `query` or in `options.include` under the filter
     * (`textCountBody`). Exact over what the index holds: a document being rewritten at that
     * moment may be counted in both versions until its old one is pruned.
     */
    async countByText(orgId, query, options: CountOptions): Promise<number> {
      const body = textCountBody(query, options);
      options.signal?.throwIfAborted();
      return countChunks(orgId, body, options.signal);
    },

    async write(orgId, documents: readonly DocumentVersion[]) {
      const operations: BulkOperation[] = [];
      for (const document of documents) {
        for (const chunk of document.chunks) {
          operations.push({ action: { index: { _id: chunkDocumentId(chunk) } }, document: storedChunk(chunk) });
        }
      }
      if (operations.length === 0) return;
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      await indexes.ensure(search, names.chunksIndex, names.chunks, chunkIndexDefinition(definitionSettings, names.chunks));
      await runBulk(search, names.chunks, operations, `writing ${operations.length} chunks`);
    },

    async prune(orgId, keep) {
      if (keep.size === 0) return;
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      for (const body of pruneBodies(keep)) {
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.chunks)}/_delete_by_query`,
            querystring: { refresh: true, conflicts: "proceed" },
            body,
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return;
        assertDeletedByQuery(search, response.body, `pruning old versions in ${names.chunks}`);
      }
    },

    async ping() {
      // `GET /_cluster/health` of docqa's indexes (`clusterHealth`): green is up, yellow or a
      // node missing from FULLTEXT_URI's list degraded, red down. 403 is a key without the
      // monitor privilege: still an answer of a cluster that serves requests.
      const search = await connection();
      const response = await search.request(
        {
          method: "GET",
          path: `/_cluster/health/${encodePathSegment(`${base}_*`)}`,
          querystring: { filter_path: clusterHealthFields.join(",") },
        },
        { allowStatus: [403] },
      );
      if (response.statusCode === 403) return undefined;
      return clusterHealth(response.body, clusterNodes(node).length, search.engine);
    },

    organisations: () => sweep.organisations(),
    storedVersions: (orgId) => sweep.storedVersions(orgId),
    removeVersions: (orgId, versions) => sweep.removeVersions(orgId, versions),

    async documentChunks(orgId, docId, contentHash) {
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      const chunks: ChunkRecord[] = [];
      let after: unknown[] | undefined;
      for (;;) {
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.chunks)}/_search`,
            body: documentChunksBody(docId, contentHash, maximumResultWindow, after),
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return [];
        const hits = (response.body as { hits?: { hits?: unknown } }).hits?.hits;
        if (!Array.isArray(hits)) throw unexpectedAnswer(search, "_search", response.body);
        for (const hit of hits as { _source?: unknown }[]) chunks.push(chunkFromSource(hit._source, search.engine));
        if (hits.length < maximumResultWindow) return chunks;
        after = (hits.at(-1) as { sort?: unknown[] }).sort;
      }
    },

    contentHashes: (orgId, docIds) => registry.contentHashes(orgId, docIds),
    derivedDocuments: (orgId, sourceDocIds) => registry.derivedDocuments(orgId, sourceDocIds),
    describeDocuments: (orgId, docIds) => registry.describeDocuments(orgId, docIds),
    listDocuments: (orgId, query) => registry.listDocuments(orgId, query),
    commit: (orgId, change) => registry.commit(orgId, change),

    async close() {
      closed = true;
      const current = client ?? (connecting ? await connecting.catch(() => undefined) : undefined);
      client = undefined;
      connecting = undefined;
      indexes.clear();
      if (current) await current.close();
    },
  };
  return store;
}
