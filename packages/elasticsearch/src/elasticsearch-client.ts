/**
 * The {@link SearchEngineClient} for Elasticsearch 8 and 9, over the official client
 * (`@elastic/elasticsearch`). The client checks that the server is Elasticsearch (its product
 * check), so it refuses OpenSearch; use `opensearch-client.ts` there.
 */
import { Client } from "@elastic/elasticsearch";
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
 * Plain JSON media types. The 9.x client would otherwise send
 * `application/vnd.elasticsearch+json; compatible-with=9`, which Elasticsearch 8 rejects; the
 * plain types mean "the server's current API", which is what every request here uses.
 */
const jsonHeaders = { accept: "application/json", "content-type": "application/json" };
const ndjsonHeaders = { accept: "application/json", "content-type": "application/x-ndjson" };

/**
 * Creates a client for an Elasticsearch 8 or 9 cluster. Authenticates with `settings.apiKey`
 * (`Authorization: ApiKey`) when set, else with basic auth when `settings.username` is set.
 * With several nodes (`settings.node` holding comma-separated URLs), a request whose connection
 * fails goes to the next node, and a search answered from only some shards is asked again
 * ({@link sendWithFailover}); otherwise requests are not retried.
 * Every request, failovers included, ends within `settings.requestTimeoutMs`. Connects lazily:
 * this never throws for an unreachable server.
 */
export function createElasticsearchClient(settings: SearchEngineConnectionSettings): SearchEngineClient {
  const nodes = clusterNodes(settings.node);
  const client = new Client({
    nodes,
    auth: settings.apiKey
      ? { apiKey: settings.apiKey }
      : settings.username !== undefined
        ? { username: settings.username, password: settings.password ?? "" }
        : undefined,
    requestTimeout: settings.requestTimeoutMs,
    maxRetries: 0,
  });
  return {
    engine: "elasticsearch",
    async request(request: SearchEngineRequest, options = {}) {
      try {
        const result = await sendWithFailover(nodes.length, settings.requestTimeoutMs, async (requestTimeout) => {
          const answer = await client.transport.request(
            {
              method: request.method,
              path: request.path,
              querystring: request.querystring,
              body: request.body as Record<string, unknown> | undefined,
              bulkBody: request.bulkBody as Record<string, unknown>[] | undefined,
            },
            {
              meta: true,
              ignore: options.allowStatus ? [...options.allowStatus] : undefined,
              signal: options.signal,
              headers: request.bulkBody ? ndjsonHeaders : jsonHeaders,
              requestTimeout,
            },
          );
          assertAllShards(request.path, answer.body);
          return answer;
        });
        return { statusCode: result.statusCode ?? 200, body: result.body };
      } catch (error) {
        options.signal?.throwIfAborted();
        throw transportFailure("elasticsearch", settings.node, `${request.method} ${request.path}`, error);
      }
    },
    close: () => client.close(),
  };
}
