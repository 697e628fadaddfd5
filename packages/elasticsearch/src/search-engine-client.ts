/**
 * The seam between docqa's index code and an engine's client: one `request` method that sends a
 * REST call (method, path, query string, JSON or NDJSON body) and answers with the status and the
 * parsed body. Every request body is built by shared pure functions (`search-queries.ts`,
 * `index-definitions.ts`, `chunk-documents.ts`), so Elasticsearch and OpenSearch differ only in
 * how the connection is made: see `elasticsearch-client.ts` and `opensearch-client.ts`.
 */
import { DocqaError } from "@docqa/core";

/** The engines this package speaks to. */
export type SearchEngine = "elasticsearch" | "opensearch";

/** One REST call. */
export interface SearchEngineRequest {
  method: "GET" | "HEAD" | "POST" | "PUT" | "DELETE";
  /** Path starting with `/`, its segments already URL-encoded (see {@link encodePathSegment}). */
  path: string;
  /** Query-string parameters. */
  querystring?: Record<string, string | number | boolean> | undefined;
  /** A JSON body. */
  body?: unknown;
  /** An NDJSON body (`_bulk`): one JSON value per line. */
  bulkBody?: readonly unknown[] | undefined;
}

/** Options of {@link SearchEngineClient.request}. */
export interface SearchEngineRequestOptions {
  /**
   * HTTP statuses (besides 2xx) answered as a response instead of an error, for example `[404]`
   * for a search of an index that does not exist yet. Default none.
   */
  allowStatus?: readonly number[] | undefined;
  /** Cancels the request; the call then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** The answer to a {@link SearchEngineRequest}. */
export interface SearchEngineResponse {
  statusCode: number;
  /** The parsed JSON body (`true`/`false` for `HEAD`). */
  body: unknown;
}

/** A connection to one Elasticsearch or OpenSearch cluster. */
export interface SearchEngineClient {
  /** Which engine this client speaks to (also the component named in errors). */
  readonly engine: SearchEngine;
  /**
   * Sends `request`.
   *
   * @throws {DocqaError} `store_unavailable` (component {@link engine}) when the server cannot be
   *   reached, times out (the client's request timeout) or answers with a status that is neither
   *   2xx nor in `options.allowStatus`; the message holds the status, the error type and reason.
   *   When `options.signal` aborts the request, the signal's reason is thrown instead.
   */
  request(request: SearchEngineRequest, options?: SearchEngineRequestOptions): Promise<SearchEngineResponse>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** How to reach and authenticate to a cluster. */
export interface SearchEngineConnectionSettings {
  /**
   * Base URL, for example `http://localhost:9200` (`FULLTEXT_URI`), or the URLs of several nodes
   * of one cluster separated by commas (see {@link clusterNodes}).
   */
  node: string;
  /** Elasticsearch API key, sent as `Authorization: ApiKey <key>` (`FULLTEXT_API_KEY`). */
  apiKey?: string | undefined;
  /** Basic-auth user (`FULLTEXT_USERNAME`); used with {@link password} when no API key is set. */
  username?: string | undefined;
  /** Basic-auth password (`FULLTEXT_PASSWORD`). */
  password?: string | undefined;
  /**
   * Time a request may take, in milliseconds, before it fails with `store_unavailable`
   * (`STORE_TIMEOUT_MS`, default 10,000). It bounds every call, failovers to other nodes
   * ({@link sendWithFailover}) included; a request that timed out is never sent again.
   */
  requestTimeoutMs: number;
}

/**
 * The node URLs of a `FULLTEXT_URI`: one URL, or several nodes of one cluster separated by commas
 * (`http://search-1:9200,http://search-2:9200`), spaces around them ignored.
 */
export function clusterNodes(node: string): string[] {
  const nodes = node
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return nodes.length > 0 ? nodes : [node];
}

/**
 * Whether a client error means that the node could not be reached or dropped the connection
 * (refused, reset, closed: the engines' clients call it `ConnectionError`), so that the request
 * can go to another node of the cluster. A timeout is not such an error (the node may still be
 * working on the request, and the time limit is spent), nor is any answer of the engine.
 */
export function isConnectionFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "ConnectionError";
}

/**
 * A search or count that the engine answered with results from only some of its shards (`_shards.failed`
 * above 0): for a moment after a node is lost, until the cluster has moved every shard to a copy
 * that is alive. Such an answer is never used: {@link sendWithFailover} asks again.
 */
export class PartialResultsError extends Error {
  override readonly name = "PartialResultsError";
  constructor(
    /** Shards that failed and shards asked. */
    readonly failed: number,
    readonly total: number,
    /** The first shard failure's `type: reason`. */
    readonly reason: string,
  ) {
    super(`${failed} of ${total} shards failed (${reason})`);
  }
}

/**
 * Throws {@link PartialResultsError} when `body`, the answer to a `_search` or `_count` at `path`,
 * comes from only some of the shards.
 */
export function assertAllShards(path: string, body: unknown): void {
  if (!/\/_(search|count)$/.test(path) || typeof body !== "object" || body === null) return;
  const shards = (body as { _shards?: { total?: unknown; failed?: unknown; failures?: unknown } })._shards;
  if (typeof shards?.failed !== "number" || shards.failed <= 0) return;
  const [first] = Array.isArray(shards.failures) ? (shards.failures as { reason?: unknown }[]) : [];
  const reason = describeErrorBody({ error: first?.reason }) ?? "no reason given";
  throw new PartialResultsError(shards.failed, typeof shards.total === "number" ? shards.total : shards.failed, reason);
}

/** Pause before asking again after partial results, in milliseconds (the cluster needs a moment to move shards). */
export const partialResultsPauseMs = 200;

/**
 * Sends a request with failover across the nodes of a cluster: `send(timeoutMs)` sends it once to
 * the node the client picks (the engines' clients take nodes round robin and leave out a node
 * whose connection failed, until it answers a ping again). When the connection fails
 * ({@link isConnectionFailure}) and time is left, the request goes to the next node, at most once
 * per node. When `send` rejects with {@link PartialResultsError} (some shards failed, as for a
 * moment after a node is lost), it is sent again after {@link partialResultsPauseMs} while time is
 * left. Everything happens within `timeoutMs` in total; with one node and whole answers this is
 * one `send`.
 *
 * Every request docqa sends to a search engine may be sent twice: searches, counts and reads only
 * read; writes index, delete or commit by document id (`_bulk` with ids, `_delete_by_query`),
 * which gives the same result when repeated; index creation treats "already exists" as done.
 *
 * @throws whatever the last `send` threw.
 */
export async function sendWithFailover<T>(nodeCount: number, timeoutMs: number, send: (timeoutMs: number) => Promise<T>): Promise<T> {
  const started = performance.now();
  const remaining = () => timeoutMs - (performance.now() - started);
  for (let connectionFailures = 0; ; ) {
    try {
      return await send(Math.max(1, Math.round(remaining())));
    } catch (error) {
      if (error instanceof PartialResultsError && remaining() > partialResultsPauseMs) {
        await new Promise((resolve) => setTimeout(resolve, partialResultsPauseMs));
        continue;
      }
      if (!isConnectionFailure(error) || ++connectionFailures >= nodeCount || remaining() <= 1) throw error;
    }
  }
}

/** What a client error looks like, in both engines' clients (same shape since the 7.x fork). */
interface TransportErrorShape {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  meta?: { statusCode?: unknown; body?: unknown } | undefined;
}

/**
 * Turns an error thrown by either engine's client into a `store_unavailable` {@link DocqaError}
 * whose message names the node, the operation and the cause, and says what to do.
 *
 * @param engine - the engine (the error's component).
 * @param node - the cluster URL, shown with credentials removed.
 * @param operation - what was attempted, for example `search of index docs_bm25_x`.
 */
export function transportFailure(engine: SearchEngine, node: string, operation: string, error: unknown): DocqaError {
  if (DocqaError.isInstance(error)) return error;
  const shape = (typeof error === "object" && error !== null ? error : {}) as TransportErrorShape;
  const name = typeof shape.name === "string" ? shape.name : "Error";
  const message = typeof shape.message === "string" ? shape.message : String(error);
  const where = redactUrl(node);
  const product = engine === "elasticsearch" ? "Elasticsearch" : "OpenSearch";
  let text: string;
  switch (name) {
    case "PartialResultsError":
      text = `${operation} answered from only some shards at ${where} until STORE_TIMEOUT_MS: ${message}`;
      break;
    case "ResponseError": {
      const status = typeof shape.meta?.statusCode === "number" ? shape.meta.statusCode : shape.statusCode;
      text = `${operation} failed: HTTP ${String(status)} ${describeErrorBody(shape.meta?.body) ?? message}`;
      break;
    }
    case "TimeoutError":
      text = `${operation} timed out at ${where} (STORE_TIMEOUT_MS): check that ${product} is healthy, or raise STORE_TIMEOUT_MS`;
      break;
    case "ProductNotSupportedError":
      text = `${where} is not Elasticsearch (${message}): set KEYWORD_STORE=opensearch, or auto to detect the engine`;
      break;
    case "ConnectionError":
    case "NoLivingConnectionsError":
      text = `FULLTEXT_URI ${where} is unreachable (${message}) during ${operation}: start ${product} or unset FULLTEXT_URI`;
      break;
    default:
      text = `${operation} failed at ${where}: ${name}: ${message}`;
  }
  return new DocqaError("store_unavailable", text, { component: engine, cause: error });
}

/**
 * The `type: reason` of an engine's error body (`{ error: { type, reason, caused_by } }`), or
 * undefined when the body has no such error.
 */
export function describeErrorBody(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error;
  if (typeof error !== "object" || error === null) return undefined;
  const { type, reason, caused_by: causedBy } = error as { type?: unknown; reason?: unknown; caused_by?: unknown };
  let text = `${String(type ?? "error")}: ${String(reason ?? "")}`;
  if (typeof causedBy === "object" && causedBy !== null) {
    const cause = causedBy as { type?: unknown; reason?: unknown };
    text += ` (caused by ${String(cause.type)}: ${String(cause.reason)})`;
  }
  return text;
}

/** The URL (or the comma-separated URLs of a cluster's nodes) without user names and passwords, for messages. */
export function redactUrl(url: string): string {
  return clusterNodes(url)
    .map((node) => {
      try {
        const parsed = new URL(node);
        parsed.username = "";
        parsed.password = "";
        return parsed.toString().replace(/\/$/, "");
      } catch {
        return "(invalid URL)";
      }
    })
    .join(",");
}

/** URL-encodes one path segment (an index name or a document id). */
export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment);
}

/** The `error.type` of an engine's error body, for example `index_not_found_exception`. */
export function errorType(body: unknown): string | undefined {
  const error = (typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined) as
    | { type?: unknown }
    | undefined;
  return typeof error?.type === "string" ? error.type : undefined;
}

/**
 * Whether a response allowed with status 404 says that the index (alias) does not exist.
 *
 * @throws {DocqaError} `store_unavailable` for a 404 about something else.
 */
export function isMissingIndex(response: SearchEngineResponse): boolean {
  if (response.statusCode !== 404) return false;
  const type = errorType(response.body);
  if (type === "index_not_found_exception" || type === undefined) return true;
  throw new DocqaError("store_unavailable", `unexpected HTTP 404: ${describeErrorBody(response.body)}`, { component: "search-engine" });
}

/** The `store_unavailable` error of an answer to `operation` (`_search`, `_mget`…) that has not the expected shape. */
export function unexpectedAnswer(search: SearchEngineClient, operation: string, body: unknown): DocqaError {
  return new DocqaError(
    "store_unavailable",
    `unexpected ${operation} answer: ${describeErrorBody(body) ?? JSON.stringify(body)?.slice(0, 300) ?? "empty"}`,
    { component: search.engine },
  );
}
