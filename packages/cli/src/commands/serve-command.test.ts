import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createInMemoryJobStore,
  createRagService,
  type DeepPartial,
  mintAccessToken,
  type RagService,
  resolveConfig,
  type ServiceHealth,
} from "@docqa/core";
import { loadServerConfig, resolveServerConfig, type ServerConfig } from "@docqa/http";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import {
  type RunningServers,
  registerServeCommand,
  type ServeSettings,
  sharedRateLimiters,
  startServers,
  startupModelNote,
} from "./serve-command.js";

const secret = "serve-command-secret-0123456789-0123456789";
const running: RunningServers[] = [];
const services: RagService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((servers) => servers.close()));
  await Promise.all(services.splice(0).map((service) => service.close()));
});

function newService(): RagService {
  const service = createRagService({
    config: {
      stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-serve-command-")) },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
    },
    embeddings: null,
    jobStore: createInMemoryJobStore(),
  });
  services.push(service);
  return service;
}

interface SettingsOverrides {
  api?: ServeSettings["api"];
  server?: DeepPartial<ServerConfig>;
}

const settings = (overrides: SettingsOverrides = {}): ServeSettings => ({
  api: overrides.api ?? "both",
  server: resolveServerConfig({ host: "127.0.0.1", port: 0, portB: 0, jwt: { secret }, ...overrides.server }),
});

async function start(service: RagService, overrides: SettingsOverrides = {}) {
  const servers = await startServers(service, settings(overrides));
  running.push(servers);
  return Object.fromEntries(servers.servers.map((server) => [server.api, server.url])) as { a?: string; b?: string };
}

const token = () => mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: "ann@example.org", orgId: "org-1" });
const predict = (url: string, bearer: string) =>
  fetch(`${url}/predict`, {
    method: "POST",
    headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query: "anything", user_info: { user_name: "ann@example.org" } }),
  });
const search = (url: string, bearer: string) =>
  fetch(`${url}/api/search`, {
    method: "POST",
    headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query: "anything" }),
  });

/** Sends `request` as raw bytes to the server at `url` and resolves with everything it answers. */
function rawRequest(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
}

describe("startServers", () => {
  it("serves set A and set B on their own ports over one service; only set B is rate limited by default", async () => {
    const urls = await start(newService());
    expect(urls.a).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(urls.b).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(urls.a).not.toBe(urls.b);
    expect(await (await fetch(`${urls.a}/healthz`)).json()).toMatchObject({ status: "ok" });
    const unknown = await fetch(`${urls.a}/health`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "no route GET /health", code: "not_found" });
    // /testpredict is disabled by default: a JSON 404 like any unknown route, not Hono's plain text.
    const testPredict = await fetch(`${urls.a}/testpredict`, { method: "POST", body: "{}" });
    expect(testPredict.status).toBe(404);
    expect(await testPredict.json()).toEqual({ detail: "no route POST /testpredict", code: "not_found" });
    expect(await (await fetch(`${urls.b}/health`)).json()).toMatchObject({ status: "ok", version: "0.1.0" });
    expect(await (await fetch(`${urls.b}/healthz`)).json()).toEqual({ error: { code: "not_found", message: "no route GET /healthz" } });
    const bearer = await token();
    const answer = await predict(urls.a as string, bearer);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("RateLimit-Limit")).toBeNull();
    const found = await search(urls.b as string, bearer);
    expect(found.status).toBe(200);
    expect(found.headers.get("RateLimit-Policy")).toBe("100;w=60, 1000;w=3600");
    for (const url of [urls.a, urls.b]) {
      for (const page of ["/docs", "/redoc"]) {
        const response = await fetch(`${url}${page}`);
        expect(response.status).toBe(200);
        expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
      }
    }
  });

  it("answers headers of 16 KiB or more, and a malformed request, with each set's JSON error body, not an empty one", async () => {
    const urls = await start(newService());
    const large = { "X-Padding": "x".repeat(16 * 1024) };
    const a = await fetch(`${urls.a}/healthz`, { headers: large });
    expect(a.status).toBe(431);
    expect(a.headers.get("Content-Type")).toBe("application/json");
    expect(await a.json()).toEqual({
      detail: expect.stringMatching(/^the request's headers are larger than the server accepts/),
      code: "headers_too_large",
    });
    const b = await fetch(`${urls.b}/api/search`, {
      method: "POST",
      headers: { ...large, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(b.status).toBe(431);
    expect(await b.json()).toEqual({ error: { code: "headers_too_large", message: expect.stringContaining("16 KiB") } });
    // A request line Node cannot parse: 400 in the set's shape.
    const raw = await rawRequest(urls.b as string, "GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
      error: { code: "invalid_request", message: "the request is not valid HTTP/1.1" },
    });
  });

  it("serves one set with --api a or --api b", async () => {
    expect(Object.keys(await start(newService(), { api: "a" }))).toEqual(["a"]);
    expect(Object.keys(await start(newService(), { api: "b" }))).toEqual(["b"]);
  });

  it("with RATE_LIMIT_SET_A, set A is limited in its own error shape, from the same per-user budget as set B", async () => {
    const urls = await start(newService(), { server: { rateLimits: { setA: true, perMinute: 2, perHour: 100 } } });
    const bearer = await token();
    // Requests without a valid token are not counted; set A answers them.
    expect((await predict(urls.a as string, "not-a-token")).status).toBe(401);
    const first = await predict(urls.a as string, bearer);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Remaining")).toBe("1");
    expect((await search(urls.b as string, bearer)).status).toBe(200);
    const limited = await predict(urls.a as string, bearer);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      detail: expect.stringMatching(/^rate limit exceeded: 2 requests per minute per user; retry after \d+ s$/),
      code: "rate_limited",
    });
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await search(urls.b as string, bearer)).status).toBe(429);
    expect((await fetch(`${urls.a}/healthz`)).status).toBe(200);
  });

  it("fails with a clear message when a port is in use, closing what it started", async () => {
    const first = await start(newService(), { api: "b" });
    const port = Number(new URL(first.b as string).port);
    const error = await startServers(newService(), settings({ server: { portB: port } })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "config_invalid", message: expect.stringContaining(`port ${port} on 127.0.0.1 is in use`) });
  });
});

describe("sharedRateLimiters", () => {
  it("counts in this process without CACHE_URL or CACHE_HOST, one limiter per window, none when both are 0", async () => {
    const config = resolveConfig({ stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-serve-command-")) } });
    const counters = await sharedRateLimiters(config, { perMinute: 100, perHour: 1000 });
    expect(counters.store).toBe("memory");
    expect(counters.limiters.map((limiter) => limiter.limits)).toEqual([
      [{ points: 100, durationSeconds: 60 }],
      [{ points: 1000, durationSeconds: 3600 }],
    ]);
    expect((await sharedRateLimiters(config, { perMinute: 0, perHour: 0 })).limiters).toEqual([]);
  });
});

describe("serve settings in loadServerConfig", () => {
  it("reads PORT_B and the rate limits with their defaults", () => {
    const defaults = loadServerConfig({});
    expect({ portB: defaults.portB, rateLimits: defaults.rateLimits }).toEqual({
      portB: 8000,
      rateLimits: { perMinute: 100, perHour: 1000, setA: false },
    });
    const set = loadServerConfig({ PORT_B: "9000", RATE_LIMIT_PER_MINUTE: "10", RATE_LIMIT_PER_HOUR: "0", RATE_LIMIT_SET_A: "true" });
    expect({ portB: set.portB, rateLimits: set.rateLimits }).toEqual({
      portB: 9000,
      rateLimits: { perMinute: 10, perHour: 0, setA: true },
    });
  });

  it("rejects values that are not whole numbers or booleans, naming the variable", () => {
    expect(() => loadServerConfig({ RATE_LIMIT_PER_MINUTE: "lots" })).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadServerConfig({ RATE_LIMIT_SET_A: "maybe" })).toThrow(/RATE_LIMIT_SET_A/);
  });
});

describe("docqa serve options", () => {
  it("rejects an --api other than a, b or both", async () => {
    const program = new Command().exitOverride();
    registerServeCommand(program);
    await expect(program.parseAsync(["node", "docqa", "serve", "--api", "c"])).rejects.toMatchObject({ code: "config_invalid" });
  });

  it("documents --api, --port and --port-b", () => {
    const program = new Command();
    registerServeCommand(program);
    const serveCommand = program.commands.find((command) => command.name() === "serve");
    expect(serveCommand?.options.map((option) => option.long)).toEqual(["--api", "--port", "--port-b", "--host", "--data-dir"]);
    expect(serveCommand?.options[0]?.defaultValue).toBe("both");
  });
});

describe("startupModelNote", () => {
  const health = (embeddings: ServiceHealth["embeddings"], chatModel: ServiceHealth["chatModel"]): ServiceHealth => ({
    status: "ok",
    embeddings,
    stores: { vector: "embedded", keyword: "embedded" },
    answerer: "extractive",
    chatModel,
    reranker: null,
  });

  it("says once, at start, why there is no embedding model and no chat model", () => {
    expect(
      startupModelNote(
        health(
          { status: "disabled", model: "Xenova/bge-base-en-v1.5", detail: "no embedding model configured" },
          { status: "disabled", detail: "no chat model configured" },
        ),
      ),
    ).toBe("note: no embedding model configured; no chat model configured\n");
  });

  it("says nothing when both models are ready, nor again for a model that failed to load (already warned)", () => {
    const ready = health({ status: "ready", model: "bge-small" }, { status: "ready", provider: "openai", model: "gpt-4o-mini" });
    expect(startupModelNote(ready)).toBeUndefined();
    const failed = health({ status: "unavailable", model: "bge-small", detail: "cannot load" }, { status: "ready" });
    expect(startupModelNote(failed)).toBeUndefined();
  });
});
