import { mintAccessToken } from "@docqa/core";
import { createRouteTests, type RouteTest, responseProblems } from "@docqa/http/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ChatRoutesOptions, chatRoutes } from "./chat-routes.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

const routes = createRouteTests<ReturnType<typeof chatRoutes>, ChatRoutesOptions>(
  (service, server, options) => chatRoutes(service, { server, rateLimit: false, ...options }),
  { jwt: { secret } },
);
afterEach(routes.close);
type Harness = RouteTest<ReturnType<typeof chatRoutes>>;
const harness = (resolvePrincipal?: ChatRoutesOptions["resolvePrincipal"]): Harness => routes.harness({ routes: { resolvePrincipal } });

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

/** The id of a file `name` uploaded by (or for) `owner`. */
const idOf = (owner: string, name: string) => `${owner}/${name}`;
const handbook = idOf("ann@a.example", "handbook.md");
const salaries = idOf("ann@a.example", "salaries.csv");
/** The documents API path of a document id (percent-encoded). */
const path = (id: string) => `/api/documents/${encodeURIComponent(id)}`;

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
        id: handbook,
        title: "Handbook",
        owner: "ann@a.example",
        acl: "|user:_all_|",
        source: "",
        type: "md",
        chunks: 1,
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      expect.objectContaining({ id: salaries, type: "csv", acl: "|role:hr|" }),
    ]);
    expect(all.nextCursor).toBeNull();
    expect((await list(bob)).documents.map((document) => document.id)).toEqual([handbook]);
    expect((await list(hr, "?type=csv")).documents.map((document) => document.id)).toEqual([salaries]);
    const paged = await list(ann, "?limit=1");
    expect(paged.documents.map((document) => document.id)).toEqual([handbook]);
    expect((await list(ann, `?limit=1&cursor=${paged.nextCursor}`)).documents.map((document) => document.id)).toEqual([salaries]);
    await expectError(await request(h.app, "GET", "/api/documents"), 401, "missing_token");
  });

  it("GET /api/documents/{id} answers 404 for a document the caller may not read", async () => {
    const h = harness();
    const { bob, hr } = await seed(h);
    await expectError(await request(h.app, "GET", path(salaries), bob), 404, "not_found");
    const shown = await request(h.app, "GET", path(salaries), hr);
    const body = await shown.json();
    expect(responseProblems(openApi, "get", "/api/documents/{id}", 200, body)).toEqual([]);
    expect(body).toMatchObject({ id: salaries, owner: "ann@a.example" });
  });

  it("DELETE /api/documents/{id}: 403 for a reader who does not own it, 200 for the owner, then 404", async () => {
    const h = harness();
    const { ann, hr } = await seed(h);
    const before = await h.store.count(orgA);
    expect(await expectError(await request(h.app, "DELETE", path(salaries), hr), 403, "forbidden")).toBe(
      `may not delete document "${salaries}": only the document's owner or an administrator may delete it`,
    );
    expect(await h.store.count(orgA)).toBe(before);
    const deleted = await request(h.app, "DELETE", path(salaries), ann);
    expect(deleted.status).toBe(200);
    const body = (await deleted.json()) as { deleted: string; chunks: number; summaries: number };
    expect(responseProblems(openApi, "delete", "/api/documents/{id}", 200, body)).toEqual([]);
    expect(body.deleted).toBe(salaries);
    expect(await h.store.count(orgA)).toBe(before - body.chunks);
    await expectError(await request(h.app, "DELETE", path(salaries), ann), 404, "not_found");
    const search = await h.app.request("/api/search", {
      method: "POST",
      headers: { Authorization: `Bearer ${hr}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "band amount" }),
    });
    const ids = ((await search.json()) as { results: { id: string }[] }).results.map((result) => result.id);
    expect(ids).toEqual([`${handbook}::0`]);
    const admin = await tokenFor("root@a.example", { role: "admin" });
    expect((await request(h.app, "DELETE", path(handbook), admin)).status).toBe(200);
  });
});

/** The job of an upload, asserted to have succeeded. */
async function uploaded(response: Response) {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { state: string; files: Record<string, number>; errors: unknown[] };
  expect(body.errors).toEqual([]);
  expect(body.state).toBe("succeeded");
  return body;
}

async function listedIds(h: Harness, token: string): Promise<string[]> {
  const body = (await (await request(h.app, "GET", "/api/documents", token)).json()) as { documents: { id: string }[] };
  return body.documents.map((document) => document.id);
}

async function searchFiles(h: Harness, token: string, query: string): Promise<{ id: string; filename: unknown; content: string }[]> {
  const response = await h.app.request("/api/search", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { results: { id: string; content: string; metadata: Record<string, unknown> }[] };
  return body.results.map((result) => ({ id: result.id, filename: result.metadata.filename, content: result.content }));
}

describe("set B uploads: each owner's file names are their own", () => {
  it("two users' files of one name are two documents, the file name shown for both; neither upload is told of the other", async () => {
    const h = harness();
    const { ann, bob, hr } = await seed(h);
    const body = await uploaded(
      await upload(h.app, bob, [
        { name: "handbook.md", content: "# Handbook\n\nBob's own handbook: bring a towel." },
        { name: "salaries.csv", content: "person,amount\nbob,1\n" },
      ]),
    );
    expect(body.files).toMatchObject({ total: 2, ingested: 2, failed: 0 });
    expect(await listedIds(h, bob)).toEqual([handbook, idOf("bob@a.example", "handbook.md"), idOf("bob@a.example", "salaries.csv")]);
    // Ann's documents are untouched and still hers; she cannot read Bob's private ones.
    expect(await listedIds(h, ann)).toEqual([handbook, salaries]);
    expect(await listedIds(h, hr)).toEqual([handbook, salaries]);
    const shown = (await (await request(h.app, "GET", path(handbook), ann)).json()) as { owner: string; title: string };
    expect(shown).toMatchObject({ owner: "ann@a.example", title: "Handbook" });
    // Search shows each by its file name.
    const found = await searchFiles(h, bob, "handbook");
    expect(found.map((result) => [result.id, result.filename])).toEqual(
      expect.arrayContaining([
        [`${handbook}::0`, "handbook.md"],
        [`${idOf("bob@a.example", "handbook.md")}::0`, "handbook.md"],
      ]),
    );
  });

  it("uploading a file name again replaces the uploader's own document; the same bytes again are unchanged", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    await uploaded(await upload(h.app, ann, [{ name: "notes.md", content: "The canteen opens at eight." }]));
    const replaced = await uploaded(await upload(h.app, ann, [{ name: "notes.md", content: "The canteen opens at nine." }]));
    expect(replaced.files).toMatchObject({ ingested: 1, unchanged: 0 });
    expect(await listedIds(h, ann)).toEqual([idOf("ann@a.example", "notes.md")]);
    expect((await searchFiles(h, ann, "canteen opens")).map((result) => result.content)).toEqual(["The canteen opens at nine."]);
    const again = await uploaded(await upload(h.app, ann, [{ name: "notes.md", content: "The canteen opens at nine." }]));
    expect(again.files).toMatchObject({ ingested: 0, unchanged: 1 });
  });

  it("a file stored under its bare name by an earlier release is replaced by its owner's upload, never touched by another user's", async () => {
    const h = harness();
    const ann = await tokenFor("ann@a.example");
    const bob = await tokenFor("bob@a.example");
    const admin = await tokenFor("root@a.example", { role: "admin" });
    // What an upload of an earlier release stored: the bare file name as the id.
    const legacy = await h.service.ingestFiles({
      orgId: orgA,
      principal: { userName: "ann@a.example", roles: [], groups: [] },
      files: [{ name: "parking.md", bytes: new TextEncoder().encode("Visitors park on level two.") }],
      metadata: { acl: "|user:_all_|" },
    });
    expect(legacy.state).toBe("succeeded");
    expect(await listedIds(h, admin)).toEqual(["parking.md"]);

    await uploaded(await upload(h.app, bob, [{ name: "parking.md", content: "Bikes go in the basement." }]));
    expect(await listedIds(h, admin)).toEqual([idOf("bob@a.example", "parking.md"), "parking.md"]);

    await uploaded(await upload(h.app, ann, [{ name: "parking.md", content: "Visitors park on level three." }], { acl: "|user:_all_|" }));
    expect(await listedIds(h, admin)).toEqual([idOf("ann@a.example", "parking.md"), idOf("bob@a.example", "parking.md")]);
    expect((await searchFiles(h, admin, "visitors park level")).map((result) => result.content)).toEqual(["Visitors park on level three."]);
  });

  it("owner_id naming somebody else is refused unless the resolver makes the uploader an administrator, who uploads into the owner's names", async () => {
    const h = harness((claims) => ({ roles: claims.email === "root@a.example" ? ["admin"] : [], groups: [] }));
    const bob = await tokenFor("bob@a.example", { role: "admin" });
    const refused = await upload(h.app, bob, [{ name: "gift.md", content: "planted" }], { owner_id: "ann@a.example" });
    expect(((await refused.json()) as { errors: { code: string; message: string }[] }).errors).toEqual([
      {
        file: "gift.md",
        code: "forbidden",
        message: `may not create document "${idOf("ann@a.example", "gift.md")}": only an administrator may make somebody else the owner (owner_id)`,
      },
    ]);
    const root = await tokenFor("root@a.example");
    await uploaded(await upload(h.app, root, [{ name: "gift.md", content: "given" }], { owner_id: "ann@a.example" }));
    const shown = await request(h.app, "GET", path(idOf("ann@a.example", "gift.md")), root);
    expect(((await shown.json()) as { owner: string }).owner).toBe("ann@a.example");
  });
});
