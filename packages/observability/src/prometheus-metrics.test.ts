import { chatRoutes } from "@docqa/chat-api";
import { DocqaError, mintAccessToken, type RagService } from "@docqa/core";
import { createTestService } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricsHandlers } from "./metrics-handler.js";
import { createPrometheusMetrics, type PrometheusMetrics } from "./prometheus-metrics.js";

const secret = "metrics-test-secret-0123456789-0123456789";
const server = resolveServerConfig({ jwt: { secret } });
const orgId = "org-metrics";

/** The value of one sample of the exposition text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

let metrics: PrometheusMetrics;
let service: RagService;
let token: string;

beforeAll(async () => {
  metrics = createPrometheusMetrics({ processMetrics: false });
  service = createTestService({ metrics: metrics.serviceMetrics });
  metrics.observeService(service);
  token = await mintAccessToken(server.jwt, { email: "ann@example.org", orgId });
});
afterAll(() => service.close());

describe("createPrometheusMetrics", () => {
  it("counts requests per set, route and status, stage latencies, answers, ingestion, embeddings and rate-limit rejections", async () => {
    const app = chatRoutes(service, { server, rateLimit: { perMinute: 3, perHour: 100 }, middleware: [metrics.httpMiddleware("b")] });
    const headers = { Authorization: `Bearer ${token}` };
    const form = new FormData();
    form.append("files", new File(["# Leave\n\nNew employees receive 20 vacation days per year.\n"], "leave.md"));
    form.append("files", new File(['{"broken": '], "broken.json"));
    const ingest = await app.request("/api/ingest", { method: "POST", headers, body: form });
    expect(ingest.status).toBe(200);
    const chat = await app.request("/api/chat", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ message: "How many vacation days do new employees get?", sessionId: "session-metrics" }),
    });
    expect(chat.status).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      statuses.push((await app.request("/api/ingest/none", { headers })).status);
    }
    expect(statuses).toEqual([404, 429]);
    expect((await app.request("/api/chat", { method: "POST" })).status).toBe(401);

    const text = await metrics.registry.metrics();
    expect(sample(text, "docqa_http_requests_total", { set: "b", method: "POST", route: "/api/chat", status: "200" })).toBe(1);
    expect(sample(text, "docqa_http_requests_total", { set: "b", method: "POST", route: "/api/chat", status: "401" })).toBe(1);
    expect(sample(text, "docqa_http_requests_total", { set: "b", method: "GET", route: "/api/ingest/:jobId", status: "429" })).toBe(1);
    expect(sample(text, "docqa_http_request_duration_seconds_count", { set: "b", route: "/api/ingest", status: "200" })).toBe(1);
    expect(sample(text, "docqa_rate_limit_rejections_total", { set: "b", route: "/api/ingest/:jobId" })).toBe(1);
    expect(
      sample(text, "docqa_pipeline_stage_duration_seconds_count", { pipeline: "predict", stage: "retrieve", phase: "retrieval" }),
    ).toBe(1);
    expect(
      sample(text, "docqa_pipeline_stage_duration_seconds_count", { pipeline: "predict", stage: "generate", phase: "generation" }),
    ).toBe(1);
    expect(sample(text, "docqa_answers_total", { mode: "extractive", abstained: "false", abstention_reason: "none" })).toBe(1);
    expect(sample(text, "docqa_ingestion_files_total", { outcome: "ingested", code: "none" })).toBe(1);
    expect(sample(text, "docqa_ingestion_files_total", { outcome: "rejected", code: "corrupt_file" })).toBe(1);
    expect(sample(text, "docqa_ingestion_documents_total", { status: "written" })).toBe(1);
    expect(sample(text, "docqa_ingestion_chunks_total", { kind: "chunk" })).toBe(1);
    expect(sample(text, "docqa_embedding_texts_total", { operation: "documents" })).toBe(1);
    expect(sample(text, "docqa_embedding_texts_total", { operation: "query" })).toBe(1);
    expect(sample(text, "docqa_embedding_duration_seconds_count", { operation: "query", outcome: "ok" })).toBe(1);
    expect(sample(text, "docqa_open_organisation_stores")).toBe(1);
  });

  it("counts store failures as backend errors and failed stages", async () => {
    const failing = createPrometheusMetrics({ processMetrics: false });
    const closed = createTestService({ embeddings: null, metrics: failing.serviceMetrics });
    await closed.ready();
    await closed.close();
    const principal = { userName: "ann@example.org", roles: [], groups: [] };
    await expect(closed.search({ orgId, principal, query: "vacation" })).rejects.toMatchObject({ code: "store_unavailable" });
    const text = await failing.registry.metrics();
    expect(sample(text, "docqa_backend_errors_total", { backend: "embedded", operation: "search_text", code: "store_unavailable" })).toBe(
      1,
    );
    expect(sample(text, "docqa_pipeline_stage_failures_total", { pipeline: "search", stage: "retrieve", code: "store_unavailable" })).toBe(
      1,
    );
  });
});

describe("sweeper and reindex metrics", () => {
  it("counts sweeper passes, removed versions and chunks, and reads the vector index detail of health()", async () => {
    const own = createPrometheusMetrics({ processMetrics: false });
    own.serviceMetrics.swept?.({ versionsRemoved: 2, chunksRemoved: 7, pending: 1, failures: 0, seconds: 0.2 });
    own.serviceMetrics.swept?.({ versionsRemoved: 1, chunksRemoved: 3, pending: 0, failures: 1, seconds: 0.1 });
    const health = await service.health();
    own.observeService({
      statistics: () => service.statistics(),
      health: async () => ({ ...health, vectorIndexes: { otherModel: 3, reindexing: 1 } }),
    });
    const text = await own.registry.metrics();
    expect(sample(text, "docqa_sweep_passes_total", { outcome: "ok" })).toBe(1);
    expect(sample(text, "docqa_sweep_passes_total", { outcome: "error" })).toBe(1);
    expect(sample(text, "docqa_swept_versions_total")).toBe(3);
    expect(sample(text, "docqa_swept_chunks_total")).toBe(10);
    expect(sample(text, "docqa_vector_indexes_other_model")).toBe(3);
    expect(sample(text, "docqa_reindex_jobs_running")).toBe(1);
  });
});

describe("metricsHandlers", () => {
  const routes = (access: "open" | "token") => {
    const app = chatRoutes(service, { server, rateLimit: false });
    app.get("/metrics", ...(metricsHandlers(metrics, { access, token: "scrape-token-0123456789" }) as [never]));
    return app;
  };

  it("serves the exposition format openly", async () => {
    const response = await routes("open").request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await response.text()).toContain("# TYPE docqa_answers_total counter");
  });

  it("requires the bearer token when protected", async () => {
    const app = routes("token");
    expect((await app.request("/metrics")).status).toBe(401);
    expect((await app.request("/metrics", { headers: { Authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const response = await app.request("/metrics", { headers: { Authorization: "Bearer scrape-token-0123456789" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("docqa_http_requests_total");
  });

  it("refuses a missing or short token at start-up", () => {
    const error = (() => {
      try {
        metricsHandlers(metrics, { access: "token", token: "short" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(DocqaError.isInstance(error) && error.code).toBe("config_invalid");
    expect((error as Error).message).toMatch(/METRICS_TOKEN of at least 16 characters/);
  });
});
