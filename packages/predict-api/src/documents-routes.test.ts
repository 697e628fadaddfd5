import { createInMemoryMemoryStore, type DocqaConfigOverrides, mintAccessToken, type PrincipalResolver } from "@docqa/core";
import type { MemoryStore } from "@docqa/core/stores";
import { resolveServerConfig, type ServerConfig } from "@docqa/http";
import { createRouteTests, type RouteTest } from "@docqa/http/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type PredictRoutesOptions, predictRoutes } from "./predict-routes.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

const routes = createRouteTests<ReturnType<typeof predictRoutes>, PredictRoutesOptions>(
  (service, server, options) => predictRoutes(service, { server, ...options }),
  { jwt: { secret } },
);
afterEach(routes.close);

/** A route test whose service keeps conversation memory in `memory`. */
type Harness = RouteTest<ReturnType<typeof predictRoutes>> & { memory: MemoryStore };

function harness(
  options: { config?: DocqaConfigOverrides; server?: Partial<ServerConfig>; resolvePrincipal?: PrincipalResolver } = {},
): Harness {
  const memory = createInMemoryMemoryStore();
  const test = routes.harness({
    config: options.config,
    server: options.server,
    memoryStore: memory,
    jobStore: "configured",
    routes: { resolvePrincipal: options.resolvePrincipal },
  });
  return { ...test, memory };
}

const tokenFor = (email: string, extra: { role?: string; groups?: string[] } = {}) =>
  mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId: orgA, ...extra });

function call(app: Harness["app"], method: string, path: string, token?: string, body?: unknown) {
  return app.request(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectError(response: Response, status: number, code: string): Promise<string> {
  const body = (await response.json()) as { detail: string; code: string };
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  return body.detail;
}

/** ann owns `plan` (private) and `folder/notes.md` (everyone); an administrator wrote `hr` for cy. */
async function seed(h: Harness) {
  const ann = await tokenFor("ann@a.example");
  const admin = await tokenFor("root@a.example", { role: "admin" });
  const write = async (token: string, user: string, documents: Record<string, unknown>) => {
    const response = await call(h.app, "POST", "/upsert", token, { user_email: user, documents });
    expect(response.status, await response.clone().text()).toBe(200);
  };
  await write(ann, "ann@a.example", {
    plan: { title: "Plan", content: "The launch plan is secret.", metadata: { source: "wiki" } },
    "folder/notes.md": { title: "Notes", content: "Meeting notes for everyone.", metadata: { acl: "|user:_all_|", type: "md" } },
  });
  await write(admin, "root@a.example", {
    hr: { title: "HR", content: "Salary bands.", metadata: { owner_id: "cy@a.example", acl: "|role:hr|", source: "wiki" } },
  });
  return { ann, admin, bob: await tokenFor("bob@a.example"), hr: await tokenFor("hal@a.example", { role: "hr" }) };
}

describe("set A documents API", () => {
  it("GET /documents lists what the caller may read, every document for administrators, filtered and paged", async () => {
    const h = harness();
    const { ann, admin, bob, hr } = await seed(h);
    const ids = async (token: string, query = "") => {
      const response = await call(h.app, "GET", `/documents${query}`, token);
      expect(response.status).toBe(200);
      return ((await response.json()) as { documents: { doc_id: string }[] }).documents.map((document) => document.doc_id);
    };
    expect(await ids(ann)).toEqual(["folder/notes.md", "plan"]);
    expect(await ids(bob)).toEqual(["folder/notes.md"]);
    expect(await ids(hr)).toEqual(["folder/notes.md", "hr"]);
    expect(await ids(admin)).toEqual(["folder/notes.md", "hr", "plan"]);
    expect(await ids(admin, "?source=wiki")).toEqual(["hr", "plan"]);
    expect(await ids(admin, "?owner=CY%40a.example")).toEqual(["hr"]);
    expect(await ids(admin, "?type=md")).toEqual(["folder/notes.md"]);
    const first = await call(h.app, "GET", "/documents?limit=2", admin);
    const page = (await first.json()) as { documents: Record<string, unknown>[]; next_cursor: string };
    expect(page.documents[0]).toEqual({
      doc_id: "folder/notes.md",
      title: "Notes",
      owner_id: "ann@a.example",
      acl: "|user:_all_|",
      source: "",
      type: "md",
      num_chunks: 1,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const second = await call(h.app, "GET", `/documents?limit=2&cursor=${page.next_cursor}`, admin);
    expect(await second.json()).toEqual({ documents: [expect.objectContaining({ doc_id: "plan" })], next_cursor: null });
    await expectError(await call(h.app, "GET", "/documents?cursor=nonsense!", admin), 400, "invalid_request");
    await expectError(await call(h.app, "GET", "/documents?limit=0", admin), 400, "invalid_request");
    await expectError(await call(h.app, "GET", "/documents"), 401, "missing_token");
  });

  it("GET /documents/{doc_id} shows a readable document and answers 404 for an unreadable one", async () => {
    const h = harness();
    const { bob, admin } = await seed(h);
    const notes = await call(h.app, "GET", `/documents/${encodeURIComponent("folder/notes.md")}`, bob);
    expect(notes.status).toBe(200);
    expect(await notes.json()).toMatchObject({ doc_id: "folder/notes.md", owner_id: "ann@a.example", num_chunks: 1 });
    const hidden = await expectError(await call(h.app, "GET", "/documents/plan", bob), 404, "not_found");
    expect(hidden).toBe('no document "plan" in this organisation');
    expect(await expectError(await call(h.app, "GET", "/documents/nothing", bob), 404, "not_found")).toBe(
      'no document "nothing" in this organisation',
    );
    expect((await call(h.app, "GET", "/documents/plan", admin)).status).toBe(200);
  });

  it("DELETE /documents/{doc_id}: 403 for anybody but the owner and administrators, then gone from every read", async () => {
    const h = harness();
    const { ann, bob, hr, admin } = await seed(h);
    const before = await h.store.count(orgA);
    expect(await expectError(await call(h.app, "DELETE", "/documents/plan", bob), 403, "forbidden")).toBe(
      'may not delete document "plan": only the document\'s owner or an administrator may delete it',
    );
    await expectError(await call(h.app, "DELETE", "/documents/hr", hr), 403, "forbidden");
    await expectError(await call(h.app, "DELETE", `/documents/${encodeURIComponent("folder/notes.md")}`, bob), 403, "forbidden");
    expect(await h.store.count(orgA)).toBe(before);
    const deleted = await call(h.app, "DELETE", "/documents/plan", ann);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ status: "success", doc_id: "plan", num_chunks: 1, num_summaries: 0 });
    expect(await h.store.count(orgA)).toBe(before - 1);
    await expectError(await call(h.app, "GET", "/documents/plan", ann), 404, "not_found");
    await expectError(await call(h.app, "DELETE", "/documents/plan", ann), 404, "not_found");
    const asked = await call(h.app, "POST", "/predict", ann, { query: "launch plan secret", user_info: { user_name: "ann@a.example" } });
    expect(Object.keys(((await asked.json()) as { sources: object }).sources)).toEqual([]);
    const byAdmin = await call(h.app, "DELETE", "/documents/hr", admin);
    expect(await byAdmin.json()).toMatchObject({ doc_id: "hr", num_chunks: 1 });
  });
});

describe("set A write rules: every 403", () => {
  it("POST /upsert refuses replacing, re-ACLing or re-owning somebody else's document, and naming another owner", async () => {
    const h = harness();
    const { bob, ann } = await seed(h);
    const before = await call(h.app, "GET", "/documents", await tokenFor("root@a.example", { role: "admin" }));
    const snapshot = await before.json();
    const attempts: [string, Record<string, unknown>, string][] = [
      [bob, { plan: { title: "Plan", content: "The launch plan is secret." } }, 'may not replace document "plan"'],
      [bob, { plan: { title: "Plan", content: "The launch plan is secret.", metadata: { source: "wiki", acl: "|user:_all_|" } } }, "plan"],
      [
        ann,
        { plan: { title: "Plan", content: "The launch plan is secret.", metadata: { source: "wiki", owner_id: "bob@a.example" } } },
        "owner_id",
      ],
      [bob, { mine: { title: "Mine", content: "planted", metadata: { owner_id: "ann@a.example" } } }, "only an administrator may make"],
      [bob, { fresh: { title: "Fresh", content: "ok" }, hr: { title: "HR", content: "x" } }, "may not write 1 of the 2 documents"],
    ];
    for (const [token, documents, message] of attempts) {
      const user = token === ann ? "ann@a.example" : "bob@a.example";
      const response = await call(h.app, "POST", "/upsert", token, { user_email: user, documents });
      expect(await expectError(response, 403, "forbidden")).toContain(message);
    }
    const after = await call(h.app, "GET", "/documents", await tokenFor("root@a.example", { role: "admin" }));
    expect(await after.json()).toEqual(snapshot);
  });

  it("POST /upsert: the owner changes the ACL without re-embedding, and the 'unchanged' answer needs write access", async () => {
    const h = harness();
    const { ann, bob } = await seed(h);
    const chunks = await h.store.count(orgA);
    const changed = await call(h.app, "POST", "/upsert", ann, {
      user_email: "ann@a.example",
      documents: {
        plan: { title: "Plan", content: "The launch plan is secret.", metadata: { source: "wiki", acl: "|user:bob@a.example|" } },
      },
    });
    expect(await changed.json()).toEqual({ status: "success", user: "ann@a.example", num_chunks: "1" });
    expect(await h.store.count(orgA)).toBe(chunks);
    expect((await call(h.app, "GET", "/documents/plan", bob)).status).toBe(200);
    // bob may read plan now, but still not write it: the same bytes are refused, not "unchanged".
    const same = await call(h.app, "POST", "/upsert", bob, {
      user_email: "bob@a.example",
      documents: {
        plan: { title: "Plan", content: "The launch plan is secret.", metadata: { source: "wiki", acl: "|user:bob@a.example|" } },
      },
    });
    await expectError(same, 403, "forbidden");
  });

  it("POST /testpredict refuses another organisation than the development one (403)", async () => {
    const h = harness({ server: { enableTestPredict: true, testPredictOrgId: orgA } });
    await seed(h);
    const other = await call(h.app, "POST", "/testpredict", undefined, {
      query: "launch plan",
      user_info: { user_name: "ann@a.example" },
      org_id: "another-org",
    });
    expect(await expectError(other, 403, "forbidden")).toBe(
      "/testpredict answers only from its development organisation (TESTPREDICT_ORG_ID)",
    );
    const same = await call(h.app, "POST", "/testpredict", undefined, {
      query: "launch plan",
      user_info: { user_name: "ann@a.example" },
      org_id: orgA,
    });
    expect(same.status).toBe(200);
  });
});

describe("POST /testpredict confinement", () => {
  it("answers from the development organisation only, and never reads or writes conversation memory", async () => {
    const h = harness({ server: { enableTestPredict: true, testPredictOrgId: orgA } });
    await seed(h);
    const threadId = "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60";
    const response = await call(h.app, "POST", "/testpredict", undefined, {
      query: "meeting notes",
      user_info: { user_name: "ann@a.example" },
      thread_id: threadId,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { thread_id: string; sources: Record<string, { metadata: { org_id: string } }> };
    expect(body.thread_id).toBe(threadId);
    expect(Object.values(body.sources).map((source) => source.metadata.org_id)).toEqual([orgA]);
    await h.service.close();
    expect(await h.memory.deleteUser(orgA, "ann@a.example")).toBe(0);
    // The same question through /predict does write memory (session and thread).
    const contrast = harness();
    await seed(contrast);
    const token = await tokenFor("ann@a.example");
    await call(contrast.app, "POST", "/predict", token, { query: "meeting notes", user_info: { user_name: "ann@a.example" } });
    await contrast.service.close();
    expect(await contrast.memory.deleteUser(orgA, "ann@a.example")).toBeGreaterThan(0);
  });

  it("has the body limits of /predict: MAX_REQUEST_BYTES (413) and MAX_QUERY_CHARS (400)", async () => {
    const h = harness({
      config: { retrieval: { maxQueryChars: 100 } },
      server: { enableTestPredict: true, limits: { maxRequestBytes: 2048, maxUploadRequestBytes: 4096, maxUploadFiles: 1 } },
    });
    const token = await tokenFor("ann@a.example");
    for (const [path, auth] of [
      ["/predict", token],
      ["/testpredict", undefined],
    ] as const) {
      const large = await call(h.app, "POST", path, auth, { query: "x".repeat(4000), user_info: { user_name: "ann@a.example" } });
      await expectError(large, 413, "payload_too_large");
      const long = await call(h.app, "POST", path, auth, {
        query: "why".repeat(53).concat("!"),
        user_info: { user_name: "ann@a.example" },
      });
      expect(await expectError(long, 400, "invalid_request")).toBe("the query has 160 characters; the limit is 100 (MAX_QUERY_CHARS)");
    }
  });

  it("refuses to serve /testpredict when NODE_ENV is production", () => {
    const { service } = routes.harness();
    const server = { ...resolveServerConfig({ jwt: { secret } }), nodeEnv: "production" };
    expect(() => predictRoutes(service, { server, enableTestPredict: true })).toThrow(
      "[docqa] [predict-api] /testpredict answers without a token and is refused when NODE_ENV=production",
    );
  });
});

describe("principal resolution", () => {
  it("/query shows the roles and groups of the resolver, which the read and write rules then use", async () => {
    const asked: string[] = [];
    const directory: PrincipalResolver = async (claims) => {
      asked.push(claims.email);
      return claims.email === "root@a.example" ? { roles: ["admin"], groups: [] } : { roles: ["reader"], groups: ["Finance"] };
    };
    const h = harness({ resolvePrincipal: directory });
    const token = await tokenFor("fay@a.example", { role: "user", groups: ["ignored"] });
    const response = await call(h.app, "POST", "/query", token, { text: "What is our budget?", user_info: { user_name: "fay@a.example" } });
    expect(((await response.json()) as { user_info: unknown }).user_info).toEqual({
      user_name: "fay@a.example",
      real_name: "",
      org_id: orgA,
      current_roles: ["reader"],
      current_groups: ["finance"],
    });
    // The directory, not the token, makes root an administrator.
    const root = await tokenFor("root@a.example");
    const upsert = await call(h.app, "POST", "/upsert", root, {
      user_email: "root@a.example",
      documents: {
        budget: {
          title: "Budget",
          content: "The finance budget is 3 million.",
          metadata: { owner_id: "cy@a.example", acl: "|group:finance|" },
        },
      },
    });
    expect(upsert.status).toBe(200);
    const listed = await call(h.app, "GET", "/documents", token);
    expect(((await listed.json()) as { documents: { doc_id: string }[] }).documents.map((document) => document.doc_id)).toEqual(["budget"]);
    expect(asked).toEqual(["fay@a.example", "root@a.example", "fay@a.example"]);
  });

  it("answers 503 when the resolver fails", async () => {
    const h = harness({
      resolvePrincipal: () => {
        throw new Error("directory down");
      },
    });
    const response = await call(h.app, "GET", "/documents", await tokenFor("ann@a.example"));
    expect(await expectError(response, 503, "store_unavailable")).toBe("resolving the roles and groups of the user failed: directory down");
  });
});
