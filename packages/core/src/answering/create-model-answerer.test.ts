/**
 * The model answerer with the real `@langchain/openai` client against the OpenAI wire-protocol
 * server: every misbehaviour of issue 6 point 8, each with the exact client-visible result
 * (`resolveCitations` of the answer, as `/predict` returns it).
 */
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ResiliencePolicy } from "../chat-models/call-with-resilience.js";
import type { StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import { DocqaError } from "../errors/docqa-error.js";
import { PROMPT_VERSION } from "../prompts/prompts.js";
import { handbookContext, handbookQuestion } from "../testing/handbook-context.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { type Answer, emptyContextAnswer } from "./answer.js";
import { createModelAnswerer, missesAnswerType } from "./create-model-answerer.js";
import { createExtractiveAnswerer } from "./extractive-answerer.js";
import { type Evidence, rankEvidence } from "./rank-evidence.js";
import { resolveCitations } from "./resolve-citations.js";

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

const context = handbookContext();
const request = { question: handbookQuestion, context };
const fast: Partial<ResiliencePolicy> = { timeoutMs: 5_000, baseDelayMs: 20, maxDelayMs: 50 };

function answerer(method?: StructuredOutputMethod, resilience: Partial<ResiliencePolicy> = fast, baseURL = server.baseUrl) {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL }, maxRetries: 0, temperature: 0 });
  return createModelAnswerer({ model, structuredOutputMethod: method, resilience });
}

const good: Answer = {
  callout_answer: "Employees receive 25 vacation days per year [Source: doc_1].",
  positive_list: ["Unused vacation days expire on March 31 of the following year [Source: doc_1]"],
  negative_list: [],
  info_list: [],
  keywords: ["vacation days"],
};

const extractiveAnswer = async () => (await createExtractiveAnswerer().answer(request)).answer;

describe("createModelAnswerer", () => {
  it.each(["functionCalling", "jsonMode", "jsonSchema"] as const)("returns well-formed JSON as is (%s)", async (method) => {
    server.enqueueChat({ type: "output", text: JSON.stringify(good) });
    const generated = await answerer(method).answer(request);
    expect(generated).toEqual({
      answer: good,
      mode: "model",
      model: "gpt-4o-mini",
      abstained: false,
      abstentionReason: null,
      abstentionCheck: null,
      numPredict: null,
      numCtx: null,
      fallbackReason: null,
      fallbackDetail: null,
      repairs: [],
      promptVersion: PROMPT_VERSION,
      attempts: 1,
      grounding: null,
    });
    const resolved = resolveCitations(generated.answer, context.sources);
    expect(resolved.answer).toEqual(good);
    expect(Object.keys(resolved.sources)).toEqual(["doc_1"]);
    expect(resolved.unknownKeys).toEqual([]);
  });

  it("sends the prompt, the tool schema and the sampling settings on the wire", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify(good) });
    await answerer().answer(request);
    const body = server.requests[0]?.body as {
      model: string;
      temperature: number;
      tools: { function: { name: string; parameters: { required: string[] } } }[];
      tool_choice: unknown;
      messages: { role: string; content: string }[];
    };
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.temperature).toBe(0);
    expect(body.tools[0]?.function.name).toBe("answer");
    expect(body.tools[0]?.function.parameters.required).toEqual([
      "callout_answer",
      "positive_list",
      "negative_list",
      "info_list",
      "keywords",
    ]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "answer" } });
    expect(body.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(body.messages[1]?.content).toContain("[Source: doc_1] Vacation policy\nEmployees receive 25 vacation days per year.");
    expect(body.messages[1]?.content.endsWith(`Question: ${handbookQuestion}`)).toBe(true);
  });

  it("parses JSON inside a string, in content and in tool arguments", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify(JSON.stringify(good)) });
    const fromContent = await answerer("jsonMode").answer(request);
    expect([fromContent.mode, fromContent.answer]).toEqual(["model", good]);
    server.enqueueChat({ type: "output", text: JSON.stringify(JSON.stringify(good)) });
    const fromTool = await answerer("functionCalling").answer(request);
    expect([fromTool.mode, fromTool.answer]).toEqual(["model", good]);
  });

  it("parses JSON in a markdown fence, in tool arguments and in content", async () => {
    const fenced = `Here is the answer:\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\``;
    server.enqueueChat({ type: "tool-call", arguments: fenced });
    const fromTool = await answerer().answer(request);
    expect([fromTool.mode, fromTool.answer, fromTool.repairs]).toEqual(["model", good, ["markdown_fence"]]);
    server.enqueueChat({ type: "content", content: fenced });
    const fromContent = await answerer("jsonMode").answer(request);
    expect([fromContent.mode, fromContent.answer]).toEqual(["model", good]);
  });

  it("fills missing list fields with empty lists", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify({ callout_answer: good.callout_answer }) });
    const generated = await answerer().answer(request);
    expect(generated.mode).toBe("model");
    expect(generated.repairs).toEqual(["missing_fields"]);
    expect(resolveCitations(generated.answer, context.sources).answer).toEqual({
      callout_answer: "Employees receive 25 vacation days per year [Source: doc_1].",
      positive_list: [],
      negative_list: [],
      info_list: [],
      keywords: [],
    });
  });

  it("drops a citation to a key that was never in the context, keeping the rest", async () => {
    const invented = { ...good, callout_answer: "Employees receive 25 vacation days per year [Source: doc_1] [Source: doc_7]." };
    server.enqueueChat({ type: "output", text: JSON.stringify(invented) });
    const generated = await answerer().answer(request);
    expect(generated.mode).toBe("model");
    const resolved = resolveCitations(generated.answer, context.sources);
    expect(resolved.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
    expect(resolved.unknownKeys).toEqual(["doc_7"]);
    expect(Object.keys(resolved.sources)).toEqual(["doc_1"]);
  });

  it("reads a context key named in a free form as a citation of it", async () => {
    const free = {
      ...good,
      callout_answer: "Employees receive 25 vacation days per year, as described in document doc_1.",
      positive_list: [],
    };
    server.enqueueChat({ type: "output", text: JSON.stringify(free) });
    const generated = await answerer().answer(request);
    expect(generated.mode).toBe("model");
    expect(generated.answer.callout_answer).toBe("Employees receive 25 vacation days per year, as described in [Source: doc_1].");
  });

  it("falls back to the extractive answer when every citation is invented", async () => {
    const invented = { ...good, callout_answer: "Employees receive 40 days [Source: doc_7].", positive_list: [] };
    server.enqueueChat({ type: "output", text: JSON.stringify(invented) });
    const generated = await answerer().answer(request);
    expect(generated.mode).toBe("extractive-fallback");
    expect(generated.fallbackReason).toBe("no_valid_citation");
    expect(generated.fallbackDetail).toBe("the model's answer cites only keys that are not in the context (doc_7)");
    expect(generated.answer).toEqual(await extractiveAnswer());
    expect(generated.answer.callout_answer).toContain("25 vacation days");
    expect(resolveCitations(generated.answer, context.sources).unknownKeys).toEqual([]);
  });

  it("falls back to the extractive answer for an empty answer and for no output", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: "  " }) });
    const empty = await answerer().answer(request);
    expect([empty.mode, empty.fallbackReason, empty.fallbackDetail]).toEqual([
      "extractive-fallback",
      "empty_answer",
      "the model's callout_answer is empty",
    ]);
    expect(empty.answer).toEqual(await extractiveAnswer());
    server.enqueueChat({ type: "content", content: "" });
    const nothing = await answerer("jsonMode").answer(request);
    expect([nothing.mode, nothing.fallbackReason]).toEqual(["extractive-fallback", "empty_output"]);
  });

  it("falls back to the extractive answer for output that is not JSON", async () => {
    server.enqueueChat({ type: "output", text: "Employees get 25 days." });
    const generated = await answerer().answer(request);
    expect([generated.mode, generated.fallbackReason, generated.fallbackDetail]).toEqual([
      "extractive-fallback",
      "unparseable_output",
      "the model's output is not JSON: Employees get 25 days.",
    ]);
    expect(generated.answer).toEqual(await extractiveAnswer());
  });

  it("falls back to the extractive answer when a json_schema reply stops at the token limit (a model that looped)", async () => {
    server.enqueueChat({ type: "output", text: '{"callout_answer": "Employees receive 25 25 25 25', finishReason: "length" });
    const generated = await answerer("jsonSchema").answer(request);
    expect([generated.mode, generated.fallbackReason]).toEqual(["extractive-fallback", "unparseable_output"]);
    expect(generated.answer).toEqual(await extractiveAnswer());
  });

  it("returns the spec's empty-context answer when the model says the sources do not answer", async () => {
    const abstention = { ...emptyContextAnswer(), keywords: ["pension"] };
    server.enqueueChat({ type: "output", text: JSON.stringify(abstention) });
    const generated = await answerer().answer({ question: "What is the pension plan?", context });
    expect([generated.mode, generated.abstained, generated.answer]).toEqual(["model", true, emptyContextAnswer()]);
    expect(generated.abstentionCheck).toBe("model_declined");
    expect(resolveCitations(generated.answer, context.sources).sources).toEqual({});
  });

  it("reads a decline in the model's own words as a typed abstention", async () => {
    server.enqueueChat({
      type: "output",
      text: JSON.stringify({ ...good, callout_answer: "The provided sources do not mention a pension plan." }),
    });
    const generated = await answerer().answer({ question: "What is the pension plan?", context });
    expect(generated).toMatchObject({ abstained: true, abstentionReason: "not_answerable", abstentionCheck: "model_declined" });
    expect(generated.answer).toEqual(emptyContextAnswer());
  });

  it("grounds the answer in the evidence: an uncited sentence gets the citation of the passage that states it", async () => {
    const evidence = await rankEvidence(handbookQuestion, context, { analyzer: createEnglishAnalyzer() });
    server.enqueueChat({
      type: "output",
      text: JSON.stringify({ ...good, callout_answer: "Employees receive 25 vacation days per year.", positive_list: [] }),
    });
    const generated = await answerer().answer({ ...request, evidence });
    expect(generated.answer.callout_answer).toBe("Employees receive 25 vacation days per year. [Source: doc_1]");
    expect(generated.grounding).toEqual({ attached: 1, dropped: 0, unsupportedNames: 0 });
  });

  it("abstains (model_unsupported) when no sentence of the callout is supported by the context", async () => {
    const evidence = await rankEvidence(handbookQuestion, context, { analyzer: createEnglishAnalyzer() });
    server.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: "Staff get a company car and a gym pass." }) });
    const generated = await answerer().answer({ ...request, evidence });
    expect(generated).toMatchObject({
      mode: "model",
      abstained: true,
      abstentionReason: "not_answerable",
      abstentionCheck: "model_unsupported",
      answer: emptyContextAnswer(),
    });
  });

  it.each([
    "This information is provided in the source [Source: doc_1].",
    "This is based on the information provided in <sources>[Source: doc_1]>.",
    "This is based on the information provided in <sources>doc_1>.",
  ])("falls back to the extractive answer when the callout only points at a source: %s", async (callout) => {
    const evidence = await rankEvidence(handbookQuestion, context, { analyzer: createEnglishAnalyzer() });
    server.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: callout }) });
    const generated = await answerer().answer({ ...request, evidence });
    expect(generated).toMatchObject({ mode: "extractive-fallback", fallbackReason: "empty_answer", abstained: false });
    expect(generated.answer.callout_answer).toContain("25");
  });

  it("falls back to the extractive answer when the callout states no number for a question asking how many", async () => {
    const evidence = await rankEvidence(handbookQuestion, context, { analyzer: createEnglishAnalyzer() });
    const callout = "Employees receive vacation days every year [Source: doc_1].";
    server.enqueueChat({ type: "output", text: JSON.stringify({ ...good, callout_answer: callout, positive_list: [] }) });
    const generated = await answerer().answer({ ...request, evidence });
    expect(generated).toMatchObject({ mode: "extractive-fallback", fallbackReason: "answer_type", abstained: false });
    expect(generated.answer.callout_answer).toContain("25 vacation days");
    // The same callout stating the number stands.
    expect(missesAnswerType(handbookQuestion, "Employees receive 25 vacation days [Source: doc_1].", evidence)).toBe(false);
  });

  it("leaves a callout without the asked type when the context's best unit offers none either", () => {
    const units = (typeOffered: number) => ({ units: [{ features: { typeOffered } }] }) as unknown as Pick<Evidence, "units">;
    const question = "In what year was the report published?";
    expect(missesAnswerType(question, "GAO-23-106826, Cybersecurity [Source: doc_1]", units(1))).toBe(true);
    expect(missesAnswerType(question, "It was published in 2023 [Source: doc_1]", units(1))).toBe(false);
    expect(missesAnswerType(question, "GAO-23-106826, Cybersecurity [Source: doc_1]", units(0))).toBe(false);
    // Entities are read too loosely to judge.
    expect(missesAnswerType("Who wrote the report?", "the report [Source: doc_1]", units(1))).toBe(false);
  });

  it("abstains instead of answering extractively when the fallback would fail the checks of an extractive answer", async () => {
    const evidence = await rankEvidence(handbookQuestion, context, { analyzer: createEnglishAnalyzer() });
    const fallbackDecision = {
      answerable: false,
      reason: "not_answerable" as const,
      check: "answerability" as const,
      signals: { relevance: 0.9, answerability: 0.1, features: null, models: "test" },
    };
    server.enqueueChat({ type: "output", text: "not JSON at all" });
    const generated = await answerer().answer({ ...request, evidence, fallbackDecision });
    expect(generated).toMatchObject({
      mode: "extractive-fallback",
      fallbackReason: "unparseable_output",
      abstained: true,
      abstentionReason: "not_answerable",
      abstentionCheck: "answerability",
      answer: emptyContextAnswer(),
    });
    server.enqueueChat({ type: "output", text: "not JSON at all" });
    const answered = await answerer().answer({
      ...request,
      evidence,
      fallbackDecision: { ...fallbackDecision, answerable: true, reason: null, check: null },
    });
    expect(answered).toMatchObject({ mode: "extractive-fallback", abstained: false });
    expect(answered.answer.callout_answer).toContain("25 vacation days");
  });

  it("retries a 429 after its Retry-After, then succeeds", async () => {
    server.enqueueChat({ type: "error", status: 429, headers: { "retry-after": "1" } }, { type: "output", text: JSON.stringify(good) });
    const started = performance.now();
    const generated = await answerer().answer(request);
    const elapsed = performance.now() - started;
    expect([generated.mode, generated.answer, generated.attempts]).toEqual(["model", good, 2]);
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3000);
    expect(server.requests).toHaveLength(2);
  });

  it("retries 5xx with backoff and raises model_unavailable (502) when they persist", async () => {
    const failure = { type: "error" as const, status: 503, message: "overloaded" };
    server.enqueueChat(failure, failure, failure);
    const error = await answerer()
      .answer(request)
      .catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error)).toBe(true);
    expect((error as DocqaError).code).toBe("model_unavailable");
    expect((error as DocqaError).details).toEqual({ reason: "server_error", status: 503, attempts: 3, retryAfterMs: undefined });
    expect((error as DocqaError).message).toBe(
      "[docqa] [openai] model gpt-4o-mini failed after 3 attempts (HTTP 503: 503 overloaded): the model server keeps failing: check it and retry later",
    );
    expect(server.requests).toHaveLength(3);
  });

  it("retries a response cut mid-body as a connection failure", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify(good), cutAfterChunks: 0 }, { type: "output", text: JSON.stringify(good) });
    const generated = await answerer().answer(request);
    expect([generated.mode, generated.answer, generated.attempts]).toEqual(["model", good, 2]);
  });

  it("does not wait for a Retry-After longer than the time budget", async () => {
    server.enqueueChat({ type: "error", status: 429, headers: { "retry-after": "600" } });
    const started = performance.now();
    const error = (await answerer()
      .answer(request)
      .catch((caught: unknown) => caught)) as DocqaError;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.details).toEqual({ reason: "rate_limited", status: 429, attempts: 1, retryAfterMs: 600_000 });
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a rejected key", async () => {
    server.enqueueChat({ type: "error", status: 401, message: "Incorrect API key provided" });
    const error = (await answerer()
      .answer(request)
      .catch((caught: unknown) => caught)) as DocqaError;
    expect([error.code, error.details]).toEqual([
      "model_unavailable",
      { reason: "rejected", status: 401, attempts: 1, retryAfterMs: undefined },
    ]);
  });

  it("times out, aborts the HTTP request and reports the timeout", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify(good), delayMs: 3_000 });
    const started = performance.now();
    const error = (await answerer(undefined, { ...fast, timeoutMs: 300 })
      .answer(request)
      .catch((caught: unknown) => caught)) as DocqaError;
    expect(performance.now() - started).toBeLessThan(1500);
    expect([error.code, error.details]).toEqual([
      "model_timeout",
      { reason: "timeout", status: undefined, attempts: 1, retryAfterMs: undefined },
    ]);
    await expect.poll(() => server.openResponses()).toBe(0);
    expect(server.requests[0]?.clientAborted).toBe(true);
  });

  it("raises unreachable when nothing listens at the base URL", async () => {
    const error = (await answerer(undefined, fast, "http://127.0.0.1:9/v1")
      .answer(request)
      .catch((caught: unknown) => caught)) as DocqaError;
    expect([error.code, (error.details as { reason: string; attempts: number }).reason]).toEqual(["model_unavailable", "unreachable"]);
    expect((error.details as { attempts: number }).attempts).toBe(3);
  });

  it("rethrows the caller's abort without retrying", async () => {
    server.enqueueChat({ type: "output", text: JSON.stringify(good), delayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("client went away")), 100);
    await expect(answerer().answer({ ...request, signal: controller.signal })).rejects.toThrow("client went away");
    await expect.poll(() => server.openResponses()).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});
