/**
 * The keyword index and document registry on Elasticsearch or OpenSearch: per-organisation BM25
 * chunk indexes with ACL pre-filtering, written with the staged protocol of `@docqa/core`
 * (`write` → registry `commit` → `prune`), and a per-organisation registry index of committed
 * document versions. See the package README for the index layout.
 */
import {
  type ChunkRecord,
  DocqaError,
  type DocumentVersion,
  type Logger,
  type RegisteredDocument,
  type ScoredChunk,
  type SearchOptions,
  type ServerKeywordStore,
  silentLogger,
} from "@docqa/core";
import { bulkFailures, describeBulkFailures, isRetryableFailure } from "./bulk-response.js";
import {
  type BulkLimits,
  type BulkOperation,
  bulkBatches,
  bulkBody,
  chunkDocumentId,
  chunkFromSource,
  defaultBulkLimits,
  registryDocumentId,
  storedChunk,
} from "./chunk-documents.js";
import { connectSearchEngine, type SearchEngineChoice } from "./connect-search-engine.js";
import { chunkIndexDefinition, type IndexDefinitionSettings, registryIndexDefinition } from "./index-definitions.js";
import { type OrganisationIndexNames, organisationIndexNames, validateIndexBase } from "./index-names.js";
import { describeErrorBody, encodePathSegment, redactUrl, type SearchEngineClient } from "./search-engine-client.js";
import { derivedDocumentsBody, pruneBodies, textSearchBody } from "./search-queries.js";

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

/** The store {@link createSearchEngineIndex} returns. */
export interface SearchEngineIndex extends ServerKeywordStore {
  /**
   * `elasticsearch` or `opensearch`: the configured engine, or with `auto` the detected one, and
   * `search-engine` until the first request has detected it.
   */
  readonly name: string;
  /** The index names of an organisation. */
  indexNames(orgId: string): OrganisationIndexNames;
}

/** Bulk requests sent at once by one write. */
const bulkConcurrency = 2;
/** Attempts of a bulk item the engine rejected as overloaded (HTTP 429), and the first back-off. */
const overloadAttempts = 3;
const overloadBackoffMs = 250;
/** Ids per `_mget` of the registry, and documents per page of a registry search. */
const registryBatchSize = 1_000;

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
  const existing = new Map<string, Promise<void>>();

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

  /** Creates `index` with `definition` (and its alias) unless it exists; remembers success. */
  const ensureIndex = (search: SearchEngineClient, index: string, alias: string, definition: Record<string, unknown>): Promise<void> => {
    let pending = existing.get(alias);
    if (!pending) {
      pending = (async () => {
        const response = await search.request(
          { method: "PUT", path: `/${encodePathSegment(index)}`, body: definition },
          { allowStatus: [400] },
        );
        if (response.statusCode < 300) {
          logger.info("created index", { component: search.engine, index, alias });
          return;
        }
        const type = errorType(response.body);
        if (type === "resource_already_exists_exception") return;
        const hint =
          type === "invalid_alias_name_exception" || type === "invalid_index_name_exception"
            ? `: an index named ${alias} exists that docqa did not create; delete it or choose another FULLTEXT_INDEX`
            : "";
        throw new DocqaError(
          "store_unavailable",
          `creating index ${index} failed: ${describeErrorBody(response.body) ?? "HTTP 400"}${hint}`,
          {
            component: search.engine,
          },
        );
      })();
      existing.set(alias, pending);
      pending.catch(() => existing.delete(alias));
    }
    return pending;
  };

  /** Whether `alias` exists (cached once known). */
  const aliasExists = async (search: SearchEngineClient, alias: string): Promise<boolean> => {
    if (existing.has(alias)) return true;
    const response = await search.request({ method: "HEAD", path: `/${encodePathSegment(alias)}` }, { allowStatus: [404] });
    return response.statusCode < 300;
  };

  /**
   * Sends `operations` to `alias` in bounded batches (two at a time), each with
   * `refresh=wait_for` (durable and searchable when acknowledged) and `require_alias=true` (never
   * auto-creates an index). Items the engine rejects as overloaded are sent again, up to three
   * times; any other failed item fails the call.
   */
  const runBulk = async (search: SearchEngineClient, alias: string, operations: readonly BulkOperation[], what: string) => {
    const batches = bulkBatches(operations, limits);
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++] as BulkOperation[];
        await sendBatch(search, alias, batch, what);
      }
    };
    await Promise.all(Array.from({ length: Math.min(bulkConcurrency, batches.length) }, worker));
  };

  const sendBatch = async (search: SearchEngineClient, alias: string, batch: BulkOperation[], what: string) => {
    let pending = batch;
    for (let attempt = 1; ; attempt++) {
      const response = await search.request({
        method: "POST",
        path: `/${encodePathSegment(alias)}/_bulk`,
        querystring: { refresh: "wait_for", require_alias: true },
        bulkBody: bulkBody(pending),
      });
      const ids = pending.map(operationId);
      const failures = bulkFailures(response.body, ids);
      if (failures.length === 0) return;
      const retryable = failures.every(isRetryableFailure);
      if (!retryable || attempt >= overloadAttempts) {
        // The index was deleted behind our back: forget it, so that the next write creates it again.
        if (failures.some((failure) => failure.type === "index_not_found_exception")) existing.delete(alias);
        throw new DocqaError("store_unavailable", `${what} in ${alias}: ${describeBulkFailures(failures, pending.length)}`, {
          component: search.engine,
          details: { failures: failures.slice(0, 20) },
        });
      }
      pending = failures.map((failure) => pending[failure.position] as BulkOperation);
      await new Promise((resolve) => setTimeout(resolve, overloadBackoffMs * 2 ** (attempt - 1)));
    }
  };

  const store: SearchEngineIndex = {
    get name() {
      return client?.engine ?? (engine === "auto" ? "search-engine" : engine);
    },
    writes: "staged",

    indexNames: (orgId) => organisationIndexNames(base, orgId),

    async count(orgId) {
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      const response = await search.request({ method: "GET", path: `/${encodePathSegment(names.chunks)}/_count` }, { allowStatus: [404] });
      if (isMissingIndex(response)) return 0;
      const count = (response.body as { count?: unknown }).count;
      if (typeof count !== "number") throw unexpected(search, "_count", response.body);
      return count;
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
      if (!Array.isArray(hits)) throw unexpected(search, "_search", response.body);
      return hits.map((hit: { _source?: unknown; _score?: unknown }) => {
        const chunk: ChunkRecord = chunkFromSource(hit._source, search.engine);
        const score = typeof hit._score === "number" ? hit._score : 0;
        return { chunk, score };
      });
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
      await ensureIndex(search, names.chunksIndex, names.chunks, chunkIndexDefinition(definitionSettings, names.chunks));
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
        const result = response.body as { failures?: unknown; timed_out?: unknown };
        if (result.timed_out === true || (Array.isArray(result.failures) && result.failures.length > 0)) {
          throw new DocqaError(
            "store_unavailable",
            `pruning old versions in ${names.chunks} failed: ${result.timed_out === true ? "timed out" : JSON.stringify(result.failures).slice(0, 500)}`,
            { component: search.engine },
          );
        }
      }
    },

    async contentHashes(orgId, docIds) {
      const hashes = new Map<string, string>();
      const unique = [...new Set(docIds)];
      if (unique.length === 0) return hashes;
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      for (let start = 0; start < unique.length; start += registryBatchSize) {
        const batch = unique.slice(start, start + registryBatchSize);
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.registry)}/_mget`,
            querystring: { _source_includes: "doc_id,content_hash" },
            body: { ids: batch.map(registryDocumentId) },
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return hashes;
        const docs = (response.body as { docs?: unknown }).docs;
        if (!Array.isArray(docs)) throw unexpected(search, "_mget", response.body);
        const wanted = new Set(batch);
        for (const doc of docs as { found?: unknown; _source?: { doc_id?: unknown; content_hash?: unknown }; error?: unknown }[]) {
          if (doc.error !== undefined) {
            if (errorType({ error: doc.error }) === "index_not_found_exception") return hashes;
            throw unexpected(search, "_mget", { error: doc.error });
          }
          const source = doc._source;
          if (doc.found !== true || !source) continue;
          if (typeof source.doc_id === "string" && wanted.has(source.doc_id) && typeof source.content_hash === "string") {
            hashes.set(source.doc_id, source.content_hash);
          }
        }
      }
      return hashes;
    },

    async derivedDocuments(orgId, sourceDocIds) {
      if (sourceDocIds.length === 0) return [];
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      const found: string[] = [];
      let after: unknown[] | undefined;
      for (;;) {
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.registry)}/_search`,
            body: derivedDocumentsBody(sourceDocIds, registryBatchSize, after),
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return [];
        const hits = (response.body as { hits?: { hits?: unknown } }).hits?.hits;
        if (!Array.isArray(hits)) throw unexpected(search, "_search", response.body);
        for (const hit of hits as { _source?: { doc_id?: unknown }; sort?: unknown[] }[]) {
          if (typeof hit._source?.doc_id === "string") found.push(hit._source.doc_id);
        }
        if (hits.length < registryBatchSize) return found;
        after = (hits[hits.length - 1] as { sort?: unknown[] }).sort;
      }
    },

    async commit(orgId, change: { write: readonly RegisteredDocument[]; remove: readonly string[] }) {
      if (change.write.length === 0 && change.remove.length === 0) return;
      const search = await connection();
      const names = organisationIndexNames(base, orgId);
      if (change.write.length > 0) {
        await ensureIndex(search, names.registryIndex, names.registry, registryIndexDefinition(definitionSettings, names.registry));
      } else if (!(await aliasExists(search, names.registry))) {
        return; // nothing was ever committed: nothing to remove
      }
      const operations: BulkOperation[] = [
        ...change.write.map((entry) => ({
          action: { index: { _id: registryDocumentId(entry.docId) } },
          document: { doc_id: entry.docId, content_hash: entry.contentHash, derived_from: [...(entry.derivedFrom ?? [])] },
        })),
        ...change.remove.map((docId) => ({ action: { delete: { _id: registryDocumentId(docId) } } })),
      ];
      await runBulk(search, names.registry, operations, `committing ${change.write.length} and removing ${change.remove.length} documents`);
    },

    async close() {
      closed = true;
      const current = client ?? (connecting ? await connecting.catch(() => undefined) : undefined);
      client = undefined;
      connecting = undefined;
      existing.clear();
      if (current) await current.close();
    },
  };
  return store;
}

function operationId(operation: BulkOperation): string {
  const action = Object.values(operation.action)[0] as { _id?: unknown } | undefined;
  return typeof action?._id === "string" ? action._id : "";
}

function errorType(body: unknown): string | undefined {
  const error = (typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined) as
    | { type?: unknown }
    | undefined;
  return typeof error?.type === "string" ? error.type : undefined;
}

/** Whether a response allowed with status 404 says that the index (alias) does not exist. */
function isMissingIndex(response: { statusCode: number; body: unknown }): boolean {
  if (response.statusCode !== 404) return false;
  const type = errorType(response.body);
  if (type === "index_not_found_exception" || type === undefined) return true;
  throw new DocqaError("store_unavailable", `unexpected HTTP 404: ${describeErrorBody(response.body)}`, { component: "search-engine" });
}

function unexpected(search: SearchEngineClient, operation: string, body: unknown): DocqaError {
  return new DocqaError(
    "store_unavailable",
    `unexpected ${operation} answer: ${describeErrorBody(body) ?? JSON.stringify(body)?.slice(0, 300) ?? "empty"}`,
    { component: search.engine },
  );
}
