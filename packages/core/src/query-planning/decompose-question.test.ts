import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Bm25Index } from "../embedded-store/bm25-index.js";
import { mergeResults } from "../retrieval/select-top-k.js";
import type { ChunkRecord, ScoredChunk } from "../stores/chunk-record.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { decomposeQuestion, isSingleClause, splitQuestion } from "./decompose-question.js";

describe("splitQuestion and isSingleClause", () => {
  it.each([
    ["How many vacation days do I get?", ["How many vacation days do I get"]],
    ["What is the difference between vacation and sick leave?", ["What is the difference between vacation and sick leave"]],
    ["Compare the dental and vision plans", ["Compare the dental and vision plans"]],
    ["pros and cons of the pension plan", ["pros and cons of the pension plan"]],
    ["Hi! What is the travel policy?", ["What is the travel policy"]],
    ["Who approves and pays for conference travel?", ["Who approves and pays for conference travel"]],
    ["Is there a dress code for customer visits", ["Is there a dress code for customer visits"]],
  ])("%s is a single clause", (question, parts) => {
    expect(splitQuestion(question)).toEqual(parts);
    expect(isSingleClause(question)).toBe(true);
  });

  it.each([
    ["How many vacation days do I get and how do I request them?", ["How many vacation days do I get", "how do I request them"]],
    ["What is the travel policy? What about meals?", ["What is the travel policy", "What about meals"]],
    ["List the holidays; explain the on-call rota", ["List the holidays", "explain the on-call rota"]],
    [
      "What is the difference between vacation and sick leave, and how are they accrued?",
      ["What is the difference between vacation and sick leave", "how are they accrued"],
    ],
    [
      "Tell me the parental leave policy, and also the adoption leave policy",
      ["Tell me the parental leave policy", "the adoption leave policy"],
    ],
    ["Who leads incident response but what if they are on holiday?", ["Who leads incident response", "what if they are on holiday"]],
    ["What is the VPN?\nHow do I install it?", ["What is the VPN", "How do I install it"]],
  ])("%s has several clauses", (question, parts) => {
    expect(splitQuestion(question)).toEqual(parts);
    expect(isSingleClause(question)).toBe(false);
  });

  it("caps the parts and removes duplicates", () => {
    expect(splitQuestion("What is A? What is B? What is C?", 2)).toEqual(["What is A", "What is B"]);
    expect(splitQuestion("What is A? what is a?")).toEqual(["What is A"]);
  });
});

describe("decomposeQuestion", () => {
  let server: OpenAIWireServer;
  beforeAll(async () => {
    server = await startOpenAIWireServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    expect(server.pendingChat()).toBe(0);
  });
  const model = () =>
    new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: server.baseUrl }, maxRetries: 0 });
  const compound = "How many vacation days do I get and how do I get travel expenses reimbursed?";

  it("skips a single clause without calling the model", async () => {
    expect(await decomposeQuestion("How many vacation days do I get?", { model: model(), maxSubqueries: 5 })).toEqual({
      subqueries: [],
      method: "single-clause",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("uses the rule's clauses without a model", async () => {
    expect(await decomposeQuestion(compound, { maxSubqueries: 5 })).toEqual({
      subqueries: ["How many vacation days do I get", "how do I get travel expenses reimbursed"],
      method: "rule",
    });
  });

  it("asks the model for at most N sub-queries and keeps them, deduplicated", async () => {
    server.enqueueChat({
      type: "output",
      text: JSON.stringify({
        subqueries: ["vacation days per year", "travel expense reimbursement", "Vacation days per year", "extra", "more"],
      }),
    });
    expect(await decomposeQuestion(compound, { model: model(), maxSubqueries: 3 })).toEqual({
      subqueries: ["vacation days per year", "travel expense reimbursement", "extra"],
      method: "model",
    });
    const body = server.requests[0]?.body as { tools: { function: { name: string } }[]; messages: { content: string }[] };
    expect(body.tools[0]?.function.name).toBe("subqueries");
    expect(body.messages[0]?.content).toContain("Return at most 3 queries");
    expect(body.messages[1]?.content).toBe(`Question: ${compound}`);
  });

  it("returns no sub-queries when the model finds a single need", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify({ subqueries: [compound] }) });
    expect(await decomposeQuestion(compound, { model: model(), maxSubqueries: 5 })).toEqual({ subqueries: [], method: "model" });
  });

  it("falls back to the rule when the model fails", async () => {
    server.enqueueChat({ type: "error", status: 500 }, { type: "error", status: 500 });
    const decomposition = await decomposeQuestion(compound, {
      model: model(),
      maxSubqueries: 5,
      resilience: { baseDelayMs: 5, maxDelayMs: 10 },
    });
    expect(decomposition.method).toBe("rule");
    expect(decomposition.subqueries).toEqual(["How many vacation days do I get", "how do I get travel expenses reimbursed"]);
    expect(decomposition.modelError).toMatch(/^model gpt-4o-mini failed after 2 attempts \(HTTP 500/);
  });

  it("saves the model round trip on simple questions (measured)", async () => {
    const delayMs = 300;
    server.enqueueChat({ type: "output", text: JSON.stringify({ subqueries: ["a b", "c d"] }), delayMs });
    const timed = async (question: string) => {
      const started = performance.now();
      await decomposeQuestion(question, { model: model(), maxSubqueries: 5 });
      return performance.now() - started;
    };
    const compoundMs = await timed(compound);
    const simpleMs = await timed("How many vacation days do I get?");
    expect(compoundMs).toBeGreaterThanOrEqual(delayMs);
    expect(simpleMs).toBeLessThan(50);
    console.info(
      `decomposition latency: compound question ${compoundMs.toFixed(1)} ms (one model call), single clause ${simpleMs.toFixed(2)} ms`,
    );
  });
});

describe("decomposition retrieves what a single query misses", () => {
  const analyzer = createEnglishAnalyzer();
  const documents: [string, string][] = [
    ["expense-claims", "Expense claims. Travel expenses are reimbursed when the expense claim is filed within a month."],
    ["expenses-abroad", "Travel expenses abroad. Travel expenses in foreign currency are reimbursed at the exchange rate."],
    ["expense-approval", "Expense approval. Travel expenses above 500 euros need approval before they are reimbursed."],
    ["vacation-days", "Vacation days. Full-time employees have 25 vacation days per year."],
    ["parking", "Parking. Employees get a parking space."],
  ];
  const chunks: ChunkRecord[] = documents.map(([docId, text]) => ({
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text,
    title: docId,
    source: "handbook",
    ownerId: "",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: docId,
  }));
  const index = new Bm25Index({ k1: 0.9, b: 0.4 });
  for (const [slot, chunk] of chunks.entries()) index.add(slot, analyzer.analyze(chunk.text));
  const topK = 2;
  const retrieve = async (query: string): Promise<ScoredChunk[]> =>
    index.search(analyzer.analyze(query), topK).map(({ id, score }) => ({ chunk: chunks[id] as ChunkRecord, score }));
  const question = "How many vacation days do I have, and how are travel expenses reimbursed?";

  it("finds the claims document only with sub-queries (BM25, top-k 2)", async () => {
    // The vacation document's rare terms dominate the whole question: one expense document fits.
    const single = await retrieve(question);
    expect(single.map((result) => result.chunk.docId)).toEqual(["vacation-days", "expenses-abroad"]);

    const { subqueries, method } = await decomposeQuestion(question, { maxSubqueries: 5 });
    expect([method, subqueries]).toEqual(["rule", ["How many vacation days do I have", "how are travel expenses reimbursed"]]);
    const perQuery = await Promise.all([question, ...subqueries].map(retrieve));
    expect(mergeResults(perQuery).map((result) => result.chunk.docId)).toEqual(["vacation-days", "expenses-abroad", "expense-claims"]);
  });
});
