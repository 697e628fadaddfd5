import { createInMemoryJobStore, type DocumentInput, type JobStore, mintAccessToken } from "@docqa/core";
import type { PerfEvent } from "@docqa/core/telemetry";
import { resolveServerConfig } from "@docqa/http";
import { createRouteTests, type RouteTest } from "@docqa/http/testing";
import { SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const orgB = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

/** A route test counting the store's document writes (`upserts`) and recording the PERF events (`perf`). */
type Harness = RouteTest<ReturnType<typeof predictRoutes>> & { upserts: { count: number }; perf: PerfEvent[] };

const routes = createRouteTests((service, server) => predictRoutes(service, { server }), { jwt: { secret } });
afterEach(routes.close);

function harness(overrides: { secret?: string | undefined; enableTestPredict?: boolean } = {}): Harness {
  const upserts = { count: 0 };
  const perf: PerfEvent[] = [];
  const test = routes.harness({
    config: { logging: { perfLog: true } },
    jobStore: "configured",
    // Counts the writes of documents.
    stores: (store) => ({
      ...store,
      upsert: async (...args) => {
        upserts.count++;
        return store.upsert(...args);
      },
    }),
    perfLog: (event) => perf.push(event),
    server: {
      ...("secret" in overrides ? { jwt: { secret: overrides.secret ?? "" } } : {}),
      enableTestPredict: overrides.enableTestPredict ?? false,
      testPredictOrgId: orgA,
    },
  });
  return { ...test, upserts, perf };
}

async function tokenFor(email: string, orgId: string, extra: { role?: string; groups?: string[] } = {}) {
  return mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId, ...extra });
}

function post(app: Harness["app"], path: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function upsert(h: Harness, token: string, userEmail: string, documents: Record<string, DocumentInput>) {
  const response = await post(h.app, "/upsert", { user_email: userEmail, documents }, token);
  expect(response.status).toBe(200);
  return response.json() as Promise<{ status: string; user: string; num_chunks: string }>;
}

async function citedDocuments(h: Harness, token: string, userName: string, query: string): Promise<string[]> {
  const response = await post(h.app, "/predict", { query, user_info: { user_name: userName } }, token);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { sources: Record<string, { metadata: { doc_id: string } }> };
  return Object.values(body.sources).map((source) => source.metadata.doc_id);
}

let h: Harness;

describe("POST /upsert and /predict", () => {
  beforeEach(() => {
    h = harness();
  });

  it("stores documents and answers with a resolved, cited source", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    const stored = await upsert(h, ann, "ann@a.example", {
      vacation: {
        title: "Vacation policy",
        content: "New employees receive 20 vacation days in their first year.",
        metadata: { acl: "|user:_all_|", source: "hr-wiki" },
      },
    });
    expect(stored).toEqual({ status: "success", user: "ann@a.example", num_chunks: "1" });
    const response = await post(
      h.app,
      "/predict",
      { query: "How many vacation days do new employees get?", user_info: { user_name: "ann@a.example" } },
      ann,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        // The spec's fields
        "answer",
        "input",
        "original_query",
        "query",
        "sources",
        "thread_id",
        // docqa's additions (docs/http-api.md)
        "abstained",
        "abstention_reason",
        "answer_mode",
        "dropped_citations",
        "fallback_reason",
        "llm_ms",
        "model",
        "num_ctx",
        "num_predict",
        "prompt_version",
        "subqueries",
        "unsupported_citations",
      ].sort(),
    );
    expect(body).toMatchObject({
      subqueries: [],
      answer_mode: "extractive",
      abstained: false,
      abstention_reason: null,
      unsupported_citations: [],
      fallback_reason: null,
      dropped_citations: [],
      model: "extractive",
      num_predict: null,
      num_ctx: null,
      prompt_version: null,
    });
    expect(body.answer).toMatchObject({ callout_answer: "New employees receive 20 vacation days in their first year. [Source: doc_1]" });
    expect(body.sources).toEqual({
      doc_1: {
        title: "Vacation policy",
        source: "hr-wiki",
        page_content: "New employees receive 20 vacation days in their first year.",
        metadata: expect.objectContaining({ owner_id: "ann@a.example", acl: "|user:_all_|", doc_id: "vacation", org_id: orgA }),
      },
    });
    expect(body.thread_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.query).toBe("How many vacation days do new employees get?");
    expect(body.original_query).toBe("How many vacation days do new employees get?");
  });

  it("accepts a query mapping and continues a given thread id", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    await upsert(h, ann, "ann@a.example", { d: { title: "Printing", content: "Colour printing is limited to 200 pages per month." } });
    const threadId = "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60";
    const response = await post(
      h.app,
      "/predict",
      { query: { text: "colour printing limit" }, user_info: { user_name: "ann@a.example" }, thread_id: threadId },
      ann,
    );
    const body = (await response.json()) as { thread_id: string; answer: { callout_answer: string } };
    expect(body.thread_id).toBe(threadId);
    expect(body.answer.callout_answer).toContain("200 pages");
  });

  const emptyAnswer = {
    callout_answer: "No information could be found in the provided sources to answer this question.",
    positive_list: [],
    negative_list: [],
    info_list: [],
    keywords: [],
  };

  it("returns the spec's empty-context answer with abstention_reason no_documents when nothing readable is retrieved", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    const response = await post(h.app, "/predict", { query: "anything at all", user_info: { user_name: "ann@a.example" } }, ann);
    expect(await response.json()).toMatchObject({
      answer: emptyAnswer,
      sources: {},
      query: "anything at all",
      answer_mode: "empty-context",
      abstained: true,
      abstention_reason: "no_documents",
      unsupported_citations: [],
    });
  });

  it("abstains with low_relevance when what was retrieved is not about the question", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    await upsert(h, ann, "ann@a.example", {
      vacation: {
        title: "Vacation policy",
        content: "New employees receive 20 vacation days in their first year.",
        metadata: { acl: "|user:_all_|" },
      },
    });
    const response = await post(
      h.app,
      "/predict",
      { query: "Which vacation destinations in Mongolia have the best hiking trails?", user_info: { user_name: "ann@a.example" } },
      ann,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ answer: emptyAnswer, sources: {}, abstained: true, abstention_reason: "low_relevance" });
  });

  it("abstains, with the reason, when the documents are on the subject but do not answer", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    await upsert(h, ann, "ann@a.example", {
      vacation: {
        title: "Vacation policy",
        content: "New employees receive 20 vacation days in their first year.",
        metadata: { acl: "|user:_all_|" },
      },
    });
    // Everything matches but the year: the text says nothing about 2031.
    const response = await post(
      h.app,
      "/predict",
      { query: "How many vacation days do new employees get in 2031?", user_info: { user_name: "ann@a.example" } },
      ann,
    );
    // The relevance or the answerability model declines (the year is in no document).
    expect(await response.json()).toMatchObject({
      answer: emptyAnswer,
      sources: {},
      abstained: true,
      abstention_reason: expect.stringMatching(/^(not_answerable|low_relevance)$/),
    });
  });

  it("re-upserting a document replaces its chunks and skips unchanged ones", async () => {
    const ann = await tokenFor("ann@a.example", orgA);
    const long = Array.from({ length: 40 }, (_, index) => `Sentence ${index} about the old travel rules.`).join(" ");
    expect((await upsert(h, ann, "ann@a.example", { travel: { title: "Travel", content: long } })).num_chunks).toBe("2");
    expect(await h.store.count(orgA)).toBe(2);
    await upsert(h, ann, "ann@a.example", { travel: { title: "Travel", content: "Only the new rule remains." } });
    expect(await h.store.count(orgA)).toBe(1);
    const writes = h.upserts.count;
    await upsert(h, ann, "ann@a.example", { travel: { title: "Travel", content: "Only the new rule remains." } });
    expect(h.upserts.count).toBe(writes);
  });
});

describe("the seven ACL rules through /predict", () => {
  const owner = "owner@a.example";
  let ann: string;
  let bob: string;
  let finance: string;
  let engineer: string;
  let carol: string;

  beforeEach(async () => {
    h = harness();
    ann = await tokenFor("ann@a.example", orgA);
    bob = await tokenFor("Bob@A.example", orgA);
    finance = await tokenFor("fay@a.example", orgA, { role: "Finance" });
    engineer = await tokenFor("eve@a.example", orgA, { groups: ["Engineering"] });
    carol = await tokenFor("carol@b.example", orgB);
    // An administrator: the fixture names other owners (metadata.owner_id), which the write rules allow only to administrators.
    const ownerToken = await tokenFor(owner, orgA, { role: "admin" });
    const document = (topic: string, metadata: Record<string, string>) => ({
      title: `${topic} memo`,
      content: `The ${topic} memo says the ${topic} budget is confidential.`,
      metadata: { owner_id: owner, ...metadata },
    });
    await upsert(h, ownerToken, owner, {
      denied: document("walrus", { acl: "|user:_all_|deny:bob@a.example|" }),
      "owner-denied": {
        ...document("narwhal", { acl: "|deny:bob@a.example|" }),
        metadata: { owner_id: "bob@a.example", acl: "|deny:BOB@a.example|" },
      },
      "bob-owned": { ...document("otter", {}), metadata: { owner_id: "BOB@a.example" } },
      everyone: document("pelican", { acl: "|user:_all_|" }),
      "user-bob": document("gecko", { acl: "|user:bob@a.example|" }),
      "role-finance": document("heron", { acl: "|role:finance|" }),
      "group-engineering": document("lynx", { acl: "|group:engineering|" }),
      "no-acl": document("marmot", {}),
    });
  });

  it("rule 1: deny blocks, even when the ACL grants everyone", async () => {
    expect(await citedDocuments(h, bob, "bob@a.example", "walrus budget memo")).not.toContain("denied");
    expect(await citedDocuments(h, ann, "ann@a.example", "walrus budget memo")).toContain("denied");
  });

  it("rule 1 before rule 2: deny beats ownership", async () => {
    expect(await citedDocuments(h, bob, "bob@a.example", "narwhal budget memo")).not.toContain("owner-denied");
  });

  it("rule 2: the owner reads a document with no ACL (case-insensitive)", async () => {
    expect(await citedDocuments(h, bob, "bob@a.example", "otter budget memo")).toContain("bob-owned");
    expect(await citedDocuments(h, ann, "ann@a.example", "otter budget memo")).not.toContain("bob-owned");
  });

  it("rule 3: user:_all_ grants everyone of the organisation", async () => {
    expect(await citedDocuments(h, ann, "ann@a.example", "pelican budget memo")).toContain("everyone");
    expect(await citedDocuments(h, bob, "bob@a.example", "pelican budget memo")).toContain("everyone");
  });

  it("rule 4: user:<email> grants that user only", async () => {
    expect(await citedDocuments(h, bob, "bob@a.example", "gecko budget memo")).toContain("user-bob");
    expect(await citedDocuments(h, ann, "ann@a.example", "gecko budget memo")).not.toContain("user-bob");
  });

  it("rule 5: role:<r> grants users with that role", async () => {
    expect(await citedDocuments(h, finance, "fay@a.example", "heron budget memo")).toContain("role-finance");
    expect(await citedDocuments(h, ann, "ann@a.example", "heron budget memo")).not.toContain("role-finance");
  });

  it("rule 6: group:<g> grants members of that group", async () => {
    expect(await citedDocuments(h, engineer, "eve@a.example", "lynx budget memo")).toContain("group-engineering");
    expect(await citedDocuments(h, ann, "ann@a.example", "lynx budget memo")).not.toContain("group-engineering");
  });

  it("rule 7: without an ACL only the owner may read", async () => {
    expect(await citedDocuments(h, ann, "ann@a.example", "marmot budget memo")).not.toContain("no-acl");
    // An administrator: the fixture names other owners (metadata.owner_id), which the write rules allow only to administrators.
    const ownerToken = await tokenFor(owner, orgA, { role: "admin" });
    expect(await citedDocuments(h, ownerToken, owner, "marmot budget memo")).toContain("no-acl");
  });

  it("organisation B never sees organisation A's documents", async () => {
    for (const topic of ["walrus", "narwhal", "otter", "pelican", "gecko", "heron", "lynx", "marmot"]) {
      expect(await citedDocuments(h, carol, "carol@b.example", `${topic} budget memo`)).toEqual([]);
    }
  });
});

describe("authentication and bad input", () => {
  const documents = { d: { title: "T", content: "Some content." } };

  beforeEach(() => {
    h = harness();
  });

  async function expectRejected(response: Response, status: number, code: string) {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { detail: unknown; code: string };
    expect(body.code).toBe(code);
    expect(body.detail).toBeTruthy();
    expect(h.upserts.count).toBe(0);
    expect(await h.store.count(orgA)).toBe(0);
    return body;
  }

  const upsertBody = { user_email: "ann@a.example", documents };

  it("401 without a token", async () => {
    const response = await post(h.app, "/upsert", upsertBody);
    expect(response.headers.get("WWW-Authenticate")).toBe("Bearer");
    await expectRejected(response, 401, "missing_token");
  });

  it("401 for a non-Bearer Authorization header", async () => {
    await expectRejected(await post(h.app, "/upsert", upsertBody, undefined, { Authorization: "Basic YTpi" }), 401, "missing_token");
  });

  it("401 for a bad signature", async () => {
    const forged = await mintAccessToken(
      { secret: "another-secret", algorithm: "HS256", issuer: "oauth-app" },
      { email: "ann@a.example", orgId: orgA },
    );
    await expectRejected(await post(h.app, "/upsert", upsertBody, forged), 401, "invalid_token");
  });

  it("401 for an expired token", async () => {
    const expired = await mintAccessToken(
      { secret, algorithm: "HS256", issuer: "oauth-app" },
      { email: "ann@a.example", orgId: orgA, expiresInSeconds: -120 },
    );
    await expectRejected(await post(h.app, "/upsert", upsertBody, expired), 401, "token_expired");
  });

  it("401 for a wrong issuer", async () => {
    const wrongIssuer = await mintAccessToken(
      { secret, algorithm: "HS256", issuer: "oauth-app" },
      { email: "ann@a.example", orgId: orgA, issuer: "evil" },
    );
    await expectRejected(await post(h.app, "/upsert", upsertBody, wrongIssuer), 401, "invalid_token");
  });

  it("401 for a token whose type is not access", async () => {
    const refresh = await mintAccessToken(
      { secret, algorithm: "HS256", issuer: "oauth-app" },
      { email: "ann@a.example", orgId: orgA, type: "refresh" },
    );
    await expectRejected(await post(h.app, "/upsert", upsertBody, refresh), 401, "invalid_token");
  });

  it("401 for alg: none", async () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${encode({ alg: "none", typ: "JWT" })}.${encode({ email: "ann@a.example", org_id: orgA, type: "access", iss: "oauth-app", exp: now + 600, iat: now })}.`;
    await expectRejected(await post(h.app, "/upsert", upsertBody, unsigned), 401, "invalid_token");
  });

  it("401 for a token without exp", async () => {
    const noExpiry = await new SignJWT({ email: "ann@a.example", org_id: orgA, type: "access" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("oauth-app")
      .sign(new TextEncoder().encode(secret));
    await expectRejected(await post(h.app, "/upsert", upsertBody, noExpiry), 401, "invalid_token");
  });

  it("503 when JWT_SECRET is not configured", async () => {
    await h.service.close();
    h = harness({ secret: undefined });
    const token = await tokenFor("ann@a.example", orgA);
    await expectRejected(await post(h.app, "/upsert", upsertBody, token), 503, "auth_not_configured");
    await expectRejected(
      await post(h.app, "/predict", { query: "q", user_info: { user_name: "ann@a.example" } }, token),
      503,
      "auth_not_configured",
    );
  });

  it("400 for malformed JSON", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const body = await expectRejected(await post(h.app, "/upsert", '{"user_email": ', token), 400, "invalid_json");
    expect(body.detail).toBe("the request body is not valid JSON");
  });

  it("400 with a FastAPI-style detail list for missing and wrongly typed fields", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const body = await expectRejected(
      await post(h.app, "/upsert", { documents: { d: { title: 5, content: "x" } } }, token),
      400,
      "invalid_request",
    );
    expect(body.detail).toEqual([
      { type: "missing", loc: ["body", "user_email"], msg: expect.any(String) },
      { type: "invalid_type", loc: ["body", "documents", "d", "title"], msg: expect.any(String) },
    ]);
    const predict = await post(h.app, "/predict", { query: 42, user_info: { user_name: "ann@a.example" } }, token);
    expect(predict.status).toBe(400);
    expect(((await predict.json()) as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "query"]);
  });

  it("400 for a thread_id that is not a UUID", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const response = await post(h.app, "/predict", { query: "q", user_info: { user_name: "ann@a.example" }, thread_id: "thread-1" }, token);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      detail: [
        {
          type: "invalid_format",
          loc: ["body", "thread_id"],
          msg: "thread_id must be a UUID such as 0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60",
        },
      ],
      code: "invalid_request",
    });
  });

  it("400 for an empty documents map, and for an empty document", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const empty = await expectRejected(
      await post(h.app, "/upsert", { user_email: "ann@a.example", documents: {} }, token),
      400,
      "invalid_request",
    );
    expect(empty.detail).toEqual([{ type: "custom", loc: ["body", "documents"], msg: "documents must contain at least one document" }]);
    await expectRejected(
      await post(
        h.app,
        "/upsert",
        { user_email: "ann@a.example", documents: { good: { title: "ok", content: "fine" }, bad: { title: "x", content: "   " } } },
        token,
      ),
      400,
      "invalid_request",
    );
  });

  it("400 for an empty or whitespace query, as the OpenAPI document's pattern says, also inside a mapping", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    for (const query of ["   ", "\u0001\t", "\u3000\u00a0", { text: " " }, { query: "ok", text: "" }, {}, { other: "x" }]) {
      const response = await post(h.app, "/predict", { query, user_info: { user_name: "ann@a.example" } }, token);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_request");
    }
    expect(
      (await post(h.app, "/predict", { query: { text: "vacation days?" }, user_info: { user_name: "ann@a.example" } }, token)).status,
    ).toBe(200);
  });

  it("403 when the body names another user than the token", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    await expectRejected(await post(h.app, "/upsert", { user_email: "mallory@a.example", documents }, token), 403, "principal_mismatch");
    const response = await post(h.app, "/predict", { query: "q", user_info: { user_name: "bob@a.example" } }, token);
    expect(response.status).toBe(403);
  });

  it("413 for a body larger than MAX_REQUEST_BYTES", async () => {
    h = { ...h, ...routes.harness({ embeddings: null, server: { limits: { maxRequestBytes: 2048 } } }) };
    const token = await tokenFor("ann@a.example", orgA);
    const response = await post(
      h.app,
      "/upsert",
      { user_email: "ann@a.example", documents: { d: { title: "big", content: "x".repeat(5000) } } },
      token,
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: "the request body exceeds 2048 bytes (MAX_REQUEST_BYTES)", code: "payload_too_large" });
  });

  it("413 too_many_documents above MAX_UPSERT_DOCUMENTS, and payload_too_large for a document above MAX_EXTRACTED_CHARS; nothing is written", async () => {
    h = { ...h, ...routes.harness({ config: { ingestion: { maxUpsertDocuments: 3, maxExtractedChars: 1000 } }, embeddings: null }) };
    const token = await tokenFor("ann@a.example", orgA);
    const documents = Object.fromEntries(["a", "b", "c", "d"].map((id) => [id, { title: id, content: `Document ${id}.` }]));
    const many = await expectRejected(
      await post(h.app, "/upsert", { user_email: "ann@a.example", documents }, token),
      413,
      "too_many_documents",
    );
    expect(many.detail).toBe(
      "the request holds 4 documents; the limit is 3 per request (MAX_UPSERT_DOCUMENTS): send them in several requests",
    );
    const long = { ok: { title: "ok", content: "Short." }, long: { title: "long", content: "y".repeat(1001) } };
    const tooLong = await expectRejected(
      await post(h.app, "/upsert", { user_email: "ann@a.example", documents: long }, token),
      413,
      "payload_too_large",
    );
    expect(tooLong.detail).toBe('document "long" has 1001 characters; the limit is 1000 (MAX_EXTRACTED_CHARS)');
  });

  it("503 ingestion_busy with Retry-After while INGESTION_QUEUE_SIZE ingestion requests are in progress", async () => {
    // A job store whose saves wait for a gate: the job started below holds the one place until released.
    const jobs = createInMemoryJobStore();
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const jobStore: JobStore = { ...jobs, save: async (job) => gate.then(() => jobs.save(job)) };
    h = { ...h, ...routes.harness({ config: { ingestion: { queueSize: 1 } }, embeddings: null, jobStore }) };
    const { service } = h;
    const principal = { userName: "ann@a.example", roles: [], groups: [] };
    const job = service.ingestFiles({ orgId: orgA, principal, files: [{ name: "a.txt", bytes: new TextEncoder().encode("Alpha.") }] });
    const token = await tokenFor("ann@a.example", orgA);
    const busy = await post(h.app, "/upsert", upsertBody, token);
    expect(busy.status).toBe(503);
    expect(busy.headers.get("Retry-After")).toBe("5");
    expect(await busy.json()).toEqual({
      detail: "1 ingestion requests are in progress (INGESTION_QUEUE_SIZE is 1); retry after 5 s",
      code: "ingestion_busy",
    });
    open();
    expect((await job).state).toBe("succeeded");
    expect((await post(h.app, "/upsert", upsertBody, token)).status).toBe(200);
  });

  it("400 json_too_deep for metadata nested 5,000 levels deep (MAX_JSON_DEPTH 64), never a 500", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const nested = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const body = `{"user_email":"ann@a.example","documents":{"d":{"title":"t","content":"hello","metadata":{"x":${nested}}}}}`;
    const rejected = await expectRejected(await post(h.app, "/upsert", body, token), 400, "json_too_deep");
    expect(rejected.detail).toBe("the request body is nested more than 64 levels deep (MAX_JSON_DEPTH)");
    // 64 levels from the body down, metadata included, are accepted.
    const fits = `{"user_email":"ann@a.example","documents":{"d":{"title":"t","content":"hello","metadata":{"x":${'{"a":'.repeat(59)}1${"}".repeat(59)}}}}}`;
    expect((await post(h.app, "/upsert", fits, token)).status).toBe(200);
  });

  it("reads a body sent without Content-Type as JSON, like FastAPI", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const response = await h.app.request("/upsert", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: new TextEncoder().encode(JSON.stringify(upsertBody)),
    });
    expect(response.status).toBe(200);
  });

  it("415 for a form body", async () => {
    const token = await tokenFor("ann@a.example", orgA);
    const response = await h.app.request("/upsert", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "user_email=ann",
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      detail: "the request body must be JSON (Content-Type: application/json)",
      code: "unsupported_media_type",
    });
  });
});

describe("other routes", () => {
  it("GET /healthz is public and reports the embedding status", async () => {
    h = harness();
    const response = await h.app.request("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok" });
  });

  it("GET /readyz is public and answers 200 with each backend's check", async () => {
    h = harness();
    const response = await h.app.request("/readyz");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: { role: string; backend: string; status: string }[] };
    expect(body.status).toBe("ready");
    expect(body.checks.filter((check) => check.status === "up").map((check) => `${check.role}:${check.backend}`)).toEqual([
      "startup:docqa",
      "vector:embedded",
      "keyword:embedded",
      "jobs:sqlite",
      "memory:in-memory",
    ]);
  });

  it("POST /query returns the intent and echoes the user with organisation, roles and groups", async () => {
    h = harness();
    const token = await tokenFor("ann@a.example", orgA, { role: "manager", groups: ["hr"] });
    const response = await post(
      h.app,
      "/query",
      { text: "How many vacation days do I have?", user_info: { user_name: "ann@a.example", real_name: "Ann" } },
      token,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      intent: "question",
      confidence: 0.9,
      requires_rag: true,
      input: "How many vacation days do I have?",
      user_info: { user_name: "ann@a.example", real_name: "Ann", org_id: orgA, current_roles: ["manager"], current_groups: ["hr"] },
    });
    const greeting = await post(h.app, "/query", { text: "Hello!", user_info: { user_name: "ann@a.example" } }, token);
    expect(await greeting.json()).toMatchObject({ intent: "greeting", requires_rag: false });
  });

  it("POST /testpredict is absent unless enabled, and needs no token when enabled", async () => {
    h = harness();
    const absent = await post(h.app, "/testpredict", { query: "q", user_info: { user_name: "a@b.c" } });
    expect(absent.status).toBe(404);
    expect(await absent.json()).toEqual({ detail: "no route POST /testpredict", code: "not_found" });
    await h.service.close();
    h = harness({ enableTestPredict: true });
    const owner = await tokenFor("ann@a.example", orgA);
    await upsert(h, owner, "ann@a.example", { d: { title: "Wi-Fi", content: "Guests use the Northwind-Guest network." } });
    const response = await post(h.app, "/testpredict", { query: "guest network", user_info: { user_name: "ann@a.example" }, org_id: orgA });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { prediction_time: number; answer: { callout_answer: string } };
    expect(body.answer.callout_answer).toContain("Northwind-Guest");
    expect(body.prediction_time).toBeGreaterThanOrEqual(0);
    expect(body.prediction_time).toBeLessThan(60);
  });

  it("answers unknown routes 404 and known paths with another method 405, in set A's JSON error shape", async () => {
    h = harness();
    const unknown = await h.app.request("/nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("Content-Type")).toContain("application/json");
    expect(await unknown.json()).toEqual({ detail: "no route GET /nowhere", code: "not_found" });
    const set = await post(h.app, "/api/chat", { message: "hi", sessionId: "s" });
    expect(await set.json()).toEqual({ detail: "no route POST /api/chat", code: "not_found" });
    // 405 comes before authentication: no token needed to learn the method is wrong.
    const get = await h.app.request("/predict");
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST");
    expect(await get.json()).toEqual({ detail: "GET is not allowed on /predict; use POST", code: "method_not_allowed" });
    const deleted = await h.app.request("/healthz", { method: "DELETE" });
    expect(deleted.status).toBe(405);
    expect(deleted.headers.get("Allow")).toBe("GET, HEAD");
  });

  it("is not rate limited by default; with rateLimit, /query, /predict and /upsert are, in set A's error shape", async () => {
    h = harness();
    const token = await tokenFor("ann@a.example", orgA);
    const intent = { text: "Hello!", user_info: { user_name: "ann@a.example" } };
    const unlimited = await post(h.app, "/query", intent, token);
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.get("RateLimit-Limit")).toBeNull();
    const limited = predictRoutes(h.service, { server: resolveServerConfig({ jwt: { secret } }), rateLimit: { perMinute: 1, perHour: 0 } });
    const first = await post(limited, "/query", intent, token);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Policy")).toBe("1;w=60");
    const second = await post(limited, "/upsert", { user_email: "ann@a.example", documents: { d: { title: "t", content: "c" } } }, token);
    expect(second.status).toBe(429);
    expect(second.headers.get("Retry-After")).toBe("60");
    expect(await second.json()).toEqual({
      detail: "rate limit exceeded: 1 request per minute per user; retry after 60 s",
      code: "rate_limited",
    });
    expect((await limited.request("/healthz")).status).toBe(200);
  });

  it("serves the OpenAPI document and reference pages without a CDN", async () => {
    h = harness();
    const openApi = (await (await h.app.request("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openApi.paths).sort()).toEqual([
      "/documents",
      "/documents/{doc_id}",
      "/healthz",
      "/predict",
      "/query",
      "/readyz",
      "/upsert",
    ]);
    const docs = await (await h.app.request("/docs")).text();
    expect(docs).toContain('src="docs/assets/swagger-ui-bundle.js"');
    expect(docs).not.toMatch(/https?:\/\//);
    const redoc = await (await h.app.request("/redoc")).text();
    expect(redoc).toContain('src="docs/assets/redoc.standalone.js"');
    const script = await h.app.request("/docs/assets/redoc.standalone.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toContain("javascript");
  });
});

describe("PERF lines", () => {
  it("emits rag_start, retrieval_done and rag_end with integer millisecond times", async () => {
    h = harness();
    const token = await tokenFor("ann@a.example", orgA);
    await upsert(h, token, "ann@a.example", { d: { title: "Badge", content: "Print jobs are released with your badge." } });
    await post(h.app, "/predict", { query: "How are print jobs released?", user_info: { user_name: "ann@a.example" } }, token, {
      "X-Request-Id": "req-1",
    });
    expect(h.perf.map((event) => event.event)).toEqual(["rag_start", "retrieval_done", "rag_end"]);
    const [start, retrieval, end] = h.perf as [PerfEvent, PerfEvent, PerfEvent];
    expect(start).toEqual({ event: "rag_start", ts: expect.any(Number), request_id: "req-1" });
    expect(retrieval).toEqual({
      event: "retrieval_done",
      ts: expect.any(Number),
      request_id: "req-1",
      retrieval_ms: expect.any(Number),
      docs_count: 1,
    });
    expect(Object.keys(end).sort()).toEqual(
      [
        "abstained",
        "abstention_check",
        "abstention_reason",
        "answer_mode",
        "context_chars",
        "context_ms",
        "docs_count",
        "event",
        "fallback_reason",
        "prompt_version",
        "llm_ms",
        "model",
        "num_ctx",
        "num_predict",
        "post_ms",
        "query_hash",
        "query_rewrite",
        "request_id",
        "retrieval_ms",
        "total_ms",
        "ts",
        "unsupported_citations",
      ].sort(),
    );
    for (const event of h.perf) {
      for (const [key, value] of Object.entries(event)) {
        if (key === "ts" || key.endsWith("_ms")) expect(Number.isInteger(value), key).toBe(true);
      }
    }
    expect(end).toMatchObject({
      model: "extractive",
      answer_mode: "extractive",
      num_predict: null,
      num_ctx: null,
      docs_count: 1,
      fallback_reason: null,
      prompt_version: null,
      abstained: false,
      abstention_reason: null,
      unsupported_citations: 0,
    });
  });
});
