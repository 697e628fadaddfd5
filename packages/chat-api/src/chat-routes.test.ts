import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createInMemoryJobStore, DocqaError, type JobStore, mintAccessToken, noInformationSentence } from "@docqa/core";
import { type RateLimitPolicy, resolveServerConfig } from "@docqa/http";
import { createRouteTests, type RouteTest, type RouteTestOptions, responseProblems } from "@docqa/http/testing";
import { predictRoutes } from "@docqa/predict-api";
import { createRateLimiter } from "@docqa/redis";
import { Hono } from "hono";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { type ChatPredictRequest, chatRoutes } from "./chat-routes.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const orgB = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const testServer = resolveServerConfig({ jwt: { secret } });
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const routes = createRouteTests<ReturnType<typeof chatRoutes>, { rateLimit?: RateLimitPolicy | false | undefined }>(
  (service, server, options) => chatRoutes(service, { server, rateLimit: options?.rateLimit ?? false }),
  { jwt: { secret } },
);
afterEach(routes.close);
type Harness = RouteTest<ReturnType<typeof chatRoutes>>;

function harness(options: Omit<RouteTestOptions, "routes"> & { rateLimit?: RateLimitPolicy | false } = {}): Harness {
  const { rateLimit, ...rest } = options;
  return routes.harness({ ...rest, routes: { rateLimit } });
}

function tokenFor(email: string, orgId = orgA, extra: { expiresInSeconds?: number } = {}) {
  return mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId, ...extra });
}

function postJson(app: Harness["app"], path: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function upload(
  app: Harness["app"],
  files: { name: string; content: string | Uint8Array }[],
  token?: string,
  options: { metadata?: string; query?: string } = {},
) {
  const form = new FormData();
  for (const file of files) form.append("files", new File([file.content], file.name));
  if (options.metadata !== undefined) form.append("metadata", options.metadata);
  // Sent as bytes, as a client sends them: undici's own FormData stream fails when a server stops
  // reading it half-way (a test-only artefact), which the upload limits do.
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  return app.request(`/api/ingest${options.query ?? ""}`, {
    method: "POST",
    headers: { "Content-Type": encoded.headers.get("Content-Type") as string, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body,
  });
}

let openApi: Record<string, unknown>;
beforeAll(async () => {
  const { app } = harness();
  openApi = (await (await app.request("/openapi.json")).json()) as Record<string, unknown>;
});

/** Asserts `body` conforms to the OpenAPI document's schema for the response. */
function expectConforms(method: string, path: string, status: number, body: unknown) {
  expect(responseProblems(openApi, method, path, status, body)).toEqual([]);
}

async function expectError(response: Response, status: number, code: string): Promise<{ code: string; message: string }> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toBeTruthy();
  return body.error;
}

const everyone = JSON.stringify({ acl: "|user:_all_|" });

describe("GET /health", () => {
  it("answers status, an ISO 8601 UTC timestamp and the package version, without a token", async () => {
    const { app } = harness();
    const before = Date.now();
    const response = await app.request("/health");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; timestamp: string; version: string };
    expect(body).toEqual({
      status: "ok",
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      version: packageJson.version,
    });
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(body.timestamp)).toBeLessThanOrEqual(Date.now());
    expectConforms("get", "/health", 200, body);
  });
});

describe("GET /readyz", () => {
  it("answers 200 ready with one check per backend role, without a token", async () => {
    const { app } = harness();
    const response = await app.request("/readyz");
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const body = (await response.json()) as { status: string; checks: { role: string; backend: string; status: string }[] };
    expect(body.status).toBe("ready");
    expect(body.checks.map(({ role, backend, status }) => [role, backend, status])).toEqual([
      ["startup", "docqa", "up"],
      ["vector", "embedded", "up"],
      ["keyword", "embedded", "up"],
      ["jobs", "memory", "up"],
      ["memory", "in-memory", "up"],
    ]);
    expectConforms("get", "/readyz", 200, body);
  });

  it("answers 503 naming the backend that is down, and refuses an upload before creating a job", async () => {
    const jobs = createInMemoryJobStore();
    let saved = 0;
    const h = harness({
      stores: (store) => ({
        ...store,
        ping: async () => {
          throw new DocqaError("store_unavailable", "DATA_DIR /data is not a writable directory: EROFS", { component: "embedded-store" });
        },
      }),
      jobStore: {
        ...jobs,
        save: async (job) => {
          saved++;
          await jobs.save(job);
        },
      },
    });
    const response = await h.app.request("/readyz");
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; detail: string };
    expect(body.status).toBe("not_ready");
    expect(body.detail).toBe(
      "embedded (vector index) is down: DATA_DIR /data is not a writable directory: EROFS; embedded (keyword index) is down: DATA_DIR /data is not a writable directory: EROFS",
    );
    expectConforms("get", "/readyz", 503, body);

    const token = await tokenFor("ann@a.example");
    const refused = await upload(h.app, [{ name: "vacation.txt", content: "New employees receive 20 vacation days." }], token);
    const error = await expectError(refused, 503, "store_unavailable");
    expect(error.message).toContain("the ingestion was not accepted: embedded (vector index) is down");
    expect(saved).toBe(0);
  });
});

describe("GET /api/reindex", () => {
  it("tells the token's organisation which model its vector index holds, and its latest reindex job", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    const empty = await h.app.request("/api/reindex", { headers: { Authorization: `Bearer ${token}` } });
    expect(empty.status).toBe(200);
    const emptyBody = await empty.json();
    expect(emptyBody).toEqual({
      orgId: orgA,
      configuredModel: { id: "docqa-deterministic-hash-64", dimension: 64 },
      indexModel: null,
      vectors: "empty",
      job: null,
    });
    expectConforms("get", "/api/reindex", 200, emptyBody);
    await upload(h.app, [{ name: "vacation.txt", content: "New employees receive 20 vacation days." }], token, { metadata: everyone });
    const current = await (await h.app.request("/api/reindex", { headers: { Authorization: `Bearer ${token}` } })).json();
    expect(current).toMatchObject({ vectors: "current", indexModel: { id: "docqa-deterministic-hash-64", dimension: 64 }, job: null });
    expect((await h.app.request("/api/reindex")).status).toBe(401);
  });
});

describe("reference pages and OpenAPI document", () => {
  it("serve /openapi.json, /docs and /redoc without a token, listing every set B endpoint and error", async () => {
    const { app } = harness();
    expect(Object.keys(openApi.paths as object).sort()).toEqual([
      "/api/chat",
      "/api/documents",
      "/api/documents/{id}",
      "/api/ingest",
      "/api/ingest/{jobId}",
      "/api/memory",
      "/api/reindex",
      "/api/search",
      "/health",
      "/readyz",
    ]);
    const paths = openApi.paths as Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>;
    for (const [path, methods] of Object.entries(paths)) {
      for (const operation of Object.values(methods)) {
        if (path === "/health" || path === "/readyz") {
          expect(operation.security).toBeUndefined();
          continue;
        }
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "413", "415", "429", "500", "503"]));
      }
    }
    for (const page of ["/docs", "/redoc"]) {
      const response = await app.request(page);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain('"/openapi.json"');
      expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
    }
  });
});

describe("POST /api/ingest and GET /api/ingest/{jobId}", () => {
  it("ingests several files in the field files and reports the finished job", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    const response = await upload(
      h.app,
      [
        { name: "vacation.txt", content: "New employees receive 20 vacation days in their first year." },
        { name: "printing.md", content: "# Printing\n\nColour printing is limited to 200 pages per month." },
      ],
      token,
      { metadata: everyone },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      success: true,
      documentsProcessed: 2,
      jobId: expect.stringMatching(uuidPattern),
      state: "succeeded",
      files: { total: 2, processed: 2, ingested: 2, unchanged: 0, failed: 0 },
      errors: [],
    });
    expectConforms("post", "/api/ingest", 200, body);
    expect(response.headers.get("RateLimit-Limit")).toBeNull();

    const job = await h.app.request(`/api/ingest/${body.jobId}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(job.status).toBe(200);
    const jobBody = (await job.json()) as Record<string, unknown>;
    expect(jobBody).toMatchObject({ jobId: body.jobId, state: "succeeded", success: true, documentsProcessed: 2, errors: [] });
    expectConforms("get", "/api/ingest/{jobId}", 200, jobBody);

    // Re-uploading the same bytes is a no-op.
    const again = await upload(
      h.app,
      [{ name: "vacation.txt", content: "New employees receive 20 vacation days in their first year." }],
      token,
      {
        metadata: everyone,
      },
    );
    expect(await again.json()).toMatchObject({ success: true, documentsProcessed: 0, files: { unchanged: 1 } });
  });

  it("the job is isolated by organisation: another organisation's token gets 404", async () => {
    const h = harness();
    const response = await upload(h.app, [{ name: "a.txt", content: "Alpha." }], await tokenFor("ann@a.example"));
    const { jobId } = (await response.json()) as { jobId: string };
    const other = await h.app.request(`/api/ingest/${jobId}`, {
      headers: { Authorization: `Bearer ${await tokenFor("carol@b.example", orgB)}` },
    });
    await expectError(other, 404, "not_found");
    const unknown = await h.app.request("/api/ingest/00000000-0000-4000-8000-000000000000", {
      headers: { Authorization: `Bearer ${await tokenFor("ann@a.example")}` },
    });
    await expectError(unknown, 404, "not_found");
  });

  it("wait=false answers 202 with the queued job, which then finishes", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    const response = await upload(h.app, [{ name: "a.txt", content: "Alpha beta gamma." }], token, { query: "?wait=false" });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { jobId: string; state: string; success: boolean; documentsProcessed: number };
    expect(body).toMatchObject({ state: "queued", success: true, documentsProcessed: 0 });
    expectConforms("post", "/api/ingest", 202, body);
    // A generous bound: on a loaded machine the job may take seconds to start.
    await vi.waitFor(
      async () => {
        const job = await (await h.app.request(`/api/ingest/${body.jobId}`, { headers: { Authorization: `Bearer ${token}` } })).json();
        expect(job).toMatchObject({ state: "succeeded", documentsProcessed: 1 });
      },
      { timeout: 30_000, interval: 10 },
    );
  });

  it("reports rejected files with their reason and success false, keeping the good ones", async () => {
    const h = harness();
    const response = await upload(
      h.app,
      [
        { name: "good.txt", content: "Good content." },
        { name: "empty.txt", content: "" },
      ],
      await tokenFor("ann@a.example"),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      success: false,
      documentsProcessed: 1,
      state: "partially_failed",
      errors: [{ file: "empty.txt", code: "empty_file", message: expect.any(String) }],
    });
  });

  it("400 without files, with a non-file value, with invalid metadata, or with a file name given twice", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    const empty = new FormData();
    empty.append("metadata", "{}");
    const missing = await expectError(
      await h.app.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: empty }),
      400,
      "invalid_request",
    );
    expect(missing.message).toMatch(/^files: /);
    const text = new FormData();
    text.append("files", "not a file");
    await expectError(
      await h.app.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: text }),
      400,
      "invalid_request",
    );
    const metadata = await expectError(
      await upload(h.app, [{ name: "a.txt", content: "A" }], token, { metadata: "[1]" }),
      400,
      "invalid_request",
    );
    expect(metadata.message).toBe("the form field metadata must be a JSON object");
    const twice = await expectError(
      await upload(
        h.app,
        [
          { name: "a.txt", content: "A" },
          { name: "a.txt", content: "B" },
        ],
        token,
      ),
      400,
      "invalid_request",
    );
    expect(twice.message).toBe("a.txt is uploaded twice in one request");
  });

  it("415 for an unsupported file type (nothing of the batch is ingested) and for a JSON body", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    const error = await expectError(
      await upload(
        h.app,
        [
          { name: "ok.txt", content: "fine" },
          { name: "tool.exe", content: "MZ" },
        ],
        token,
      ),
      415,
      "unsupported_file_type",
    );
    expect(error.message).toContain("tool.exe");
    expect(
      await h.service.search({ orgId: orgA, principal: { userName: "ann@a.example", roles: [], groups: [] }, query: "fine" }),
    ).toMatchObject({
      results: [],
      total: 0,
    });
    await expectError(await postJson(h.app, "/api/ingest", { files: [] }, token), 415, "unsupported_media_type");
  });

  it("413 for a file larger than MAX_UPLOAD_BYTES and for more files than MAX_UPLOAD_FILES; nothing is kept on disk", async () => {
    const h = harness({ config: { ingestion: { maxUploadBytes: 2048 } }, server: { limits: { maxUploadFiles: 2 } } });
    const token = await tokenFor("ann@a.example");
    const error = await expectError(await upload(h.app, [{ name: "big.txt", content: "x".repeat(4096) }], token), 413, "file_too_large");
    expect(error.message).toBe("big.txt exceeds 2048 bytes (MAX_UPLOAD_BYTES)");
    const files = ["a.txt", "b.txt", "c.txt"].map((name) => ({ name, content: `Content of ${name}.` }));
    const many = await expectError(await upload(h.app, files, token), 413, "too_many_files");
    expect(many.message).toBe("the upload holds more than 2 files (MAX_UPLOAD_FILES)");
    expect(readdirSync(join(h.service.config.stores.dataDir, "uploads"))).toEqual([]);
    // Within the limits, the upload is ingested and its spooled files are removed afterwards.
    const fine = await upload(h.app, files.slice(0, 2), token);
    expect(fine.status).toBe(200);
    expect(readdirSync(join(h.service.config.stores.dataDir, "uploads"))).toEqual([]);
  });

  it("400 for metadata /upsert refuses (an acl that is a list, a number or null), as /upsert answers it; nothing is ingested", async () => {
    const h = harness();
    const token = await tokenFor("ann@a.example");
    for (const [acl, received] of [
      [["|user:_all_|"], "array"],
      [5, "number"],
      [null, "null"],
    ] as const) {
      for (const query of ["", "?wait=false"]) {
        const response = await upload(h.app, [{ name: "shared.txt", content: "A shared memo." }], token, {
          metadata: JSON.stringify({ acl }),
          query,
        });
        const error = await expectError(response, 400, "invalid_request");
        expect(error.message).toBe(`metadata.acl: Invalid input: expected string, received ${received}`);
      }
    }
    const owner = await expectError(
      await upload(h.app, [{ name: "a.txt", content: "A" }], token, { metadata: '{"owner_id": 7}' }),
      400,
      "invalid_request",
    );
    expect(owner.message).toBe("metadata.owner_id: Invalid input: expected string, received number");
    expect(
      (await h.service.listDocuments({ orgId: orgA, principal: { userName: "ann@a.example", roles: ["admin"], groups: [] } })).documents,
    ).toEqual([]);
    expect(readdirSync(join(h.service.config.stores.dataDir, "uploads"))).toEqual([]);
  });

  it("stores ACL entries and owners normalised (NFKC, no default-ignorable code points, lower-cased)", async () => {
    const h = harness();
    const token = await tokenFor("Ann@A.example");
    const metadata = JSON.stringify({ acl: "|user:_all_|deny:ｂｏｂ\u200B@A.example|group:H\u00ADR|" });
    expect((await upload(h.app, [{ name: "memo.txt", content: "A memo." }], token, { metadata })).status).toBe(200);
    const shown = (await (
      await h.app.request(`/api/documents/${encodeURIComponent("ann@a.example/memo.txt")}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as {
      owner: string;
      acl: string;
    };
    expect(shown).toMatchObject({ owner: "ann@a.example", acl: "|user:_all_|deny:bob@a.example|group:hr|" });
  });

  it("400 json_too_deep for a metadata field nested deeper than MAX_JSON_DEPTH", async () => {
    const h = harness({ config: { ingestion: { maxJsonDepth: 8 } } });
    const deep = `{"a":${"[".repeat(20)}${"]".repeat(20)}}`;
    const error = await expectError(
      await upload(h.app, [{ name: "a.txt", content: "A" }], await tokenFor("ann@a.example"), { metadata: deep }),
      400,
      "json_too_deep",
    );
    expect(error.message).toBe("the form field metadata is nested more than 8 levels deep (MAX_JSON_DEPTH)");
  });

  it("503 ingestion_busy with Retry-After when INGESTION_QUEUE_SIZE requests are in progress, before reading the upload", async () => {
    // A job store whose saves wait for a gate: the first ingestion holds the one place until released.
    const store = createInMemoryJobStore();
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const jobStore: JobStore = { ...store, save: async (job) => gate.then(() => store.save(job)) };
    const h = harness({ config: { ingestion: { queueSize: 1 } }, jobStore });
    const token = await tokenFor("ann@a.example");
    const first = h.service.ingestFiles({
      orgId: orgA,
      principal: { userName: "ann@a.example", roles: [], groups: [] },
      files: [{ name: "first.txt", bytes: new TextEncoder().encode("First content.") }],
    });
    const busy = await upload(h.app, [{ name: "b.txt", content: "B" }], token);
    const error = await expectError(busy, 503, "ingestion_busy");
    expect(error.message).toMatch(/^1 ingestion requests are in progress \(INGESTION_QUEUE_SIZE is 1\); retry after \d+ s$/);
    expect(busy.headers.get("Retry-After")).toBe("5");
    open();
    expect((await first).state).toBe("succeeded");
    expect((await upload(h.app, [{ name: "b.txt", content: "B" }], token)).status).toBe(200);
  });
});

describe("POST /api/search", () => {
  let h: Harness;
  let ann: string;

  async function seed() {
    h = harness();
    ann = await tokenFor("ann@a.example");
    const files = [
      { name: "travel.txt", content: "Travel expenses are reimbursed within 30 days. Travel must be booked through the portal." },
      { name: "travel-guide.md", content: "# Travel guide\n\nTravel in business class is allowed for flights over six hours." },
      { name: "travel.csv", content: "city,travel allowance\nParis,120\nBerlin,100\n" },
    ];
    expect(
      (await upload(h.app, files, ann, { metadata: JSON.stringify({ acl: "|user:_all_|", department: "finance", source: "wiki" }) }))
        .status,
    ).toBe(200);
    const dated = JSON.stringify({ acl: "|user:_all_|", department: "hr", source: "intranet", created_at: "2023-06-15T08:00:00.000Z" });
    expect(
      (await upload(h.app, [{ name: "old-travel.txt", content: "Old travel rules: travel by train only." }], ann, { metadata: dated }))
        .status,
    ).toBe(200);
  }

  it("returns id, content, score and metadata with filename and type, best first, and the total", async () => {
    await seed();
    const response = await postJson(h.app, "/api/search", { query: "travel" }, ann);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      results: { id: string; content: string; score: number; metadata: Record<string, unknown> }[];
      total: number;
    };
    expectConforms("post", "/api/search", 200, body);
    // A CSV file is one chunk per row: its two rows are results of their own.
    expect(body.total).toBe(5);
    expect([...new Set(body.results.map((result) => result.metadata.filename))].sort()).toEqual([
      "old-travel.txt",
      "travel-guide.md",
      "travel.csv",
      "travel.txt",
    ]);
    const travel = body.results.find((result) => result.metadata.filename === "travel.txt");
    expect(travel).toMatchObject({
      id: "ann@a.example/travel.txt::0",
      content: "Travel expenses are reimbursed within 30 days. Travel must be booked through the portal.",
      metadata: { filename: "travel.txt", type: "txt", department: "finance", source: "wiki", doc_id: "ann@a.example/travel.txt" },
    });
    const scores = body.results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));
  });

  it("filters.type returns only that type; a list of types, source, a created_at range and any metadata key filter too", async () => {
    await seed();
    const search = async (filters: Record<string, unknown>) => {
      const response = await postJson(h.app, "/api/search", { query: "travel", filters }, ann);
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: { metadata: { filename: string; type: string } }[] };
      return [...new Set(results.map((result) => result.metadata.filename))];
    };
    expect(await search({ type: "md" })).toEqual(["travel-guide.md"]);
    expect((await search({ type: ["txt", "csv"] })).sort()).toEqual(["old-travel.txt", "travel.csv", "travel.txt"]);
    expect(await search({ type: "pdf" })).toEqual([]);
    expect(await search({ source: "intranet" })).toEqual(["old-travel.txt"]);
    expect(await search({ department: "hr" })).toEqual(["old-travel.txt"]);
    expect((await search({ department: ["hr", "finance"], type: "txt" })).sort()).toEqual(["old-travel.txt", "travel.txt"]);
    expect(await search({ created_before: "2023-12-31" })).toEqual(["old-travel.txt"]);
    expect(await search({ created_before: "2023-06-15" })).toEqual(["old-travel.txt"]);
    expect(await search({ created_before: "2023-06-14" })).toEqual([]);
    expect(await search({ created_after: "2023-06-15T08:00:00Z", created_before: "2023-06-15T10:00:00+02:00" })).toEqual([
      "old-travel.txt",
    ]);
    expect((await search({ created_after: "2024-01-01" })).sort()).toEqual(["travel-guide.md", "travel.csv", "travel.txt"]);
    expect(await search({ created_at: { lte: "2023-07-01" } })).toEqual(["old-travel.txt"]);
  });

  it("limit defaults to 10 and caps the results; total counts every match, not only those returned", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    const files = Array.from({ length: 12 }, (_, index) => ({
      name: `memo-${index}.txt`,
      content: `Memo ${index} about the parking garage.`,
    }));
    await upload(h.app, files, ann);
    const all = (await (await postJson(h.app, "/api/search", { query: "parking garage" }, ann)).json()) as {
      results: unknown[];
      total: number;
    };
    expect(all.results).toHaveLength(10);
    expect(all.total).toBe(12);
    const three = (await (await postJson(h.app, "/api/search", { query: "parking garage", limit: 3 }, ann)).json()) as {
      results: unknown[];
      total: number;
    };
    expect(three.results).toHaveLength(3);
    expect(three.total).toBe(12);
    const one = (await (
      await postJson(h.app, "/api/search", { query: "parking garage", limit: 1, filters: { type: "txt" } }, ann)
    ).json()) as {
      results: unknown[];
      total: number;
    };
    expect(one).toMatchObject({ results: [expect.anything()], total: 12 });
    // Only what the user may read counts: Bob reads none of Ann's memos.
    const bob = await tokenFor("bob@a.example");
    expect(await (await postJson(h.app, "/api/search", { query: "parking garage", limit: 1 }, bob)).json()).toEqual({
      results: [],
      total: 0,
    });
    const hundred = (await (await postJson(h.app, "/api/search", { query: "parking garage", limit: 100 }, ann)).json()) as {
      results: unknown[];
    };
    expect(hundred.results).toHaveLength(12);
  });

  it("deny: holds against a token whose e-mail differs only by invisible or compatibility characters", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    // Stored before docqa normalised ACLs (written to the store directly), and through the API.
    await h.service.upsert({
      orgId: orgA,
      principal: { userName: "ann@a.example", roles: [], groups: [] },
      documents: {
        "plan.txt": { title: "Plan", content: "The secret merger plan.", metadata: { acl: "|user:_all_|deny:bob@a.example|" } },
      },
    });
    for (const email of ["bob\u200B@a.example", "b\u200Dob@a.example", "bo\u00ADb@a.example", "ｂｏｂ@a.example", "BOB@A.EXAMPLE"]) {
      const body = await (await postJson(h.app, "/api/search", { query: "merger plan" }, await tokenFor(email))).json();
      expect(body, email).toEqual({ results: [], total: 0 });
    }
    const carol = (await (await postJson(h.app, "/api/search", { query: "merger plan" }, await tokenFor("carol@a.example"))).json()) as {
      total: number;
    };
    expect(carol.total).toBe(1);
  });

  it("never returns documents the user may not read, nor another organisation's", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "private.txt", content: "The private salary table of Ann." }], ann);
    const own = (await (await postJson(h.app, "/api/search", { query: "salary table" }, ann)).json()) as { total: number };
    expect(own.total).toBe(1);
    const bob = (await (await postJson(h.app, "/api/search", { query: "salary table" }, await tokenFor("bob@a.example"))).json()) as {
      total: number;
    };
    expect(bob.total).toBe(0);
    const carol = (await (
      await postJson(h.app, "/api/search", { query: "salary table" }, await tokenFor("ann@a.example", orgB))
    ).json()) as {
      total: number;
    };
    expect(carol.total).toBe(0);
  });

  it("400 for a missing or empty query, a limit out of range, bad filters and malformed JSON; details name the fields", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    const missing = (await (await postJson(h.app, "/api/search", { limit: 5 }, ann)).json()) as {
      error: { code: string; details: { path: string }[] };
    };
    expect(missing.error.code).toBe("invalid_request");
    expect(missing.error.details.map((detail) => detail.path)).toEqual(["query"]);
    expectConforms("post", "/api/search", 400, missing);
    const tooMany = await expectError(await postJson(h.app, "/api/search", { query: "q", limit: 101 }, ann), 400, "invalid_request");
    expect(tooMany.message).toMatch(/^limit: /);
    await expectError(await postJson(h.app, "/api/search", { query: "q", limit: 0 }, ann), 400, "invalid_request");
    await expectError(await postJson(h.app, "/api/search", { query: "q", limit: 2.5 }, ann), 400, "invalid_request");
    await expectError(await postJson(h.app, "/api/search", { query: "   " }, ann), 400, "invalid_request");
    const date = await expectError(
      await postJson(h.app, "/api/search", { query: "q", filters: { created_after: "last week" } }, ann),
      400,
      "invalid_request",
    );
    expect(date.message).toMatch(/^filters\.created_after: /);
    await expectError(await postJson(h.app, "/api/search", { query: "q", filters: { page: {} } }, ann), 400, "invalid_request");
    await expectError(await postJson(h.app, "/api/search", { query: "q", filters: { page: { gt: 3 } } }, ann), 400, "invalid_request");
    const json = await expectError(await postJson(h.app, "/api/search", '{"query": ', ann), 400, "invalid_json");
    expect(json.message).toBe("the request body is not valid JSON");
  });

  it("400 invalid_request, never 500, for a filter key outside the key grammar (backslash, NUL, quote, space, JSON path syntax)", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "memo.txt", content: "A memo about the parking garage." }], ann);
    for (const key of ["a\\b", "a\u0000b", 'a"b', "a'b", "a b", "$.x", "a[0]", "", "k".repeat(129), "größe"]) {
      const response = await postJson(h.app, "/api/search", { query: "parking", filters: { [key]: "x" } }, ann);
      const error = await expectError(response, 400, "invalid_request");
      expect(error.message, JSON.stringify(key)).toContain("a filter key is 1 to 128 ASCII letters");
    }
    // The service refuses them too, whoever calls it.
    const principal = { userName: "ann@a.example", roles: [], groups: [] };
    for (const key of ["a\\b", "a\u0000b", 'a"b']) {
      await expect(
        h.service.search({ orgId: orgA, principal, query: "parking", metadata: [{ key, op: "eq", value: "x" }] }),
      ).rejects.toMatchObject({ code: "invalid_request" });
    }
  });

  it("400 invalid_request, never 500, for more than 32 filter keys (998 keys once made SQLite's expression tree too deep)", async () => {
    h = harness();
    ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "memo.txt", content: "A memo about the parking garage." }], ann);
    const filters = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`key${index}`, "x"]));
    expect((await postJson(h.app, "/api/search", { query: "parking", filters: filters(32) }, ann)).status).toBe(200);
    for (const count of [33, 998, 5000]) {
      const error = await expectError(
        await postJson(h.app, "/api/search", { query: "parking", filters: filters(count) }, ann),
        400,
        "invalid_request",
      );
      expect(error.message).toContain(`${count} filter keys; at most 32 are allowed`);
    }
    const principal = { userName: "ann@a.example", roles: [], groups: [] };
    const conditions = Array.from({ length: 998 }, (_, index) => ({ key: `key${index}`, op: "eq" as const, value: "x" }));
    await expect(h.service.search({ orgId: orgA, principal, query: "parking", metadata: conditions })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("998 conditions; at most 64 are allowed"),
    });
  });
});

describe("POST /api/chat", () => {
  it("answers with the Answer rendered as text with numbered citations, the cited file names, a confidence and the sessionId", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "vacation.txt", content: "New employees receive 20 vacation days in their first year." }], ann, {
      metadata: everyone,
    });
    const response = await postJson(h.app, "/api/chat", { message: "How many vacation days do new employees get?", sessionId: "s-1" }, ann);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { response: string; sources: string[]; confidence: number; sessionId: string };
    expectConforms("post", "/api/chat", 200, body);
    expect(body.response).toBe("New employees receive 20 vacation days in their first year. [1]\n\nSources:\n[1] vacation.txt");
    expect(body.sources).toEqual(["vacation.txt"]);
    expect(body.sessionId).toBe("s-1");
    expect(body).toMatchObject({ abstained: false, abstentionReason: null, unsupportedCitations: 0 });
    // One chunk found by both retrievers, the only item of each list: each normalised score is 1,
    // so R = 1; the one statement cites it, so C = 1.
    expect(body.confidence).toBe(1);
  });

  it("abstains with no_documents: the no-information sentence, no sources and confidence 0 when nothing is retrieved", async () => {
    const h = harness();
    const response = await postJson(
      h.app,
      "/api/chat",
      { message: "What is the parking policy?", sessionId: "s-2" },
      await tokenFor("ann@a.example"),
    );
    const body = await response.json();
    expectConforms("post", "/api/chat", 200, body);
    expect(body).toEqual({
      response: noInformationSentence,
      sources: [],
      confidence: 0,
      sessionId: "s-2",
      abstained: true,
      abstentionReason: "no_documents",
      unsupportedCitations: 0,
    });
  });

  it("abstains with low_relevance when what was retrieved is not about the message", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "vacation.txt", content: "New employees receive 20 vacation days in their first year." }], ann, {
      metadata: everyone,
    });
    const response = await postJson(
      h.app,
      "/api/chat",
      { message: "Which vacation destinations in Mongolia have the best hiking trails?", sessionId: "s-3" },
      ann,
    );
    expect(await response.json()).toEqual({
      response: noInformationSentence,
      sources: [],
      confidence: 0,
      sessionId: "s-3",
      abstained: true,
      abstentionReason: "low_relevance",
      unsupportedCitations: 0,
    });
  });

  it("abstains with confidence 0 and the reason when the documents are on the subject but do not answer", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    await upload(h.app, [{ name: "vacation.txt", content: "New employees receive 20 vacation days in their first year." }], ann, {
      metadata: everyone,
    });
    const response = await postJson(
      h.app,
      "/api/chat",
      { message: "How many vacation days do new employees get in 2031?", sessionId: "s-4" },
      ann,
    );
    expect(await response.json()).toEqual({
      response: noInformationSentence,
      sources: [],
      confidence: 0,
      sessionId: "s-4",
      abstained: true,
      // The question's year is in no document: the relevance or the answerability model declines.
      abstentionReason: expect.stringMatching(/^(not_answerable|low_relevance)$/),
      unsupportedCitations: 0,
    });
  });

  it("a follow-up passes context (previous messages) and the sessionId as thread to the service", async () => {
    const requests: ChatPredictRequest[] = [];
    const h = harness({
      wrap: (service) => ({
        ...service,
        predict: async (request) => {
          requests.push(request);
          return service.predict(request);
        },
      }),
    });
    const ann = await tokenFor("ann@a.example");
    const first = await postJson(h.app, "/api/chat", { message: "How many vacation days do employees get?", sessionId: "session-42" }, ann);
    const firstBody = (await first.json()) as { response: string };
    const context = [
      { role: "user", content: "How many vacation days do employees get?" },
      { role: "assistant", content: firstBody.response },
    ];
    const second = await postJson(h.app, "/api/chat", { message: "And for contractors?", sessionId: "session-42", context }, ann);
    expect(second.status).toBe(200);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      orgId: orgA,
      query: "How many vacation days do employees get?",
      threadId: "session-42",
      history: undefined,
    });
    expect(requests[1]).toMatchObject({ orgId: orgA, query: "And for contractors?", threadId: "session-42", history: context });
    expect(requests[1]?.principal.userName).toBe("ann@a.example");
  });

  it("a follow-up within a sessionId uses the stored earlier turn, without any context from the client", async () => {
    const h = harness({ config: { retrieval: { useQueryDecomposition: false } }, embeddings: null });
    const ann = await tokenFor("ann@a.example");
    await h.service.upsert({
      orgId: orgA,
      principal: { userName: "ann@a.example", roles: [], groups: [] },
      uploader: "ann@a.example",
      documents: {
        "vacation-employees": {
          title: "Vacation for employees",
          content: "Employees receive 25 vacation days per year.",
          metadata: { acl: "|user:_all_|" },
        },
        "vacation-contractors": {
          title: "Vacation for contractors",
          content: "Contractors receive 10 vacation days per year.",
          metadata: { acl: "|user:_all_|" },
        },
        "contractor-equipment": {
          title: "Contractor equipment",
          content: "Contractors return contractor laptops and contractor badges; contractors keep contractor accounts for a week.",
          metadata: { acl: "|user:_all_|" },
        },
      },
    });
    const ask = async (message: string, sessionId: string) =>
      (await (await postJson(h.app, "/api/chat", { message, sessionId }, ann)).json()) as { response: string; sources: string[] };
    await ask("How many vacation days do employees get?", "session-7");
    await new Promise((resolve) => setTimeout(resolve, 50)); // memory is written after the response
    expect((await ask("and for contractors?", "session-7")).response).toMatch(/^Contractors receive 10 vacation days/);
    expect((await ask("and for contractors?", "another-session")).response).not.toMatch(/^Contractors receive 10 vacation days/);

    const forgotten = await h.app.request("/api/memory", { method: "DELETE", headers: { Authorization: `Bearer ${ann}` } });
    expect(forgotten.status).toBe(200);
    expect(await forgotten.json()).toEqual({ deleted: 3 });
    expect((await ask("and for contractors?", "session-7")).response).not.toMatch(/^Contractors receive 10 vacation days/);
  });

  it("400 for a missing sessionId, an empty message, or context items of the wrong shape", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    const missing = (await (await postJson(h.app, "/api/chat", { message: "hi" }, ann)).json()) as {
      error: { details: { path: string }[] };
    };
    expect(missing.error.details.map((detail) => detail.path)).toEqual(["sessionId"]);
    await expectError(await postJson(h.app, "/api/chat", { message: "", sessionId: "s" }, ann), 400, "invalid_request");
    const role = await expectError(
      await postJson(h.app, "/api/chat", { message: "hi", sessionId: "s", context: [{ role: "system", content: "x" }] }, ann),
      400,
      "invalid_request",
    );
    expect(role.message).toMatch(/^context\.0\.role: /);
    await expectError(
      await postJson(h.app, "/api/chat", { message: "hi", sessionId: "s", context: "previous" }, ann),
      400,
      "invalid_request",
    );
  });
});

/** One request per endpoint, for the error table below. */
const endpoints: { name: string; send: (app: Harness["app"], token?: string) => Response | Promise<Response> }[] = [
  { name: "POST /api/chat", send: (app, token) => postJson(app, "/api/chat", { message: "vacation days", sessionId: "s" }, token) },
  { name: "POST /api/search", send: (app, token) => postJson(app, "/api/search", { query: "vacation days" }, token) },
  { name: "POST /api/ingest", send: (app, token) => upload(app, [{ name: "a.txt", content: "Alpha." }], token) },
  {
    name: "GET /api/ingest/{jobId}",
    send: (app, token) => app.request("/api/ingest/some-job", { headers: token ? { Authorization: `Bearer ${token}` } : {} }),
  },
];

describe.each(endpoints)("errors of $name", ({ name, send }) => {
  it("401 without a token, with a malformed header, an invalid or an expired token (with WWW-Authenticate)", async () => {
    const h = harness();
    const missing = await send(h.app);
    await expectError(missing, 401, "missing_token");
    expect(missing.headers.get("WWW-Authenticate")).toBe("Bearer");
    await expectError(await send(h.app, "not-a-jwt"), 401, "invalid_token");
    const expired = await tokenFor("ann@a.example", orgA, { expiresInSeconds: -60 });
    await expectError(await send(h.app, expired), 401, "token_expired");
    const forged = await mintAccessToken(
      { secret: "another-secret-0123456789-0123456789", algorithm: "HS256", issuer: "oauth-app" },
      {
        email: "ann@a.example",
        orgId: orgA,
      },
    );
    await expectError(await send(h.app, forged), 401, "invalid_token");
  });

  it("503 when JWT_SECRET is not configured", async () => {
    const h = harness({ server: { jwt: { secret: "" } } });
    const error = await expectError(await send(h.app, await tokenFor("ann@a.example")), 503, "auth_not_configured");
    expect(error.message).toContain("JWT_SECRET");
  });

  it("429 with Retry-After and RateLimit-* once the user's budget is spent; another user is unaffected", async () => {
    const h = harness({ rateLimit: { perMinute: 2, perHour: 10 } });
    const ann = await tokenFor("ann@a.example");
    const first = await send(h.app, ann);
    expect(first.status).not.toBe(429);
    expect(first.headers.get("RateLimit-Limit")).toBe("2");
    expect(first.headers.get("RateLimit-Remaining")).toBe("1");
    expect(first.headers.get("RateLimit-Policy")).toBe("2;w=60, 10;w=3600");
    expect((await send(h.app, ann)).status).not.toBe(429);
    const limited = await send(h.app, ann);
    const error = await expectError(limited, 429, "rate_limited");
    expect(error.message).toContain("2 requests per minute");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(59);
    expect(Number(limited.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
    expect(limited.headers.get("RateLimit-Reset")).toBe(limited.headers.get("Retry-After"));
    expect((await send(h.app, await tokenFor("bob@a.example"))).status).not.toBe(429);
  });

  it("500 with a generic message when the service fails unexpectedly", async () => {
    const failing = async () => {
      throw new Error("disk on fire");
    };
    const h = harness({
      wrap: (service) => ({ ...service, predict: failing, search: failing, ingestFiles: failing, getIngestionJob: failing }),
    });
    const error = await expectError(await send(h.app, await tokenFor("ann@a.example")), 500, "internal_error");
    expect(error.message).toBe("internal server error");
  });

  it.skipIf(name.startsWith("GET"))("413 for a body larger than its limit and 415 for a wrong Content-Type", async () => {
    const h = harness({
      config: { ingestion: { maxUploadBytes: 1024 } },
      server: { limits: { maxRequestBytes: 1024, maxUploadRequestBytes: 8192 } },
    });
    const token = await tokenFor("ann@a.example");
    const path = name.split(" ")[1] as string;
    const big = "x".repeat(4096);
    if (name.includes("ingest")) {
      // A file over MAX_UPLOAD_BYTES, and an upload over MAX_UPLOAD_REQUEST_BYTES made of files within it.
      await expectError(await upload(h.app, [{ name: "big.txt", content: big }], token), 413, "file_too_large");
      const many = Array.from({ length: 10 }, (_, index) => ({ name: `part-${index}.txt`, content: "y".repeat(1000) }));
      await expectError(await upload(h.app, many, token), 413, "payload_too_large");
    } else {
      await expectError(await postJson(h.app, path, { message: big, query: big, sessionId: "s" }, token), 413, "payload_too_large");
    }
    const wrongType = name.includes("ingest")
      ? await postJson(h.app, path, { files: "a.txt" }, token)
      : await h.app.request(path, { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: new FormData() });
    await expectError(wrongType, 415, "unsupported_media_type");
  });

  it.skipIf(!name.startsWith("GET"))("400 for a job id longer than 200 characters", async () => {
    const h = harness();
    const response = await h.app.request(`/api/ingest/${"j".repeat(201)}`, {
      headers: { Authorization: `Bearer ${await tokenFor("ann@a.example")}` },
    });
    await expectError(response, 400, "invalid_request");
  });
});

describe("unknown routes", () => {
  it("answer 404 not_found in set B's shape, without a token and uncounted, also under /api", async () => {
    const h = harness({ rateLimit: { perMinute: 1, perHour: 0 } });
    const ann = await tokenFor("ann@a.example");
    for (const [method, path] of [
      ["GET", "/nowhere"],
      ["POST", "/api/nowhere"],
      ["POST", "/predict"],
    ] as const) {
      const response = await h.app.request(path, { method, headers: { Authorization: `Bearer ${ann}` } });
      expect(response.status).toBe(404);
      expect(response.headers.get("RateLimit-Limit")).toBeNull();
      expect(await response.json()).toEqual({ error: { code: "not_found", message: `no route ${method} ${path}` } });
    }
    expect((await h.app.request("/api/ingest/none", { headers: { Authorization: `Bearer ${ann}` } })).status).toBe(404);
  });

  it("answer a known path asked with another method 405 method_not_allowed with Allow, before authentication", async () => {
    const h = harness();
    const get = await h.app.request("/api/chat");
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST");
    expect(await get.json()).toEqual({ error: { code: "method_not_allowed", message: "GET is not allowed on /api/chat; use POST" } });
    const post = await h.app.request("/api/memory", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("Allow")).toBe("DELETE");
    expect((await h.app.request("/health", { method: "PUT" })).headers.get("Allow")).toBe("GET, HEAD");
  });
});

describe("rate limits with the default budgets", () => {
  it("the 101st request of a user within a minute gets 429 with the seconds left in the window", async () => {
    const h = harness();
    const app = chatRoutes(h.service, { server: testServer });
    const ann = await tokenFor("ann@a.example");
    const started = Date.now();
    for (let index = 0; index < 100; index++) {
      const response = await app.request("/api/ingest/none", { headers: { Authorization: `Bearer ${ann}` } });
      expect(response.status).toBe(404);
      expect(response.headers.get("RateLimit-Remaining")).toBe(String(99 - index));
    }
    const limited = await app.request("/api/ingest/none", { headers: { Authorization: `Bearer ${ann}` } });
    const elapsed = Math.ceil((Date.now() - started) / 1000);
    await expectError(limited, 429, "rate_limited");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(retryAfter).toBeGreaterThanOrEqual(60 - elapsed);
    expect(limited.headers.get("RateLimit-Limit")).toBe("100");
    expect(limited.headers.get("RateLimit-Policy")).toBe("100;w=60, 1000;w=3600");
    // /health, /docs and the OpenAPI document are not limited.
    expect((await app.request("/health")).status).toBe(200);
    expect((await app.request("/openapi.json")).status).toBe(200);
  });
});

describe("rate limits with @docqa/redis's createRateLimiter", () => {
  it("takes its limiter (both windows in one) as the limiters of chatRoutes", async () => {
    const h = harness();
    const limiter = createRateLimiter({
      limits: [
        { points: 2, durationSeconds: 60 },
        { points: 10, durationSeconds: 3600 },
      ],
    });
    const app = chatRoutes(h.service, { server: testServer, rateLimit: { limiters: [limiter] } });
    const ann = await tokenFor("ann@a.example");
    const get = () => app.request("/api/ingest/none", { headers: { Authorization: `Bearer ${ann}` } });
    const first = await get();
    expect(first.status).toBe(404);
    expect(first.headers.get("RateLimit-Policy")).toBe("2;w=60, 10;w=3600");
    expect(first.headers.get("RateLimit-Remaining")).toBe("1");
    expect((await get()).status).toBe(404);
    const limited = await get();
    await expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(59);
  });
});

describe("mounted beside set A in one Hono app (examples/mount-both-in-hono.ts)", () => {
  it("serves both sets over one service, each with its own paths, authentication and error shape", async () => {
    const h = harness();
    const app = new Hono();
    app.get("/", (c) => c.text("my application"));
    app.route("/", chatRoutes(h.service, { server: testServer, rateLimit: { perMinute: 100, perHour: 1000 } }));
    app.route("/a", predictRoutes(h.service, { server: testServer, referencePages: false }));
    const ann = await tokenFor("ann@a.example");
    expect(await (await app.request("/")).text()).toBe("my application");
    expect((await app.request("/health")).status).toBe(200);
    expect(await (await app.request("/a/healthz")).json()).toMatchObject({ status: "ok" });
    const upserted = await postJson(
      app as unknown as Harness["app"],
      "/a/upsert",
      { user_email: "ann@a.example", documents: { wifi: { title: "Wi-Fi", content: "The guest Wi-Fi password changes every Monday." } } },
      ann,
    );
    expect(upserted.status).toBe(200);
    const found = await postJson(app as unknown as Harness["app"], "/api/search", { query: "guest Wi-Fi password" }, ann);
    expect(found.status).toBe(200);
    expect(found.headers.get("RateLimit-Limit")).toBe("100");
    const results = ((await found.json()) as { results: { metadata: Record<string, unknown> }[] }).results;
    // A document stored through set A has no file: filename is its document id, type "text".
    expect(results[0]?.metadata).toMatchObject({ filename: "wifi", type: "text", doc_id: "wifi" });
    expect(await (await app.request("/api/search", { method: "POST", body: "{}" })).json()).toEqual({
      error: { code: "missing_token", message: expect.any(String) },
    });
    expect(await (await app.request("/a/predict", { method: "POST", body: "{}" })).json()).toEqual({
      detail: expect.any(String),
      code: "missing_token",
    });
    expect((await app.request("/docs")).status).toBe(200);
  });
});
