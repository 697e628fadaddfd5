/**
 * The {@link SearchEngineClient} for OpenSearch 2 and 3, over the official client
 * (`@opensearch-project/opensearch`).
 */
import { Client } from "@opensearch-project/opensearch";
import {
  assertAllShards,
  clusterNodes,
  type SearchEngineClient,
  type SearchEngineConnectionSettings,
  type SearchEngineRequest,
  sendWithFailover,
  transportFailure,
} from "./search-engine-client.js";

/**
 * Creates a client for an OpenSearch 2 or 3 cluster. Authenticates with basic auth when
 * `settings.username` is set; an API key, if given, is sent as `Authorization: ApiKey <key>`
 * (OpenSearch itself has no API keys; this serves proxies that accept them, and engine
 * detection against Elasticsearch). With several nodes (`settings.node` holding comma-separated
 * URLs), a request whose connection fails goes to the next node, and a search answered from only
 * some shards is asked again ({@link sendWithFailover}); otherwise requests are not retried. Every request, failovers included, ends within
 * `settings.requestTimeoutMs`. Connects lazily: this never throws for an unreachable server.
 */
export function createOpenSearchClient(settings: SearchEngineConnectionSettings): SearchEngineClient {
  const nodes = clusterNodes(settings.node);
  const client = new Client({
    nodes,
    auth:
      !settings.apiKey && settings.username !== undefined ? { username: settings.username, password: settings.password ?? "" } : undefined,
    headers: settings.apiKey ? { authorization: `ApiKey ${settings.apiKey}` } : undefined,
    requestTimeout: settings.requestTimeoutMs,
    maxRetries: 0,
    // Parse bodies like JSON.parse, as Elasticsearch's client does by default: metadata keys such
    // as `__proto__` or `constructor` are data here, and must not make every search of an
    // organisation fail.
    disablePrototypePoisoningProtection: true,
  });
  return {
    engine: "opensearch",
    async request(request: SearchEngineRequest, options = {}) {
      options.signal?.throwIfAborted();
      const pending = sendWithFailover(nodes.length, settings.requestTimeoutMs, async (requestTimeout) => {
        const answer = await client.transport.request(
          {
            method: request.method,
            path: request.path,
            querystring: request.querystring,
            body: request.body as Record<string, unknown> | undefined,
            bulkBody: request.bulkBody as Record<string, unknown>[] | undefined,
          },
          { ignore: options.allowStatus ? [...options.allowStatus] : undefined, requestTimeout },
        );
        assertAllShards(request.path, answer.body);
        return answer;
      });
      // The request is not aborted on the wire (the client's abort raises an uncaught error in
      // Node 24); the caller is released at once and the request ends within the timeout.
      let release: (() => void) | undefined;
      const aborted = new Promise<never>((_resolve, reject) => {
        release = () => reject(options.signal?.reason);
      });
      if (release) options.signal?.addEventListener("abort", release, { once: true });
      try {
        const result = await (options.signal ? Promise.race([pending, aborted]) : pending);
        return { statusCode: result.statusCode ?? 200, body: result.body as unknown };
      } catch (error) {
        options.signal?.throwIfAborted();
        throw transportFailure("opensearch", settings.node, `${request.method} ${request.path}`, error);
      } finally {
        if (release) options.signal?.removeEventListener("abort", release);
      }
    },
    close: () => client.close(),
  };
}
