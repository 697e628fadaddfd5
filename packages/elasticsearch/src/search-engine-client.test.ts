import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DocqaError } from "@docqa/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createElasticsearchClient } from "./elasticsearch-client.js";
import { createOpenSearchClient } from "./opensearch-client.js";
import {
  clusterNodes,
  describeErrorBody,
  redactUrl,
  type SearchEngineClient,
  sendWithFailover,
  transportFailure,
} from "./search-engine-client.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A local HTTP server answering like a cluster; `respond` decides each answer. */
let server: Server;
let node: string;
const seen: Seen[] = [];
let respond: (request: Seen, response: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (part) => {
      body += part;
    });
    request.on("end", () => {
      const entry = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body };
      seen.push(entry);
      respond(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  node = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_request: Seen, response: ServerResponse) => {
    response.writeHead(status, { "content-type": "application/json", "x-elastic-product": "Elasticsearch", ...headers });
    response.end(JSON.stringify(body));
  };

async function failure(promise: Promise<unknown>): Promise<DocqaError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DocqaError.isInstance(error)) throw new Error(`expected a DocqaError, got ${String(error)}`);
  return error;
}

describe.each([
  ["elasticsearch", createElasticsearchClient],
  ["opensearch", createOpenSearchClient],
] as const)("%s client", (engine, create) => {
  let client: SearchEngineClient;
  beforeAll(() => {
    client = create({ node, username: "user", password: "secret", requestTimeoutMs: 300 });
  });
  afterAll(() => client.close());

  it("sends JSON requests with plain media types and basic auth, and returns status and body", async () => {
    respond = json(200, { hits: { hits: [] } });
    seen.length = 0;
    const response = await client.request({
      method: "POST",
      path: "/idx/_search",
      querystring: { size: 1 },
      body: { query: { match_all: {} } },
    });
    expect(response).toEqual({ statusCode: 200, body: { hits: { hits: [] } } });
    const request = seen.at(-1) as Seen;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/idx/_search?size=1");
    expect(JSON.parse(request.body)).toEqual({ query: { match_all: {} } });
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from("user:secret").toString("base64")}`);
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    expect(String(request.headers.accept)).not.toContain("compatible-with");
  });

  it("sends bulk bodies as NDJSON", async () => {
    respond = json(200, { errors: false, items: [] });
    seen.length = 0;
    await client.request({ method: "POST", path: "/idx/_bulk", bulkBody: [{ index: { _id: "a" } }, { text: 'x"y' }] });
    const request = seen.at(-1) as Seen;
    expect(request.body).toBe('{"index":{"_id":"a"}}\n{"text":"x\\"y"}\n');
    expect(request.headers["content-type"]).toMatch(/^application\/x-ndjson/);
  });

  it("answers allowed statuses and turns others into store_unavailable with the engine's reason", async () => {
    respond = json(404, { error: { type: "index_not_found_exception", reason: "no such index [idx]" }, status: 404 });
    expect((await client.request({ method: "GET", path: "/idx/_count" }, { allowStatus: [404] })).statusCode).toBe(404);
    respond = json(500, { error: { type: "search_phase_execution_exception", reason: "all shards failed" }, status: 500 });
    const error = await failure(client.request({ method: "POST", path: "/idx/_search", body: {} }));
    expect(error.code).toBe("store_unavailable");
    expect(error.component).toBe(engine);
    expect(error.message).toContain("HTTP 500 search_phase_execution_exception: all shards failed");
    expect(error.message).toContain("POST /idx/_search");
  });

  it("times out after the request timeout", async () => {
    respond = () => undefined; // never answers
    const started = Date.now();
    const error = await failure(client.request({ method: "GET", path: "/" }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe("store_unavailable");
    expect(error.message).toContain("timed out");
    expect(error.message).toContain("STORE_TIMEOUT_MS");
  });

  it("rejects with the signal's reason when aborted", async () => {
    respond = () => undefined;
    const controller = new AbortController();
    const pending = client.request({ method: "GET", path: "/" }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller gave up")), 20);
    await expect(pending).rejects.toThrow("caller gave up");
  });

  it("sends a request whose connection fails to the next node of FULLTEXT_URI, and a timed-out one to none", async () => {
    // Node 1 refuses connections (nothing listens on port 1); node 2 is the local server.
    const cluster = create({ node: `http://127.0.0.1:1, ${node}`, requestTimeoutMs: 1_000 });
    try {
      respond = json(200, { count: 3 });
      for (let index = 0; index < 4; index++) {
        expect((await cluster.request({ method: "GET", path: "/idx/_count" })).body).toEqual({ count: 3 });
      }
      respond = () => undefined; // node 2 never answers: the timeout is spent, no other node is tried
      seen.length = 0;
      const started = Date.now();
      const error = await failure(cluster.request({ method: "GET", path: "/slow" }));
      expect(error.message).toContain("timed out");
      expect(seen.filter((request) => request.url === "/slow")).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await cluster.close();
    }
  });

  it("reports an unreachable server with what to do, without the password", async () => {
    const unreachable = create({ node: "http://user:secret@127.0.0.1:1", requestTimeoutMs: 1_000 });
    const error = await failure(unreachable.request({ method: "GET", path: "/" }));
    await unreachable.close();
    expect(error.code).toBe("store_unavailable");
    expect(error.message).toContain("is unreachable");
    expect(error.message).toContain("unset FULLTEXT_URI");
    expect(error.message).not.toContain("secret");
  });
});

describe("elasticsearch client", () => {
  it("sends the API key, and refuses a server that is not Elasticsearch", async () => {
    const client = createElasticsearchClient({ node, apiKey: "a2V5", requestTimeoutMs: 1_000 });
    respond = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }); // no x-elastic-product: OpenSearch
      response.end(JSON.stringify({ version: { distribution: "opensearch", number: "2.19.0" } }));
    };
    seen.length = 0;
    const error = await failure(client.request({ method: "GET", path: "/" }));
    await client.close();
    expect(seen.at(-1)?.headers.authorization).toBe("ApiKey a2V5");
    expect(error.message).toContain("KEYWORD_STORE=opensearch");
  });
});

describe("transportFailure", () => {
  it("keeps DocqaErrors and describes unknown errors", () => {
    const original = new DocqaError("invalid_request", "x");
    expect(transportFailure("opensearch", "http://h:9200", "op", original)).toBe(original);
    const wrapped = transportFailure("opensearch", "http://h:9200", "op", new TypeError("boom"));
    expect(wrapped.message).toBe("[docqa] [opensearch] op failed at http://h:9200: TypeError: boom");
    expect(wrapped.cause).toBeInstanceOf(TypeError);
  });

  it("describes error bodies and redacts credentials", () => {
    expect(describeErrorBody({ error: { type: "t", reason: "r", caused_by: { type: "c", reason: "why" } } })).toBe(
      "t: r (caused by c: why)",
    );
    expect(describeErrorBody({ error: "plain" })).toBe("plain");
    expect(describeErrorBody("text")).toBeUndefined();
    expect(redactUrl("https://user:pw@host:9200/")).toBe("https://host:9200");
    expect(redactUrl("https://user:pw@a:9200, https://user:pw@b:9200")).toBe("https://a:9200,https://b:9200");
  });
});

describe("clusterNodes and sendWithFailover", () => {
  const connectionError = Object.assign(new Error("connect ECONNREFUSED"), { name: "ConnectionError" });

  it("splits FULLTEXT_URI at commas", () => {
    expect(clusterNodes("http://a:9200")).toEqual(["http://a:9200"]);
    expect(clusterNodes(" http://a:9200 ,http://b:9200,")).toEqual(["http://a:9200", "http://b:9200"]);
  });

  it("tries each node at most once on connection failures, within one time limit, and nothing else", async () => {
    let calls = 0;
    await expect(
      sendWithFailover(3, 1_000, async () => {
        calls++;
        throw connectionError;
      }),
    ).rejects.toBe(connectionError);
    expect(calls).toBe(3);
    calls = 0;
    const timeouts: number[] = [];
    await expect(
      sendWithFailover(3, 1_000, async (timeoutMs) => {
        timeouts.push(timeoutMs);
        if (++calls === 1) throw connectionError;
        return "answer";
      }),
    ).resolves.toBe("answer");
    expect(timeouts).toHaveLength(2);
    expect(timeouts[1]).toBeLessThanOrEqual(1_000);
    calls = 0;
    const refused = Object.assign(new Error("HTTP 500"), { name: "ResponseError" });
    await expect(
      sendWithFailover(3, 1_000, async () => {
        calls++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });
});
