/**
 * `/predict` and `/query` with a chat model configured (issue 6 acceptance): the service is
 * configured as in production (`RAG_LLM_PROVIDER`, `HOSTEDLLM_BASE_URL` or `LOCALLLM_BASE_URL`)
 * and the real `@langchain/openai` and `@langchain/ollama` clients talk to local servers that
 * speak the OpenAI and Ollama wire protocols. Every misbehaviour of the model is asserted at the
 * HTTP level, with the exact body a client receives; Server-Sent Events likewise.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Answer,
  createEmbeddedStore,
  createRagService,
  type DocqaConfigOverrides,
  DocqaError,
  type DocumentInput,
  type EmbeddedStore,
  mintAccessToken,
  type RagService,
  resolveConfig,
} from "@docqa/core";
import { PROMPT_VERSION } from "@docqa/core/answering";
import type { PerfEvent } from "@docqa/core/telemetry";
import { type OllamaWireServer, type OpenAIWireServer, startOllamaWireServer, startOpenAIWireServer } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";
import { readServerSentEvents } from "./testing/read-server-sent-events.js";

const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const ann = "ann@a.example";
const threadId = "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60";
const question = "How many vacation days do employees get?";

const handbook: Record<string, DocumentInput> = {
  vacation: {
    title: "Vacation policy",
    content: "Employees receive 25 vacation days per year. Unused vacation days expire on March 31 of the following year.",
    metadata: { acl: "|user:_all_|", source: "hr-wiki" },
  },
  travel: {
    title: "Travel policy",
    content: "Travel expenses must be submitted within 30 days of the trip, with receipts.",
    metadata: { acl: "|user:_all_|", source: "finance-wiki" },
  },
};

const good: Answer = {
  callout_answer: "Employees receive 25 vacation days per year [Source: doc_1].",
  positive_list: ["Unused vacation days expire on March 31 of the following year [Source: doc_1]"],
  negative_list: [],
  info_list: [],
  keywords: ["vacation days"],
};

/** The `sources` of an answer citing only the vacation document (the travel document is pruned). */
const vacationSource = {
  doc_1: {
    title: "Vacation policy",
    source: "hr-wiki",
    page_content: handbook.vacation?.content,
    metadata: expect.objectContaining({ doc_id: "vacation", owner_id: ann, acl: "|user:_all_|", org_id: orgA }),
  },
};

let openai: OpenAIWireServer;
let ollama: OllamaWireServer;
beforeAll(async () => {
  openai = await startOpenAIWireServer();
  ollama = await startOllamaWireServer();
});
afterAll(async () => {
  await openai.close();
  await ollama.close();
});

interface Harness {
  app: ReturnType<typeof predictRoutes>;
  service: RagService;
  /** The same store answered by the extractive answerer: what a fallback must return. */
  extractive: ReturnType<typeof predictRoutes>;
  perf: PerfEvent[];
}

const services: RagService[] = [];
let store: EmbeddedStore;
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docqa-model-"));
  store = createEmbeddedStore({ dataDir });
  openai.requests.length = 0;
  ollama.requests.length = 0;
});
afterEach(async () => {
  // Every scripted response was used: no test passes by leaving the model uncalled.
  expect([openai.pendingChat(), ollama.pendingChat()]).toEqual([0, 0]);
  await Promise.all(services.splice(0).map((service) => service.close()));
  await store.close();
});

/**
 * A service over the test's embedded store (shared by every harness of a test, closed after it),
 * BM25 only, configured with `config` (the model).
 */
function harness(config: DocqaConfigOverrides): Harness {
  const perf: PerfEvent[] = [];
  const base: DocqaConfigOverrides = {
    stores: { dataDir },
    logging: { level: "silent" },
    ingestion: { useRaptor: false },
  };
  const shared: EmbeddedStore = { ...store, close: async () => {} };
  const service = createRagService({
    config: resolveConfig({ ...config, logging: { perfLog: true, ...config.logging } }, base),
    stores: shared,
    embeddings: null,
    perfLog: (event) => perf.push(event),
  });
  const extractive = createRagService({
    config: resolveConfig({ models: { provider: "extractive" } }, base),
    stores: shared,
    embeddings: null,
  });
  services.push(service, extractive);
  const server = resolveServerConfig({ jwt: { secret } });
  return { app: predictRoutes(service, { server }), service, extractive: predictRoutes(extractive, { server }), perf };
}

const openaiConfig = (overrides: DocqaConfigOverrides = {}): DocqaConfigOverrides => ({
  ...overrides,
  models: { provider: "openai", hostedBaseUrl: openai.baseUrl, generatorModel: "gpt-4o-mini", ...overrides.models },
});

const token = () => mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: ann, orgId: orgA });

async function post(app: Harness["app"], path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${await token()}`, ...headers },
    body: JSON.stringify(body),
  });
}

async function upsert(h: Harness, documents: Record<string, DocumentInput> = handbook) {
  // As an administrator: fixtures may name other owners (metadata.owner_id).
  const admin = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: ann, orgId: orgA, role: "admin" });
  const response = await post(h.app, "/upsert", { user_email: ann, documents }, { Authorization: `Bearer ${admin}` });
  expect(response.status).toBe(200);
}

const ask = (h: Harness, query = question, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(h.app, "/predict", { query, user_info: { user_name: ann }, thread_id: threadId, ...extra }, headers);

/** The body `/predict` returns for a model answer citing the vacation document only. */
function modelBody(answer: Answer, overrides: Record<string, unknown> = {}) {
  return {
    answer,
    sources: vacationSource,
    query: question,
    original_query: question,
    input: question,
    thread_id: threadId,
    subqueries: [],
    answer_mode: "model",
    fallback_reason: null,
    abstained: false,
    abstention_reason: null,
    unsupported_citations: [],
    dropped_citations: [],
    model: "gpt-4o-mini",
    num_predict: null,
    num_ctx: null,
    prompt_version: PROMPT_VERSION,
    llm_ms: expect.any(Number),
    ...overrides,
  };
}

/** The extractive answer and sources for the same question over the same store. */
async function extractiveResult(h: Harness, query = question) {
  const response = await post(h.extractive, "/predict", { query, user_info: { user_name: ann }, thread_id: threadId });
  const body = (await response.json()) as { answer: Answer; sources: Record<string, unknown>; answer_mode: string };
  expect(body.answer_mode).toBe("extractive");
  return { answer: body.answer, sources: body.sources };
}

describe("/predict with an OpenAI-compatible server", () => {
  it("returns the spec's response with the model's answer, pruned sources, thread_id and the PERF fields", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good) });
    const response = await ask(h, question, {}, { "X-Request-Id": "req-7" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual(modelBody(good));
    expect(Number.isInteger(body.llm_ms)).toBe(true);

    // One model call (a single clause is not decomposed), with both retrieved documents in the prompt.
    expect(openai.requests).toHaveLength(1);
    const prompt = JSON.stringify(openai.requests[0]?.body);
    expect(prompt).toContain("[Source: doc_1] Vacation policy");
    expect(prompt).toContain("[Source: doc_2] Travel policy");
    expect(openai.requests[0]?.body).toMatchObject({
      model: "gpt-4o-mini",
      tool_choice: { type: "function", function: { name: "answer" } },
    });

    const end = h.perf.at(-1) as unknown as Record<string, unknown>;
    expect(end).toMatchObject({
      event: "rag_end",
      request_id: "req-7",
      docs_count: 2,
      model: "gpt-4o-mini",
      num_predict: null,
      num_ctx: null,
      answer_mode: "model",
      fallback_reason: null,
      prompt_version: PROMPT_VERSION,
    });
    expect(Number.isInteger(end.llm_ms)).toBe(true);
  });

  it("repairs JSON sent as a string", async () => {
    const h = harness(openaiConfig({ models: { structuredOutput: "json_mode" } }));
    await upsert(h);
    openai.enqueueChat({ type: "content", content: JSON.stringify(JSON.stringify(good)) });
    const response = await ask(h);
    expect(await response.json()).toEqual(modelBody(good));
    expect(openai.requests[0]?.body).toMatchObject({ response_format: { type: "json_object" } });
  });

  it("repairs JSON in a markdown fence", async () => {
    const h = harness(openaiConfig({ models: { structuredOutput: "json_mode" } }));
    await upsert(h);
    openai.enqueueChat({ type: "content", content: `Here is the answer:\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\`` });
    expect(await (await ask(h)).json()).toEqual(modelBody(good));
  });

  it("fills missing list fields with empty lists", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify({ callout_answer: good.callout_answer, keywords: ["vacation"] }) });
    expect(await (await ask(h)).json()).toEqual(
      modelBody({ callout_answer: good.callout_answer, positive_list: [], negative_list: [], info_list: [], keywords: ["vacation"] }),
    );
  });

  it("drops a citation to a key that was never in the context and reports it, without inventing a source", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({
      type: "output",
      text: JSON.stringify({ ...good, info_list: ["Carry-over needs approval [Source: doc_9]"] }),
    });
    expect(await (await ask(h)).json()).toEqual(
      modelBody({ ...good, info_list: ["Carry-over needs approval"] }, { dropped_citations: ["doc_9"] }),
    );
  });

  it("answers extractively, and says why, when every citation is invented", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: "25 days [Source: doc_7]", positive_list: [] }) });
    const body = await (await ask(h)).json();
    expect(body).toEqual({
      ...modelBody(good),
      ...(await extractiveResult(h)),
      answer_mode: "extractive-fallback",
      fallback_reason: "no_valid_citation",
    });
  });

  it("answers extractively, and says why, when the answer is empty", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: "" }) });
    const body = (await (await ask(h)).json()) as Record<string, unknown>;
    const extractive = await extractiveResult(h);
    expect(extractive.answer.callout_answer).toBe("Employees receive 25 vacation days per year. [Source: doc_1]");
    expect(body).toEqual({ ...modelBody(good), ...extractive, answer_mode: "extractive-fallback", fallback_reason: "empty_answer" });
    expect(h.perf.at(-1)).toMatchObject({ answer_mode: "extractive-fallback", fallback_reason: "empty_answer", model: "gpt-4o-mini" });
  });

  it("returns the spec's empty-context answer when the model says the sources do not answer", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    const none = "No information could be found in the provided sources to answer this question.";
    openai.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: none, positive_list: [] }) });
    expect(await (await ask(h)).json()).toEqual(
      modelBody(
        { callout_answer: none, positive_list: [], negative_list: [], info_list: [], keywords: [] },
        // The model abstained: the same fields as the pipeline's own abstention report it.
        { sources: {}, abstained: true, abstention_reason: "not_answerable" },
      ),
    );
  });

  it("answers 504 model_timeout when the model does not answer in RAG_LLM_TIMEOUT_MS, and aborts the model request", async () => {
    const h = harness(openaiConfig({ models: { timeoutMs: 300 } }));
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good), delayMs: 3_000 });
    const started = performance.now();
    const response = await ask(h);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      detail:
        "model gpt-4o-mini failed after 1 attempt (no answer within 300 ms): the model did not answer in time: raise the timeout, use a faster model, or lower MAX_CONTEXT_CHARS",
      code: "model_timeout",
    });
    await expect.poll(() => openai.openResponses()).toBe(0);
    expect(openai.requests[0]?.clientAborted).toBe(true);
  });

  it("retries a 429 after its Retry-After, then answers", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat(
      { type: "error", status: 429, headers: { "retry-after-ms": "200" } },
      { type: "output", text: JSON.stringify(good) },
    );
    const started = performance.now();
    const response = await ask(h);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(modelBody(good));
    expect(openai.requests).toHaveLength(2);
  });

  it("answers 502 model_unavailable when the model keeps failing after RAG_LLM_MAX_RETRIES retries", async () => {
    const h = harness(openaiConfig({ models: { maxRetries: 1 } }));
    await upsert(h);
    const failing = { type: "error" as const, status: 503, message: "overloaded", headers: { "retry-after-ms": "10" } };
    openai.enqueueChat(failing, failing);
    const response = await ask(h);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      detail:
        "model gpt-4o-mini failed after 2 attempts (HTTP 503: 503 overloaded): the model server keeps failing: check it and retry later",
      code: "model_unavailable",
    });
    expect(openai.requests).toHaveLength(2);
  });

  it("retries a response cut mid-way, then answers", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good), cutAfterChunks: 1 }, { type: "output", text: JSON.stringify(good) });
    const response = await ask(h);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(modelBody(good));
    expect(openai.requests).toHaveLength(2);
  });

  it("passes the conversation of the request to the model as context", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good) });
    await h.service.predict({
      orgId: orgA,
      principal: { userName: ann, roles: [], groups: [] },
      query: question,
      history: [
        { role: "user", content: "Who approves my leave?" },
        { role: "assistant", content: "Your manager approves leave." },
      ],
    });
    expect(JSON.stringify(openai.requests[0]?.body)).toContain(
      "<conversation>\\nUser: Who approves my leave?\\nAssistant: Your manager approves leave.\\n</conversation>",
    );
  });
});

describe("/predict with Ollama", () => {
  const ollamaConfig = (): DocqaConfigOverrides => ({
    models: { provider: "ollama", localBaseUrl: ollama.baseUrl, localModel: "llama3.1:8b", numPredict: 512, numCtx: 8192 },
  });

  it("returns the model's answer with num_predict and num_ctx in the body and the PERF line", async () => {
    const h = harness(ollamaConfig());
    await upsert(h);
    ollama.enqueueChat({ type: "output", text: JSON.stringify(good) });
    const response = await ask(h);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(modelBody(good, { model: "llama3.1:8b", num_predict: 512, num_ctx: 8192 }));
    expect(ollama.requests[0]).toMatchObject({
      path: "/api/chat",
      body: { model: "llama3.1:8b", options: { num_predict: 512, num_ctx: 8192, temperature: 0, top_p: 0.2 } },
    });
    expect(ollama.requests[0]?.body).toMatchObject({ format: { type: "object" } });
    expect(h.perf.at(-1)).toMatchObject({ model: "llama3.1:8b", num_predict: 512, num_ctx: 8192, answer_mode: "model" });
  });

  it("streams tokens, then a final event equal to the non-streamed body", async () => {
    const h = harness(ollamaConfig());
    await upsert(h);
    ollama.enqueueChat({ type: "output", text: JSON.stringify(good) }, { type: "output", text: JSON.stringify(good), chunkSize: 10 });
    const plain = (await (await ask(h)).json()) as Record<string, unknown>;
    const events = await readServerSentEvents(await ask(h, question, { stream: true }));
    const tokens = events.filter((event) => event.event === "token");
    expect(tokens.length).toBeGreaterThan(0);
    expect(events.at(-1)?.event).toBe("final");
    expect(tokens.map((event) => (event.data as { text: string }).text).join("")).toBe(JSON.stringify(good));
    expect({ ...(events.at(-1)?.data as object), llm_ms: 0 }).toEqual({ ...plain, llm_ms: 0 });
  });
});

describe("Server-Sent Events on /predict", () => {
  it("sends token events before the final event, which equals the non-streamed answer for the same output", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    const script = { type: "output" as const, text: JSON.stringify(good), chunkSize: 12 };
    openai.enqueueChat(script, script);
    const plain = (await (await ask(h)).json()) as Record<string, unknown>;
    expect(plain).toEqual(modelBody(good));

    const response = await ask(h, question, {}, { Accept: "text/event-stream" });
    expect(response.status).toBe(200);
    const events = await readServerSentEvents(response);
    expect(events.map((event) => event.event)).toEqual([...Array(events.length - 1).fill("token"), "final"]);
    expect(events.length).toBeGreaterThan(2);
    expect(
      events
        .slice(0, -1)
        .map((event) => (event.data as { text: string }).text)
        .join(""),
    ).toBe(JSON.stringify(good));
    expect({ ...(events.at(-1)?.data as object), llm_ms: 0 }).toEqual({ ...plain, llm_ms: 0 });
    expect(openai.requests[1]?.body).toMatchObject({ stream: true });
  });

  it("ends a stream cut mid-way with the extractive answer and fallback_reason stream_interrupted", async () => {
    const h = harness(openaiConfig());
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good), chunkSize: 8, cutAfterChunks: 3 });
    const events = await readServerSentEvents(await ask(h, question, { stream: true }));
    expect(events.map((event) => event.event)).toEqual([...Array(events.length - 1).fill("token"), "final"]);
    expect(
      events
        .slice(0, -1)
        .map((event) => (event.data as { text: string }).text)
        .join(""),
    ).toBe(JSON.stringify(good).slice(0, 24));
    expect(events.at(-1)?.data).toEqual({
      ...modelBody(good),
      ...(await extractiveResult(h)),
      answer_mode: "extractive-fallback",
      fallback_reason: "stream_interrupted",
      llm_ms: expect.any(Number),
    });
    // Tokens had reached the client: the cut stream is not retried.
    expect(openai.requests).toHaveLength(1);
  });

  it("answers an error before the first event as an ordinary HTTP error", async () => {
    const h = harness(openaiConfig({ models: { timeoutMs: 300 } }));
    await upsert(h);
    openai.enqueueChat({ type: "output", text: JSON.stringify(good), delayMs: 3_000 });
    const response = await ask(h, question, { stream: true });
    expect(response.status).toBe(504);
    expect(response.headers.get("Content-Type")).toContain("application/json");
    expect(await response.json()).toMatchObject({ code: "model_timeout" });
    await expect.poll(() => openai.openResponses()).toBe(0);
  });

  it("ends with an error event when the request fails after the first event", async () => {
    const h = harness({ models: { provider: "extractive" } });
    const failing: RagService = {
      ...h.service,
      predict: async (request) => {
        request.onToken?.('{"callout_answer": "');
        throw new DocqaError("store_unavailable", "the keyword index timed out", { component: "search-engine" });
      },
    };
    const response = await post(predictRoutes(failing, { server: resolveServerConfig({ jwt: { secret } }) }), "/predict", {
      query: question,
      user_info: { user_name: ann },
      stream: true,
    });
    expect(response.status).toBe(200);
    expect(await readServerSentEvents(response)).toEqual([
      { event: "token", data: { text: '{"callout_answer": "' } },
      { event: "error", data: { detail: "the keyword index timed out", code: "store_unavailable" } },
    ]);
  });

  it("sends only the final event with the extractive answerer, and honours stream: false over Accept", async () => {
    const h = harness({ models: { provider: "extractive" } });
    await upsert(h);
    const plain = (await (await ask(h)).json()) as Record<string, unknown>;
    expect(plain).toMatchObject({ answer_mode: "extractive", model: "extractive", prompt_version: null, fallback_reason: null });
    const events = await readServerSentEvents(await ask(h, question, { stream: true }));
    expect(events).toEqual([{ event: "final", data: { ...plain, llm_ms: expect.any(Number) } }]);
    const json = await ask(h, question, { stream: false }, { Accept: "text/event-stream" });
    expect(json.headers.get("Content-Type")).toContain("application/json");
  });
});

describe("query decomposition through /predict", () => {
  const documents: Record<string, DocumentInput> = {
    "expense-claims": {
      title: "Expense claims",
      content: "Travel expenses are reimbursed when the expense claim is filed within a month.",
      metadata: { acl: "|user:_all_|" },
    },
    "expenses-abroad": {
      title: "Travel expenses abroad",
      content: "Travel expenses in foreign currency are reimbursed at the exchange rate.",
      metadata: { acl: "|user:_all_|" },
    },
    "expense-approval": {
      title: "Expense approval",
      content: "Travel expenses above 500 euros need approval before they are reimbursed.",
      metadata: { acl: "|user:_all_|" },
    },
    "vacation-days": {
      title: "Vacation days",
      content: "Full-time employees have 25 vacation days per year.",
      metadata: { acl: "|user:_all_|" },
    },
    parking: { title: "Parking", content: "Employees get a parking space.", metadata: { acl: "|user:_all_|" } },
    "secret-reimbursement": {
      title: "Board travel expenses",
      content: "Board travel expenses are reimbursed in full, always, at any amount.",
      metadata: { acl: "|user:board@a.example|", owner_id: "board@a.example" },
    },
  };
  const compound = "How many vacation days do I have, and how are travel expenses reimbursed?";
  const subqueries = ["How many vacation days do I have", "How are travel expenses reimbursed"];
  // Cites every key a context of three chunks can have; keys that are not in the context are dropped.
  const citingAll = {
    callout_answer: "You have 25 vacation days [Source: doc_1]; expenses are reimbursed [Source: doc_2] [Source: doc_3].",
    positive_list: [],
    negative_list: [],
    info_list: [],
    keywords: [],
  };
  const depth: DocqaConfigOverrides = { retrieval: { bm25TopK: 2, retrieverTopK: 2, subqueryTopK: 2 } };
  const cited = (body: { sources: Record<string, { metadata: { doc_id: string } }> }) =>
    Object.values(body.sources).map((source) => source.metadata.doc_id);

  it("retrieves a document the single query misses, under the user's access rights", async () => {
    const single = harness(openaiConfig({ retrieval: { ...depth.retrieval, useQueryDecomposition: false } }));
    await upsert(single, documents);
    openai.enqueueChat({ type: "output", text: JSON.stringify(citingAll) });
    const without = (await (await ask(single, compound)).json()) as Parameters<typeof cited>[0] & Record<string, unknown>;
    expect(cited(without).sort()).toEqual(["expenses-abroad", "vacation-days"]);
    expect(without.subqueries).toEqual([]);
    expect(without.dropped_citations).toEqual(["doc_3"]);

    const decomposed = harness(openaiConfig(depth));
    openai.requests.length = 0;
    openai.enqueueChat({ type: "output", text: JSON.stringify({ subqueries }) }, { type: "output", text: JSON.stringify(citingAll) });
    const response = await ask(decomposed, compound);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Parameters<typeof cited>[0] & Record<string, unknown>;
    expect(body.subqueries).toEqual(subqueries);
    expect(cited(body)).toContain("expense-claims");
    expect(body.dropped_citations).toEqual([]);
    // The first call decomposed the question; the answer prompt lists the sub-queries (SUBQUERY_REASONING_ENABLED).
    expect(
      openai.requests.map((request) => (request.body as { tool_choice?: { function: { name: string } } }).tool_choice?.function.name),
    ).toEqual(["subqueries", "answer"]);
    const prompt = JSON.stringify(openai.requests[1]?.body);
    expect(prompt).toContain("- How are travel expenses reimbursed");
    // The board's document matches the sub-query best but is not readable by Ann: never in the context.
    expect(prompt).not.toContain("Board travel expenses");
  });

  it("does not call the model to decompose a single clause", async () => {
    const h = harness(openaiConfig(depth));
    await upsert(h, documents);
    openai.enqueueChat({ type: "output", text: JSON.stringify({ ...citingAll, callout_answer: "25 days [Source: doc_1]" }) });
    const body = (await (await ask(h, "How many vacation days do I have?")).json()) as Record<string, unknown>;
    expect(body.subqueries).toEqual([]);
    expect(openai.requests).toHaveLength(1);
  });
});

describe("/query and /healthz with a model", () => {
  it("detects the intent with the model", async () => {
    const h = harness(openaiConfig());
    openai.enqueueChat({ type: "output", text: JSON.stringify({ intent: "greeting", confidence: 0.97 }) });
    const response = await post(h.app, "/query", { text: "Morning!", user_info: { user_name: ann } });
    expect(await response.json()).toMatchObject({ intent: "greeting", confidence: 0.97, requires_rag: false, input: "Morning!" });
    expect(openai.requests[0]?.body).toMatchObject({ tool_choice: { function: { name: "intent" } } });
  });

  it("falls back to the rules when the model fails", async () => {
    const h = harness(openaiConfig());
    openai.enqueueChat({ type: "error", status: 500 });
    const response = await post(h.app, "/query", { text: "How many vacation days do I have?", user_info: { user_name: ann } });
    expect(await response.json()).toMatchObject({ intent: "question", confidence: 0.9, requires_rag: true });
  });

  it("documents streaming and the model errors of /predict in the OpenAPI document", async () => {
    const h = harness({ models: { provider: "extractive" } });
    const openApi = (await (await h.app.request("/openapi.json")).json()) as {
      paths: { "/predict": { post: { responses: Record<string, { content: Record<string, unknown> }> } } };
    };
    const responses = openApi.paths["/predict"].post.responses;
    expect(Object.keys(responses["200"]?.content ?? {})).toEqual(["application/json", "text/event-stream"]);
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(["502", "504"]));
  });

  it("reports the chat model in /healthz: ready, or disabled with the reason", async () => {
    const h = harness(openaiConfig());
    await h.service.ready();
    expect(await (await h.app.request("/healthz")).json()).toMatchObject({
      status: "ok",
      detail: { answerer: "openai", chatModel: { status: "ready", provider: "openai", model: "gpt-4o-mini" } },
    });
    const offline = harness({});
    await offline.service.ready();
    expect(await (await offline.app.request("/healthz")).json()).toMatchObject({
      detail: {
        answerer: "extractive",
        chatModel: {
          status: "disabled",
          detail: "RAG_LLM_PROVIDER is openai but neither HOSTEDLLM_API_KEY nor HOSTEDLLM_BASE_URL is set",
        },
      },
    });
  });
});
