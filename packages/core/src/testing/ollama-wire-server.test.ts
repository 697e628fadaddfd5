/**
 * The Ollama wire-protocol server at the byte level (plain `fetch`). The tests that drive it with
 * the real `ChatOllama` and `OllamaEmbeddings` live in `models/` and need `@langchain/ollama`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OllamaWireServer, startOllamaWireServer } from "./ollama-wire-server.js";
import { deterministicVector } from "./openai-wire-server.js";

let server: OllamaWireServer;
beforeAll(async () => {
  server = await startOllamaWireServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const post = (path: string, body: unknown) => fetch(`${server.baseUrl}${path}`, { method: "POST", body: JSON.stringify(body) });
const lines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { message: { content: string; tool_calls?: unknown }; done: boolean; done_reason?: string });

describe("startOllamaWireServer", () => {
  it("streams NDJSON by default: content pieces, then a done line with statistics", async () => {
    server.enqueueChat({ type: "content", content: "Hello world", chunkSize: 5 });
    const response = await post("/api/chat", { model: "llama3.1:8b", messages: [{ role: "user", content: "hi" }] });
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const parsed = lines(await response.text());
    expect(parsed.map((line) => [line.message.content, line.done])).toEqual([
      ["Hello", false],
      [" worl", false],
      ["d", false],
      ["", true],
    ]);
    expect(parsed.at(-1)).toMatchObject({ model: "llama3.1:8b", done_reason: "stop", prompt_eval_count: 10, eval_count: 3 });
    expect(server.requests[0]).toMatchObject({ path: "/api/chat", body: { model: "llama3.1:8b" } });
  });

  it("answers one JSON object when stream is false", async () => {
    server.enqueueChat({ type: "content", content: "Hello" });
    const body = await (await post("/api/chat", { model: "m", messages: [], stream: false })).json();
    expect(body).toMatchObject({ model: "m", message: { role: "assistant", content: "Hello" }, done: true, done_reason: "stop" });
  });

  it("returns tool calls whole, with object arguments; `output` follows tools and format", async () => {
    const tools = [{ type: "function", function: { name: "answer", parameters: {} } }];
    server.enqueueChat({ type: "output", text: '{"a":1}' }, { type: "output", text: '{"a":1}' }, { type: "output", text: "not json" });
    const withTools = await (await post("/api/chat", { model: "m", messages: [], stream: false, tools })).json();
    expect(withTools).toMatchObject({ message: { content: "", tool_calls: [{ function: { name: "answer", arguments: { a: 1 } } }] } });
    const withFormat = await (await post("/api/chat", { model: "m", messages: [], stream: false, tools, format: {} })).json();
    expect(withFormat).toMatchObject({ message: { content: '{"a":1}' } });
    const invalid = await (await post("/api/chat", { model: "m", messages: [], stream: false, tools })).json();
    expect(invalid).toMatchObject({ message: { content: "not json" } });
    expect((invalid as { message: object }).message).not.toHaveProperty("tool_calls");
  });

  it("cuts a stream after N lines without a done line", async () => {
    server.enqueueChat({ type: "content", content: "abcdefgh", chunkSize: 2, cutAfterChunks: 2 });
    const response = await post("/api/chat", { model: "m", messages: [] });
    let text = "";
    await expect(
      (async () => {
        for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(part).toString();
      })(),
    ).rejects.toThrow();
    expect(lines(text).map((line) => [line.message.content, line.done])).toEqual([
      ["ab", false],
      ["cd", false],
    ]);
  });

  it("sends errors as {error} with their status, and a 500 when no script is left", async () => {
    server.enqueueChat({ type: "error", status: 404, message: "model 'x' not found" });
    const missing = await post("/api/chat", { model: "x", messages: [] });
    expect([missing.status, await missing.json()]).toEqual([404, { error: "model 'x' not found" }]);
    const empty = await post("/api/chat", { model: "x", messages: [] });
    expect([empty.status, await empty.json()]).toEqual([500, { error: "ollama wire server: no scripted chat response left" }]);
  });

  it("embeds with /api/embed, deterministically or as scripted", async () => {
    const body = await (await post("/api/embed", { model: "nomic-embed-text", input: ["a b", "c"] })).json();
    expect(body).toMatchObject({ model: "nomic-embed-text", embeddings: [deterministicVector("a b", 8), deterministicVector("c", 8)] });
    server.enqueueEmbed({ type: "vectors", vectors: [[0, 1]] });
    expect(await (await post("/api/embed", { model: "e", input: "x" })).json()).toMatchObject({ embeddings: [[0, 1]] });
  });

  it("answers /api/version and /api/tags", async () => {
    expect(await (await fetch(`${server.baseUrl}/api/version`)).json()).toEqual({ version: "0.0.0-wire" });
    expect(await (await fetch(`${server.baseUrl}/api/tags`)).json()).toEqual({ models: [] });
  });
});
