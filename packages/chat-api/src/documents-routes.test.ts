import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createEmbeddedStore,
  createInMemoryJobStore,
  createRagService,
  type EmbeddedStore,
  mintAccessToken,
  type PrincipalResolver,
  type RagService,
} from "@docqa/core";
import { DeterministicEmbeddings } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { responseProblems } from "@docqa/http/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { chatRoutes } from "./chat-routes.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

interface Harness {
  app: ReturnType<typeof chatRoutes>;
  service: RagService;
  store: EmbeddedStore;
}

const services: RagService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function harness(resolvePrincipal?: PrincipalResolver): Harness {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-documents-b-"));
  const store = createEmbeddedStore({ dataDir });
  const service = createRagService({
    config: { stores: { dataDir }, embeddings: { dimension: 64 }, ingestion: { useRaptor: false }, logging: { level: "silent" } },
    stores: store,
    embeddings: new DeterministicEmbeddings({ dimension: 64 }),
    jobStore: createInMemoryJobStore(),
  });
  services.push(service);
  return {
    app: chatRoutes(service, { server: resolveServerConfig({ jwt: { secret } }), rateLimit: false, resolvePrincipal }),
    service,
    store,
  };
}

const tokenFor = (email: string, extra: { role?: string; groups?: string[] } = {}) =>
  mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId: orgA, ...extra });

const request = (app: Harness["app"], method: string, path: string, token?: string) =>
  app.request(path, { method, headers: token ? { Authorization: `Bearer ${token}` } : {} });

function upload(app: Harness["app"], token: string, files: { name: string; content: string }[], metadata?: Record<string, unknown>) {
  const form = new FormData();
  for (const file of files) form.append("files", new File([file.content], file.name));
  if (metadata) form.append("metadata", JSON.stringify(metadata));
  return app.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: form });
}

async function expectError(response: Response, status: number, code: string): Promise<string> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
  return body.error.message;
}

let openApi: Record<string, unknown>;
beforeAll(async () => {
  openApi = (await (await harness().app.request("/openapi.json")).json()) as Record<string, unknown>;
});

/** ann uploads `handbook.md` (everyone) and `salaries.csv` (hr only). */
async function seed(h: Harness) {
  const ann = await tokenFor("ann@a.example");
  for (const [name, content, acl] of [
    ["handbook.md", "# Handbook\n\nWelcome to the company handbook.", "|user:_all_|"],
    ["salaries.csv", "band,amount\nA,50000\nB,60000\n", "|role:hr|"],
  ] as const) {
    const response = await upload(h.app, ann, [{ name, content }], { acl });
    expect(((await response.json()) as { state: string }).state).toBe("succeeded");
  }
  return { ann, bob: await tokenFor("bob@a.example"), hr: await tokenFor("hal@a.example", { role: "hr" }) };
}

describe("set B documents API", () => {
  it("GET /api/documents lists the readable documents in set B's shape, per the OpenAPI document", async () => {
    const h = harness();
    const { ann, bob, hr } = await seed(h);
    const list = async (token: string, query = "") => {
      const response = await request(h.app, "GET", `/api/documents${query}`, token);
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(responseProblems(openApi, "get", "/api/documents", 200, body)).toEqual([]);
      return body as { documents: { id: string }[]; nextCursor: string | null };
    };
    const all = await list(ann);
    expect(all.documents).toEqual([
      {
        id: "handbook.md",
        title: "Handbook",
        owner: "ann@a.example",
        acl: "|user:_all_|",
        source: "",
        type: "md",
        chunks: 1,
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      expect.objectContaining({ id: "salaries.csv", type: "csv", acl: "|role:hr|" }),
    ]);
    expect(all.nextCursor).toBeNull();
    expect((await list(bob)).documents.map((document) => document.id)).toEqual(["handbook.md"]);
    expect((await list(hr, "?type=csv")).documents.map((document) => document.id)).toEqual(["salaries.csv"]);
    const paged = await list(ann, "?limit=1");
    expect(paged.documents.map((document) => document.id)).toEqual(["handbook.md"]);
    expect((await list(ann, `?limit=1&cursor=${paged.nextCursor}`)).documents.map((document) => document.id)).toEqual(["salaries.csv"]);
    await expectError(await request(h.app, "GET", "/api/documents"), 401, "missing_token");
  });

  it("GET /api/documents/{id} answers 404 for a document the caller may not read", async () => {
    const h = harness();
    const { bob, hr } = await seed(h);
    await expectError(await request(h.app, "GET", "/api/documents/salaries.csv", bob), 404, "not_found");
    const shown = await request(h.app, "GET", "/api/documents/salaries.csv", hr);
    const body = await shown.json();
    expect(responseProblems(openApi, "get", "/api/documents/{id}", 200, body)).toEqual([]);
    expect(body).toMatchObject({ id: "salaries.csv", owner: "ann@a.example" });
  });

  it("DELETE /api/documents/{id}: 403 for a reader who does not own it, 200 for the owner, then 404", async () => {
    const h = harness();
    const { ann, hr } = await seed(h);
    const before = await h.store.count(orgA);
    expect(await expectError(await request(h.app, "DELETE", "/api/documents/salaries.csv", hr), 403, "forbidden")).toBe(
      'may not delete document "salaries.csv": only the document\'s owner or an administrator may delete it',
    );
    expect(await h.store.count(orgA)).toBe(before);
    const deleted = await request(h.app, "DELETE", "/api/documents/salaries.csv", ann);
    expect(deleted.status).toBe(200);
    const body = (await deleted.json()) as { deleted: string; chunks: number; summaries: number };
    expect(responseProblems(openApi, "delete", "/api/documents/{id}", 200, body)).toEqual([]);
    expect(body.deleted).toBe("salaries.csv");
    expect(await h.store.count(orgA)).toBe(before - body.chunks);
    await expectError(await request(h.app, "DELETE", "/api/documents/salaries.csv", ann), 404, "not_found");
    const search = await h.app.request("/api/search", {
      method: "POST",
      headers: { Authorization: `Bearer ${hr}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "band amount" }),
    });
    const ids = ((await search.json()) as { results: { id: string }[] }).results.map((result) => result.id);
    expect(ids).toEqual(["handbook.md::0"]);
    const admin = await tokenFor("root@a.example", { role: "admin" });
    expect((await request(h.app, "DELETE", "/api/documents/handbook.md", admin)).status).toBe(200);
  });
});

describe("set B write rules", () => {
  it("POST /api/ingest rejects, per file, a file replacing somebody else's document (no 'unchanged' for it)", async () => {
    const h = harness();
    const { bob } = await seed(h);
    const response = await upload(h.app, bob, [
      { name: "handbook.md", content: "# Handbook\n\nWelcome to the company handbook." },
      { name: "bob.md", content: "Bob's notes." },
    ]);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; state: string; files: unknown; errors: unknown[] };
    expect(body).toMatchObject({
      success: false,
      state: "partially_failed",
      files: { total: 2, processed: 2, ingested: 1, unchanged: 0, failed: 1 },
      errors: [
        {
          file: "handbook.md",
          code: "forbidden",
          message: 'may not replace document "handbook.md": only the document\'s owner or an administrator may replace it',
        },
      ],
    });
    const mine = await request(h.app, "GET", "/api/documents/handbook.md", bob);
    expect(((await mine.json()) as { owner: string }).owner).toBe("ann@a.example");
  });

  it("POST /api/ingest refuses owner_id naming somebody else unless the resolver makes the uploader an administrator", async () => {
    const h = harness((claims) => ({ roles: claims.email === "root@a.example" ? ["admin"] : [], groups: [] }));
    const bob = await tokenFor("bob@a.example", { role: "admin" });
    const refused = await upload(h.app, bob, [{ name: "gift.md", content: "planted" }], { owner_id: "ann@a.example" });
    expect(((await refused.json()) as { errors: { code: string }[] }).errors).toEqual([expect.objectContaining({ code: "forbidden" })]);
    const root = await tokenFor("root@a.example");
    const accepted = await upload(h.app, root, [{ name: "gift.md", content: "given" }], { owner_id: "ann@a.example" });
    expect(((await accepted.json()) as { state: string }).state).toBe("succeeded");
    const shown = await request(h.app, "GET", "/api/documents/gift.md", root);
    expect(((await shown.json()) as { owner: string }).owner).toBe("ann@a.example");
  });
});
