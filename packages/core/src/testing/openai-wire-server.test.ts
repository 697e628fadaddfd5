/**
 * The OpenAI wire-protocol server at the byte level (plain `fetch`), so its format is checked
 * independently of the clients that the model tests run against it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deterministicVector, type OpenAIWireServer, startOpenAIWireServer } from "./openai-wire-server.js";

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const post = (path: string, body: unknown) =>
  fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The JSON payloads of an SSE body, and whether it ended with `data: [DONE]`. */
function events(text: string): { payloads: Record<string, unknown>[]; done: boolean } {
  const data = text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length));
  return { payloads: data.filter((item) => item !== "[DONE]").map((item) => JSON.parse(item)), done: data.at(-1) === "[DONE]" };
}

describe("startOpenAIWireServer", () => {
  it("answers a chat completion with the scripted content and records the request", async () => {
    server.enqueueChat({ type: "content", content: "Hello." });
    const response = await post("/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    });
    expect(server.requests).toMatchObject([{ method: "POST", path: "/v1/chat/completions", body: { model: "m" }, clientAborted: false }]);
  });

  it("renders `output` as a call of the forced tool, and as content otherwise", async () => {
    server.enqueueChat({ type: "output", text: '{"a":1}' }, { type: "output", text: '{"a":1}' });
    const tools = [{ type: "function", function: { name: "answer", parameters: {} } }];
    const forced = await post("/chat/completions", {
      model: "m",
      messages: [],
      tools,
      tool_choice: { type: "function", function: { name: "answer" } },
    });
    expect(((await forced.json()) as { choices: unknown[] }).choices[0]).toMatchObject({
      message: { content: null, tool_calls: [{ type: "function", function: { name: "answer", arguments: '{"a":1}' } }] },
      finish_reason: "tool_calls",
    });
    const plain = await post("/chat/completions", { model: "m", messages: [], response_format: { type: "json_object" } });
    expect(((await plain.json()) as { choices: unknown[] }).choices[0]).toMatchObject({ message: { content: '{"a":1}' } });
  });

  it("streams content as SSE chunks, a finish chunk, usage when asked, then [DONE]", async () => {
    server.enqueueChat({ type: "content", content: "abcdefghij", chunkSize: 4 });
    const response = await post("/chat/completions", { model: "m", messages: [], stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { payloads, done } = events(await response.text());
    expect(done).toBe(true);
    const deltas = payloads.map((payload) => (payload.choices as { delta: { content?: string } }[])[0]?.delta.content);
    expect(deltas).toEqual(["", "abcd", "efgh", "ij", undefined, undefined]);
    expect(payloads[4]).toMatchObject({ choices: [{ finish_reason: "stop" }] });
    expect(payloads[5]).toMatchObject({ choices: [], usage: { completion_tokens: 3 } });
  });

  it("streams tool-call arguments in pieces", async () => {
    server.enqueueChat({ type: "tool-call", arguments: '{"x": true}', name: "extract", chunkSize: 5 });
    const { payloads, done } = events(await (await post("/chat/completions", { model: "m", messages: [], stream: true })).text());
    expect(done).toBe(true);
    const calls = payloads.map(
      (payload) =>
        (payload.choices as { delta: { tool_calls?: { function: { name?: string; arguments: string } }[] } }[])[0]?.delta.tool_calls?.[0]
          ?.function,
    );
    expect(calls).toEqual([
      { name: "extract", arguments: "" },
      { arguments: '{"x":' },
      { arguments: " true" },
      { arguments: "}" },
      undefined,
    ]);
  });

  it("cuts a stream after N deltas without [DONE]", async () => {
    server.enqueueChat({ type: "content", content: "abcdefghij", chunkSize: 2, cutAfterChunks: 2 });
    const response = await post("/chat/completions", { model: "m", messages: [], stream: true });
    const reader = response.body?.getReader();
    let text = "";
    const decoder = new TextDecoder();
    await expect(
      (async () => {
        while (reader) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
        }
      })(),
    ).rejects.toThrow();
    const { payloads, done } = events(text);
    expect(done).toBe(false);
    expect(payloads.map((payload) => (payload.choices as { delta: { content?: string } }[])[0]?.delta.content)).toEqual(["", "ab", "cd"]);
  });

  it("sends scripted errors with their headers, and a 500 when no script is left", async () => {
    server.enqueueChat({ type: "error", status: 429, headers: { "retry-after": "7" }, message: "slow down", code: "rate_limit_exceeded" });
    const limited = await post("/chat/completions", { model: "m", messages: [] });
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "7"]);
    expect(await limited.json()).toEqual({
      error: { message: "slow down", type: "server_error", code: "rate_limit_exceeded", param: null },
    });
    const empty = await post("/chat/completions", { model: "m", messages: [] });
    expect(empty.status).toBe(500);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toBe(
      "openai wire server: no scripted chat response left",
    );
  });

  it("records a client that gave up during a delay", async () => {
    server.enqueueChat({ type: "content", content: "late", delayMs: 1_000 });
    await expect(
      fetch(`${server.baseUrl}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [] }),
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow();
    await expect.poll(() => server.requests[0]?.clientAborted).toBe(true);
    await expect.poll(() => server.openResponses()).toBe(0);
  });

  it("returns deterministic embeddings as floats or base64 float32", async () => {
    const floats = (await (await post("/embeddings", { model: "e", input: ["a b", "c"], dimensions: 4 })).json()) as {
      data: { index: number; embedding: number[] }[];
    };
    expect(floats.data).toEqual([
      { object: "embedding", index: 0, embedding: deterministicVector("a b", 4) },
      { object: "embedding", index: 1, embedding: deterministicVector("c", 4) },
    ]);
    const encoded = (await (await post("/embeddings", { model: "e", input: "a b", encoding_format: "base64" })).json()) as {
      data: { embedding: string }[];
    };
    const bytes = Buffer.from(encoded.data[0]?.embedding as string, "base64");
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))).toEqual(
      Array.from(new Float32Array(deterministicVector("a b", 8))),
    );
    server.enqueueEmbeddings({ type: "vectors", vectors: [[1, 0]] }, { type: "error", status: 503 });
    expect(((await (await post("/embeddings", { input: "x" })).json()) as { data: { embedding: number[] }[] }).data[0]?.embedding).toEqual([
      1, 0,
    ]);
    expect((await post("/embeddings", { input: "x" })).status).toBe(503);
  });

  it("answers unknown routes with 404", async () => {
    expect((await post("/completions", {})).status).toBe(404);
  });
});

describe("deterministicVector", () => {
  it("is unit length, stable and text dependent", () => {
    const vector = deterministicVector("vacation days policy", 16);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 12);
    expect(deterministicVector("vacation days policy", 16)).toEqual(vector);
    expect(deterministicVector("travel expenses", 16)).not.toEqual(vector);
  });
});
