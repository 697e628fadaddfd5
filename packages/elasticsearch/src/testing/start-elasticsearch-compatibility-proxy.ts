/**
 * Test-only: a loopback HTTP proxy that lets the Elasticsearch client (`@elastic/elasticsearch`)
 * talk to an OpenSearch server, so docqa's Elasticsearch code path runs against a real engine
 * where Elasticsearch itself cannot be installed (docqa's CI). It changes only what the client
 * checks about the server, never the search semantics:
 *
 * - responses carry `X-Elastic-Product: Elasticsearch` (the client's product check);
 * - `GET /` reports an Elasticsearch 9 version instead of OpenSearch's;
 * - `compatible-with` media types in requests become plain JSON (OpenSearch answers them with 406).
 *
 * Queries, mappings and bulk requests pass through unchanged; docqa only uses the part of the API
 * both engines share.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";

/** A running proxy. */
export interface ElasticsearchCompatibilityProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

function plainJson(value: string | string[] | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  return value.replace(/application\/vnd\.elasticsearch\+(x-ndjson|json)\s*;\s*compatible-with=\d+/g, "application/$1");
}

/** Starts the proxy on a free loopback port in front of the OpenSearch server at `target`. */
export async function startElasticsearchCompatibilityProxy(target: string): Promise<ElasticsearchCompatibilityProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    // Uncompressed responses, so the proxy can read and rewrite `GET /`.
    const headers: IncomingHttpHeaders = { ...incoming.headers, host: upstream.host, "accept-encoding": "identity" };
    for (const name of ["accept", "content-type"] as const) {
      const rewritten = plainJson(headers[name]);
      if (rewritten !== undefined) headers[name] = rewritten;
    }
    const forwarded = httpRequest(
      // A fresh upstream connection per request (`agent: false`): reusing idle keep-alive
      // connections races with the server closing them ("socket hang up").
      { hostname: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers, agent: false },
      (response) => {
        const responseHeaders = { ...response.headers, "x-elastic-product": "Elasticsearch" };
        if (incoming.method === "GET" && (incoming.url === "/" || incoming.url?.startsWith("/?"))) {
          const parts: Buffer[] = [];
          response.on("data", (part: Buffer) => parts.push(part));
          response.on("end", () => {
            const info = JSON.parse(Buffer.concat(parts).toString("utf8")) as { version?: Record<string, unknown> };
            info.version = { ...info.version, number: "9.0.0", build_flavor: "default", distribution: undefined };
            const body = JSON.stringify(info);
            delete responseHeaders["content-length"];
            outgoing.writeHead(response.statusCode ?? 200, { ...responseHeaders, "content-length": Buffer.byteLength(body) });
            outgoing.end(body);
          });
          return;
        }
        outgoing.writeHead(response.statusCode ?? 502, responseHeaders);
        response.pipe(outgoing);
      },
    );
    forwarded.on("error", (error) => {
      outgoing.writeHead(502, { "content-type": "application/json" });
      outgoing.end(JSON.stringify({ error: { type: "proxy_error", reason: error.message } }));
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
