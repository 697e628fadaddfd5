/**
 * Streaming answers with the real `@langchain/openai` client against the wire server's SSE
 * chunks: tokens arrive before the final event, the final event equals the non-streamed answer
 * for the same scripted output, and a stream cut mid-way ends in the extractive fallback.
 */
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import { handbookContext, handbookQuestion } from "../testing/handbook-context.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import type { Answer } from "./answer.js";
import { createModelAnswerer } from "./create-model-answerer.js";
import { createExtractiveAnswerer } from "./extractive-answerer.js";
import type { AnswerStreamEvent } from "./model-answerer.js";
import { resolveCitations } from "./resolve-citations.js";
import { streamModelAnswer } from "./stream-model-answer.js";

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
const answer: Answer = {
  callout_answer: "Employees receive 25 vacation days per year [Source: doc_1] [Source: doc_9].",
  positive_list: ["Unused vacation days expire on March 31 [Source: doc_1]"],
  negative_list: [],
  info_list: [],
  keywords: ["vacation"],
};
const text = JSON.stringify(answer);

function answerer(method: StructuredOutputMethod = "functionCalling") {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: server.baseUrl }, maxRetries: 0 });
  return createModelAnswerer({ model, structuredOutputMethod: method, resilience: { timeoutMs: 5_000, baseDelayMs: 10, maxDelayMs: 20 } });
}

async function collect(events: AsyncIterable<AnswerStreamEvent>): Promise<AnswerStreamEvent[]> {
  const collected: AnswerStreamEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

describe("streamModelAnswer", () => {
  it.each(["functionCalling", "jsonMode"] as const)(
    "streams tokens, then a final event equal to the non-streamed answer (%s)",
    async (method) => {
      server.enqueueChat({ type: "output", text });
      const expected = await answerer(method).answer(request);
      server.enqueueChat({ type: "output", text, chunkSize: 16 });
      const events = await collect(streamModelAnswer(answerer(method), request));

      expect(server.requests[1]?.body).toMatchObject({ stream: true });
      const tokens = events.filter((event) => event.type === "token");
      expect(tokens).toHaveLength(Math.ceil(text.length / 16));
      expect(tokens.map((event) => event.text).join("")).toBe(text);
      expect(events.at(-1)?.type).toBe("final");
      expect(events.filter((event) => event.type === "final")).toHaveLength(1);
      const final = events.at(-1) as Extract<AnswerStreamEvent, { type: "final" }>;
      expect(final.generated).toEqual(expected);
      expect(final.resolved).toEqual(resolveCitations(expected.answer, context.sources));
      expect(final.resolved.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
      expect(final.resolved.unknownKeys).toEqual(["doc_9"]);
      expect(Object.keys(final.resolved.sources)).toEqual(["doc_1"]);
    },
  );

  it("ends a stream cut mid-way with the extractive fallback, after the tokens already sent", async () => {
    server.enqueueChat({ type: "output", text, chunkSize: 16, cutAfterChunks: 3 });
    const events = await collect(streamModelAnswer(answerer(), request));
    const tokens = events.filter((event) => event.type === "token");
    expect(tokens.map((event) => event.text).join("")).toBe(text.slice(0, 48));
    const final = events.at(-1) as Extract<AnswerStreamEvent, { type: "final" }>;
    expect(final.type).toBe("final");
    expect(final.generated.mode).toBe("extractive-fallback");
    expect((final.generated as { fallbackReason: string }).fallbackReason).toBe("stream_interrupted");
    expect(final.generated.answer).toEqual((await createExtractiveAnswerer().answer(request)).answer);
    expect(server.requests).toHaveLength(1);
  });

  it("ends a stream that times out after its first tokens with the extractive fallback", async () => {
    server.enqueueChat({ type: "output", text, chunkSize: 32, chunkDelayMs: 400 });
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: server.baseUrl }, maxRetries: 0 });
    const slow = createModelAnswerer({ model, resilience: { timeoutMs: 600 } });
    const events = await collect(streamModelAnswer(slow, request));
    const tokens = events.filter((event) => event.type === "token");
    expect(tokens.map((event) => event.text)).toEqual([text.slice(0, 32), text.slice(32, 64)]);
    const final = events.at(-1) as Extract<AnswerStreamEvent, { type: "final" }>;
    expect([final.generated.mode, (final.generated as { fallbackReason: string }).fallbackReason]).toEqual([
      "extractive-fallback",
      "stream_interrupted",
    ]);
    await expect.poll(() => server.requests[0]?.clientAborted).toBe(true);
  });

  it("retries a stream cut before its first token", async () => {
    server.enqueueChat({ type: "output", text, cutAfterChunks: 0 }, { type: "output", text, chunkSize: 64 });
    const events = await collect(streamModelAnswer(answerer(), request));
    expect(
      events
        .filter((event) => event.type === "token")
        .map((event) => event.text)
        .join(""),
    ).toBe(text);
    const final = events.at(-1) as Extract<AnswerStreamEvent, { type: "final" }>;
    expect([final.generated.mode, (final.generated as { attempts: number }).attempts]).toEqual(["model", 2]);
    expect(server.requests).toHaveLength(2);
  });

  it("aborts the model call when the consumer stops reading", async () => {
    server.enqueueChat({ type: "output", text, chunkSize: 4, chunkDelayMs: 50 });
    for await (const event of streamModelAnswer(answerer(), request)) {
      expect(event.type).toBe("token");
      break;
    }
    await expect.poll(() => server.requests[0]?.clientAborted).toBe(true);
    await expect.poll(() => server.openResponses()).toBe(0);
  });

  it("streams the extractive answerer as a single final event", async () => {
    const extractive = createExtractiveAnswerer();
    const events = await collect(streamModelAnswer(extractive, request));
    const expected = await extractive.answer(request);
    expect(events).toEqual([{ type: "final", generated: expected, resolved: resolveCitations(expected.answer, context.sources) }]);
  });
});
