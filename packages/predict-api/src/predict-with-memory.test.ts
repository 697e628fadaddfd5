/**
 * `/predict` with conversation memory (issue 8 acceptance): a follow-up that only makes sense
 * with the previous turn retrieves and cites the right document within its thread and not
 * without it; threads are private to their creator and organisation; memory writes happen after
 * the response (a slow store does not delay it, a failing one does not break it).
 */
import { createInMemoryMemoryStore, type DocumentInput, mintAccessToken, silentLogger } from "@docqa/core";
import type { MemoryStore } from "@docqa/core/stores";
import { createRouteTests, type RouteTest } from "@docqa/http/testing";
import { afterEach, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";

const secret = "memory-test-secret-with-enough-entropy-01234";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const orgB = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const ann = "ann@a.example";
const bob = "bob@a.example";

const handbook: Record<string, DocumentInput> = {
  "vacation-employees": {
    title: "Vacation for employees",
    content: "Employees receive 25 vacation days per year. Unused vacation days expire on March 31.",
    metadata: { acl: "|user:_all_|" },
  },
  "vacation-contractors": {
    title: "Vacation for contractors",
    content: "Contractors receive 10 vacation days per year, taken in agreement with their project lead.",
    metadata: { acl: "|user:_all_|" },
  },
  "contractor-equipment": {
    title: "Contractor equipment",
    content:
      "Contractors return contractor laptops and contractor badges on their last day. Contractors keep contractor accounts for one week.",
    metadata: { acl: "|user:_all_|" },
  },
  parking: {
    title: "Parking",
    content: "The car park opens at 7:00; spaces are assigned by the facilities team.",
    metadata: { acl: "|user:_all_|" },
  },
};

const routes = createRouteTests((service, server) => predictRoutes(service, { server }), { jwt: { secret } });
afterEach(routes.close);
type Harness = RouteTest<ReturnType<typeof predictRoutes>>;

/** A set A app over a BM25-only service with `memoryStore`, the handbook stored in both organisations. */
async function harness(memoryStore: MemoryStore = createInMemoryMemoryStore()): Promise<Harness> {
  const h = routes.harness({
    // The service's own defaults (RAPTOR, the configured answerer and job store), BM25 only.
    config: {
      embeddings: { provider: "none" },
      retrieval: { useQueryDecomposition: false },
      ingestion: { useRaptor: true },
      models: { provider: "openai" },
    },
    embeddings: null,
    jobStore: "configured",
    memoryStore,
    logger: silentLogger,
  });
  const principal = { userName: ann, roles: [], groups: [] };
  for (const orgId of [orgA, orgB]) await h.service.upsert({ orgId, principal, uploader: ann, documents: handbook });
  return h;
}

async function ask(h: Harness, query: string, options: { user?: string; orgId?: string; threadId?: string } = {}) {
  const user = options.user ?? ann;
  const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId: options.orgId ?? orgA });
  const started = performance.now();
  const response = await h.app.request("/predict", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, user_info: { user_name: user }, ...(options.threadId ? { thread_id: options.threadId } : {}) }),
  });
  const elapsedMs = performance.now() - started;
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    query: string;
    original_query: string;
    thread_id: string;
    sources: Record<string, { metadata: { doc_id: string } }>;
  };
  return { ...body, cited: Object.values(body.sources).map((source) => source.metadata.doc_id), elapsedMs };
}

describe("/predict with conversation memory", () => {
  it("without the thread, the same follow-up does not find the document", async () => {
    const h = await harness();
    const first = await ask(h, "How many vacation days do employees get?");
    expect(first.cited[0]).toBe("vacation-employees");
    const withoutThread = await ask(h, "and for contractors?");
    expect(withoutThread.thread_id).not.toBe(first.thread_id);
    expect(withoutThread.query).toBe("and for contractors?");
    expect(withoutThread.cited[0]).not.toBe("vacation-contractors");
  });

  it("within the thread, the follow-up is rewritten from the earlier turn and cites the right document", async () => {
    const store = createInMemoryMemoryStore();
    const h = await harness(store);
    const first = await ask(h, "How many vacation days do employees get?");
    await new Promise((resolve) => setTimeout(resolve, 50)); // the turn is stored after the response
    const followUp = await ask(h, "and for contractors?", { threadId: first.thread_id });
    expect(followUp.thread_id).toBe(first.thread_id);
    expect(followUp.original_query).toBe("and for contractors?");
    expect(followUp.query).toBe("and for contractors? (vacation days)");
    expect(followUp.cited[0]).toBe("vacation-contractors");
  });

  it("gives the same thread_id used by another user or another organisation nothing of the first", async () => {
    const h = await harness();
    const first = await ask(h, "How many vacation days do employees get?");
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const other of [{ user: bob }, { orgId: orgB }]) {
      const followUp = await ask(h, "and for contractors?", { ...other, threadId: first.thread_id });
      expect(followUp.thread_id).toBe(first.thread_id);
      expect(followUp.query).toBe("and for contractors?");
    }
  });

  it("does not wait for a memory store that takes 2 s, and survives one that throws", async () => {
    const inner = createInMemoryMemoryStore();
    const slow: MemoryStore = {
      ...inner,
      append: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return inner.append(...args);
      },
    };
    const h = await harness(slow);
    const answered = await ask(h, "How many vacation days do employees get?", { threadId: "1b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a61" });
    expect(answered.elapsedMs).toBeLessThan(1500);
    expect(answered.cited[0]).toBe("vacation-employees");
    await h.service.close();

    const failing: MemoryStore = {
      name: "failing",
      load: async () => {
        throw new Error("memory down");
      },
      append: async () => {
        throw new Error("memory down");
      },
      deleteUser: async () => 0,
      ping: async () => {
        throw new Error("memory down");
      },
      close: async () => {},
    };
    const broken = await harness(failing);
    const stillAnswered = await ask(broken, "How many vacation days do employees get?", {
      threadId: "2b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a62",
    });
    expect(stillAnswered.cited[0]).toBe("vacation-employees");
  });

  it("deletes a user's memory on request (forgetUser)", async () => {
    const h = await harness();
    const first = await ask(h, "How many vacation days do employees get?");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await h.service.forgetUser({ orgId: orgA, principal: { userName: ann, roles: [], groups: [] } })).toEqual({ deleted: 2 });
    const followUp = await ask(h, "and for contractors?", { threadId: first.thread_id });
    expect(followUp.query).toBe("and for contractors?");
  });
});
