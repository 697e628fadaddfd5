import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryJobStore, createRagService, type DeepPartial, DocqaError, mintAccessToken, type RagService } from "@docqa/core";
import { resolveServerConfig, type ServerConfig } from "@docqa/http";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServers, startServers } from "./serve-command.js";
import { type ServeOperations, serveOperations } from "./serve-operations.js";

const secret = "serve-operations-secret-0123456789-0123456789";
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts both sets as `docqa serve` does, with `overrides` of the server settings. */
let metrics: ServeOperations["metrics"];

async function serve(overrides: DeepPartial<ServerConfig>): Promise<{ a: string; b: string }> {
  const server = resolveServerConfig({ host: "127.0.0.1", port: 0, portB: 0, jwt: { secret }, ...overrides });
  const operations = serveOperations({ server, version: "0.1.0", nodeEnvironment: "test" });
  metrics = operations.metrics;
  const service: RagService = createRagService({
    config: { stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-serve-operations-")) }, logging: { level: "silent" } },
    embeddings: null,
    jobStore: createInMemoryJobStore(),
    metrics: operations.serviceMetrics,
  });
  const running: RunningServers = await startServers(service, { api: "both", server, extensions: operations.extensions(service) });
  cleanups.push(
    () => service.close(),
    () => running.close(),
  );
  const url = (api: "a" | "b") => running.servers.find((candidate) => candidate.api === api)?.url as string;
  return { a: url("a"), b: url("b") };
}

describe("serveOperations", () => {
  it("serves the web page and open metrics on both sets, counting each set's requests apart", async () => {
    const { a, b } = await serve({ metrics: "open" });
    for (const url of [a, b]) {
      const page = await fetch(`${url}/ui`);
      expect(page.status).toBe(200);
      expect(page.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
      await page.arrayBuffer();
    }
    const token = await mintAccessToken(resolveServerConfig({ jwt: { secret } }).jwt, { email: "ann@example.org", orgId: "org-1" });
    const me = await fetch(`${b}/ui/api/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await me.json()).toEqual({ email: "ann@example.org", orgId: "org-1", roles: ["user"], groups: [] });
    const text = await (await fetch(`${a}/metrics`)).text();
    expect(text).toContain("# TYPE docqa_http_requests_total counter");
    expect(text).toContain("# TYPE process_cpu_seconds_total counter");
    const requests = await metrics?.registry.getSingleMetric("docqa_http_requests_total")?.get();
    const counted = (requests?.values ?? []).map(
      ({ labels, value }) => `${labels.set} ${labels.method} ${labels.route} ${labels.status} ${value}`,
    );
    // The scrape itself is counted too.
    expect(counted.sort()).toEqual(["a GET /metrics 200 1", "a GET /ui 200 1", "b GET /ui 200 1", "b GET /ui/api/me 200 1"]);
  });

  it("protects /metrics with METRICS_TOKEN, and serves neither metrics nor page when both are off", async () => {
    const { b } = await serve({ metrics: "token", metricsToken: "scrape-token-0123456789" });
    expect((await fetch(`${b}/metrics`)).status).toBe(401);
    expect((await fetch(`${b}/metrics`, { headers: { Authorization: "Bearer scrape-token-0123456789" } })).status).toBe(200);
    const off = await serve({ metrics: "off", webUi: false });
    for (const path of ["/metrics", "/ui"]) {
      const response = await fetch(`${off.b}${path}`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });

  it("refuses METRICS=token without a long enough METRICS_TOKEN before anything starts", () => {
    const server = resolveServerConfig({ metrics: "token", metricsToken: "short" });
    expect(() => serveOperations({ server, version: "0.1.0" })).toThrow(DocqaError);
  });
});
