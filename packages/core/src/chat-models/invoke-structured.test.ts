/**
 * Structured-output detection for OpenAI-compatible servers (`RAG_LLM_STRUCTURED_OUTPUT=auto`),
 * against the OpenAI wire server with the real `ChatOpenAI` client: a server that rejects a forced
 * tool call (as llama.cpp's `llama-server` does), one that ignores it, and one that honours it.
 */

import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { resiliencePolicy } from "./call-with-resilience.js";
import {
  defaultStructuredOutputMethod,
  detectedStructuredOutputMethod,
  detectStructuredOutputMethod,
  invokeStructured,
  type StructuredCall,
  toolCallWrittenAsText,
} from "./invoke-structured.js";

const schema = {
  type: "object",
  properties: { subqueries: { type: "array", items: { type: "string" } } },
  required: ["subqueries"],
  additionalProperties: false,
};
const output = '{"subqueries":["vacation days","travel expenses"]}';
/** llama-server's answer to LangChain's `tool_choice: {type: "function", function: {name}}`. */
const toolChoiceRejection = {
  type: "error",
  status: 400,
  message: "Wrong type supplied for parameter 'tool_choice'. Expected 'string', got 'object'",
} as const;

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function modelFor(detect: boolean) {
  const model = new ChatOpenAI({ model: "served", apiKey: "test", configuration: { baseURL: server.baseUrl }, maxRetries: 0 });
  if (detect) detectStructuredOutputMethod(model);
  return model;
}

function call(model: ChatOpenAI, extra: Partial<StructuredCall> = {}): Promise<Awaited<ReturnType<typeof invokeStructured>>> {
  return invokeStructured({
    model,
    schema,
    name: "decomposition",
    method: defaultStructuredOutputMethod(model),
    messages: [new HumanMessage("How many vacation days do I have, and how are travel expenses reimbursed?")],
    policy: resiliencePolicy({ timeoutMs: 10_000, maxRetries: 0 }),
    component: "openai",
    modelName: "served",
    ...extra,
  });
}

/** What each chat request asked for: a forced tool, or a response format. */
function methodsRequested(): string[] {
  return server.requests.map((request) => {
    const body = request.body as { tool_choice?: unknown; response_format?: { type?: string } };
    return body.tool_choice !== undefined ? "tool_choice" : (body.response_format?.type ?? "none");
  });
}

describe("structured-output detection (RAG_LLM_STRUCTURED_OUTPUT=auto, openai provider)", () => {
  it("sends the call again with json_schema when the server rejects tool_choice, and uses json_schema for that model from then on", async () => {
    const model = modelFor(true);
    server.enqueueChat(toolChoiceRejection, { type: "content", content: output }, { type: "content", content: output });
    const first = await call(model);
    expect(first.candidates[0]).toEqual({ subqueries: ["vacation days", "travel expenses"] });
    expect(first.attempts).toBe(2);
    expect(detectedStructuredOutputMethod(model)).toBe("jsonSchema");
    const second = await call(model);
    expect(second.candidates[0]).toEqual({ subqueries: ["vacation days", "travel expenses"] });
    expect(methodsRequested()).toEqual(["tool_choice", "json_schema", "json_schema"]);
  });

  it("streams with json_schema after the switch (tokens reach the listener once)", async () => {
    const model = modelFor(true);
    server.enqueueChat(toolChoiceRejection, { type: "content", content: output, chunkSize: 5 });
    const tokens: string[] = [];
    const result = await call(model, { onToken: (text) => tokens.push(text) });
    expect(tokens.join("")).toBe(output);
    expect(result.candidates[0]).toEqual({ subqueries: ["vacation days", "travel expenses"] });
  });

  it("asks again with json_schema when the server answers without a tool call (it ignored tool_choice), and keeps json_schema", async () => {
    const model = modelFor(true);
    server.enqueueChat(
      { type: "content", content: `\`\`\`json\n${output}\n\`\`\`` },
      { type: "content", content: output },
      { type: "content", content: output },
    );
    const first = await call(model);
    expect(first.candidates[0]).toEqual({ subqueries: ["vacation days", "travel expenses"] });
    expect(first.attempts).toBe(2);
    await call(model);
    expect(methodsRequested()).toEqual(["tool_choice", "json_schema", "json_schema"]);
  });

  it("uses a streamed reply without tool calls as it is (its tokens were sent), reading a tool call written as text", async () => {
    const model = modelFor(true);
    const written = `\`\`\`json\n{"name": "decomposition", "arguments": ${output}}\n\`\`\``;
    server.enqueueChat({ type: "content", content: written }, { type: "content", content: output });
    const tokens: string[] = [];
    const first = await call(model, { onToken: (text) => tokens.push(text) });
    expect(tokens.join("")).toBe(written);
    expect(first.candidates).toEqual([{ subqueries: ["vacation days", "travel expenses"] }, written]);
    expect(first.attempts).toBe(1);
    await call(model);
    expect(methodsRequested()).toEqual(["tool_choice", "json_schema"]);
  });

  it("keeps forced tool calls for a server that honours them", async () => {
    const model = modelFor(true);
    server.enqueueChat({ type: "output", text: output }, { type: "output", text: output });
    expect((await call(model)).candidates[0]).toEqual({ subqueries: ["vacation days", "travel expenses"] });
    await call(model);
    expect(detectedStructuredOutputMethod(model)).toBeUndefined();
    expect(methodsRequested()).toEqual(["tool_choice", "tool_choice"]);
  });

  it("does not switch on a 400 that is not about tools: the error reaches the caller", async () => {
    const model = modelFor(true);
    server.enqueueChat({ type: "error", status: 400, message: "the request exceeds the available context size" });
    await expect(call(model)).rejects.toMatchObject({ code: "model_unavailable", details: { reason: "rejected", status: 400 } });
    expect(detectedStructuredOutputMethod(model)).toBeUndefined();
    expect(methodsRequested()).toEqual(["tool_choice"]);
  });

  it("never switches a model that was not marked (RAG_LLM_STRUCTURED_OUTPUT=function_calling)", async () => {
    const model = modelFor(false);
    server.enqueueChat(toolChoiceRejection);
    await expect(call(model)).rejects.toMatchObject({ code: "model_unavailable", details: { reason: "rejected", status: 400 } });
    expect(methodsRequested()).toEqual(["tool_choice"]);
  });
});

describe("toolCallWrittenAsText", () => {
  it.each([
    ['{"name": "answer", "arguments": {"a": 1}}', { a: 1 }],
    ['```json\n{"name": "answer", "arguments": {"a": 1}}\n```', { a: 1 }],
    ['<tool_call>\n{"name": "answer", "arguments": {"a": 1}}\n</tool_call>', { a: 1 }],
    ['{"name": "answer", "parameters": {"a": 1}}', { a: 1 }],
  ])("reads the arguments of %j", (text, expected) => {
    expect(toolCallWrittenAsText(text, "answer")).toEqual(expected);
  });

  it.each([
    ['{"name": "other", "arguments": {"a": 1}}'],
    ['{"callout_answer": "x", "arguments": {"a": 1}}'],
    ['{"name": "answer", "arguments": "{\\"a\\": 1}"}'],
    ["The answer is 25 [Source: doc_1]."],
    ['{"name": "answer", "arguments": {"a": 1}'],
  ])("returns undefined for %j", (text) => {
    expect(toolCallWrittenAsText(text, "answer")).toBeUndefined();
  });
});

describe("a looping output (server providers)", () => {
  it("is cut off after a few periods of its loop, the text streamed so far kept as the raw output", async () => {
    const model = modelFor(false);
    const looping = `{"subqueries":["${"the travel expenses are reimbursed monthly, ".repeat(400)}`;
    server.enqueueChat({ type: "output", text: looping, chunkSize: 4, finishReason: "length" });
    const result = await call(model, { method: "jsonSchema" });
    const raw = String(result.candidates[0]);
    expect(raw.startsWith('{"subqueries":["the travel expenses')).toBe(true);
    // Four occurrences of a 16-piece span: stopped within the first few periods, not at the end.
    expect(raw.length).toBeLessThan(looping.length / 10);
    expect(result.parseError).toMatch(/repeated itself/);
  });

  it("keeps the text streamed so far when a reply stops at the token limit before its JSON ends", async () => {
    const model = modelFor(false);
    const cut = '{"subqueries":["vacation days","travel exp';
    server.enqueueChat({ type: "output", text: cut, chunkSize: 4, finishReason: "length" });
    const result = await call(model, { method: "jsonSchema" });
    // The raw text reaches the caller's repair (`repairAnswer` salvages a cut object).
    expect(result.candidates).toEqual([cut]);
  });

  it("leaves a repeated quotation alone: a span occurring three times is no loop", async () => {
    const model = modelFor(false);
    const sentence = "Travel expenses are reimbursed within thirty days of the claim.";
    const text = JSON.stringify({ subqueries: [sentence, sentence, sentence] });
    server.enqueueChat({ type: "output", text, chunkSize: 4 });
    const result = await call(model, { method: "jsonSchema" });
    expect(result.candidates[0]).toEqual({ subqueries: [sentence, sentence, sentence] });
  });
});
