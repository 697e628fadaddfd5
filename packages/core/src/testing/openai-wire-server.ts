/**
 * A local HTTP server speaking the OpenAI wire protocol (Chat Completions and Embeddings), so
 * the real `@langchain/openai` clients (and the `openai` SDK under them) run unchanged in tests.
 * It listens on `127.0.0.1:0` and answers from per-test queues of scripted responses: content,
 * tool calls, errors with headers such as `Retry-After`, delays, and streams cut mid-way.
 *
 * Wire formats follow the OpenAI API reference: `POST /v1/chat/completions` returns a
 * `chat.completion` object, or with `stream: true` Server-Sent Events of `chat.completion.chunk`
 * objects ended by `data: [DONE]`; `POST /v1/embeddings` returns a `list` of `embedding` objects,
 * as float arrays or, with `encoding_format: "base64"` (the SDK's default), as base64 of
 * little-endian float32 values.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Timing and transport behaviour common to every scripted response. */
export interface WireTiming {
  /** Milliseconds to wait before sending the response headers; default 0. */
  delayMs?: number;
  /** Extra response headers, for example `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
  /** Characters of text per streamed delta; default 8. */
  chunkSize?: number;
  /** Milliseconds between streamed chunks; default 0. */
  chunkDelayMs?: number;
  /**
   * Cut the connection (destroy the socket, without `[DONE]` or a final chunk) after this many
   * text deltas of a streamed response, or halfway through the body of a non-streamed one.
   */
  cutAfterChunks?: number;
}

/**
 * One scripted answer of `POST /v1/chat/completions`:
 * - `content`: the assistant message's text;
 * - `tool-call`: one tool call with these raw `arguments` (any string, even invalid JSON); the
 *   tool name defaults to the one the request forces with `tool_choice`, else its first tool;
 * - `output`: a tool call when the request forces a tool, else content; so one script serves
 *   every structured-output method; `finishReason: "length"` (here and on `content`) says the
 *   reply stopped at the token limit, as a model that loops until `max_tokens` does;
 * - `error`: an HTTP error with an OpenAI error body (or `body` verbatim).
 */
export type OpenAIChatScript = WireTiming &
  (
    | { type: "content"; content: string; finishReason?: "length" }
    | { type: "tool-call"; arguments: string; name?: string }
    | { type: "output"; text: string; finishReason?: "length" }
    | { type: "error"; status: number; message?: string; code?: string; body?: unknown }
  );

/** One scripted answer of `POST /v1/embeddings`; without one, deterministic vectors are returned. */
export type OpenAIEmbeddingsScript = WireTiming &
  ({ type: "vectors"; vectors: number[][] } | { type: "error"; status: number; message?: string; body?: unknown });

/** A request the server received. */
export interface WireRequest {
  method: string;
  /** Path without the query string, for example `/v1/chat/completions`. */
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** True when the client closed the connection before the response was complete. */
  clientAborted: boolean;
}

/** A running OpenAI wire-protocol server. */
export interface OpenAIWireServer extends AsyncDisposable {
  /** Base URL for clients, ending in `/v1` (`configuration.baseURL`, `HOSTEDLLM_BASE_URL`). */
  readonly baseUrl: string;
  /** Requests received, oldest first. */
  readonly requests: WireRequest[];
  /** Queues chat responses, used in order by the next chat requests. */
  enqueueChat(...scripts: OpenAIChatScript[]): void;
  /** Queues embeddings responses. */
  enqueueEmbeddings(...scripts: OpenAIEmbeddingsScript[]): void;
  /** Chat scripts not used yet. */
  pendingChat(): number;
  /** Responses still being written (0 once every client request is finished or abandoned). */
  openResponses(): number;
  /** Stops the server, closing open connections. */
  close(): Promise<void>;
}

/** Settings of {@link startOpenAIWireServer}. */
export interface OpenAIWireServerSettings {
  /** Dimension of the default deterministic embeddings; default 8 (or the request's `dimensions`). */
  embeddingDimension?: number;
}

/**
 * Starts an OpenAI wire-protocol server on `127.0.0.1` with a free port.
 *
 * When a chat request arrives and no script is queued, it answers 500 with an error saying so,
 * so a test that forgot a script fails loudly.
 *
 * @example
 * ```ts
 * await using server = await startOpenAIWireServer();
 * server.enqueueChat({ type: "error", status: 429, headers: { "retry-after": "1" } }, { type: "output", text: '{"a":1}' });
 * const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test", configuration: { baseURL: server.baseUrl } });
 * ```
 */
export async function startOpenAIWireServer(settings: OpenAIWireServerSettings = {}): Promise<OpenAIWireServer> {
  const chatQueue: OpenAIChatScript[] = [];
  const embeddingsQueue: OpenAIEmbeddingsScript[] = [];
  const requests: WireRequest[] = [];
  let open = 0;
  let sequence = 0;
  const cut = new WeakSet<ServerResponse>();

  const server = createServer((request, response) => {
    open++;
    let finished = false;
    response.on("close", () => {
      open--;
      if (!finished && !response.writableFinished && !cut.has(response)) recorded.clientAborted = true;
    });
    response.on("finish", () => {
      finished = true;
    });
    const recorded: WireRequest = {
      method: request.method ?? "GET",
      path: (request.url ?? "/").split("?")[0] as string,
      headers: request.headers,
      body: undefined,
      clientAborted: false,
    };
    requests.push(recorded);
    readBody(request)
      .then(async (text) => {
        recorded.body = parseJson(text);
        const body = (typeof recorded.body === "object" && recorded.body !== null ? recorded.body : {}) as Record<string, unknown>;
        if (recorded.method === "POST" && recorded.path === "/v1/chat/completions") {
          const script = chatQueue.shift() ?? {
            type: "error" as const,
            status: 500,
            message: "openai wire server: no scripted chat response left",
          };
          await answerChat(response, body, script, ++sequence, cut);
        } else if (recorded.method === "POST" && recorded.path === "/v1/embeddings") {
          await answerEmbeddings(response, body, embeddingsQueue.shift(), settings.embeddingDimension ?? 8);
        } else {
          sendJson(response, 404, {
            error: { message: `unknown route ${recorded.method} ${recorded.path}`, type: "invalid_request_error" },
          });
        }
      })
      .catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: { message: String(error), type: "server_error" } });
        else response.destroy();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueueChat: (...scripts) => chatQueue.push(...scripts),
    enqueueEmbeddings: (...scripts) => embeddingsQueue.push(...scripts),
    pendingChat: () => chatQueue.length,
    openResponses: () => open,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function answerChat(
  response: ServerResponse,
  body: Record<string, unknown>,
  script: OpenAIChatScript,
  sequence: number,
  cut: WeakSet<ServerResponse>,
) {
  await sleep(script.delayMs ?? 0, response);
  if (response.destroyed) return;
  if (script.type === "error") {
    const payload = script.body ?? {
      error: { message: script.message ?? `scripted error ${script.status}`, type: "server_error", code: script.code ?? null, param: null },
    };
    sendJson(response, script.status, payload, script.headers);
    return;
  }
  const model = typeof body.model === "string" ? body.model : "wire-model";
  const id = `chatcmpl-wire-${sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const forcedTool = forcedToolName(body);
  const asToolCall = script.type === "tool-call" || (script.type === "output" && forcedTool !== undefined);
  const text = script.type === "content" ? script.content : script.type === "tool-call" ? script.arguments : script.text;
  const toolName = (script.type === "tool-call" ? script.name : undefined) ?? forcedTool ?? "extract";
  const toolCallId = `call_wire_${sequence}`;
  const finishReason = ("finishReason" in script ? script.finishReason : undefined) ?? (asToolCall ? "tool_calls" : "stop");
  const usage = { prompt_tokens: 10, completion_tokens: countTokens(text), total_tokens: 10 + countTokens(text) };

  if (body.stream !== true) {
    const message = asToolCall
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: toolCallId, type: "function", function: { name: toolName, arguments: text } }],
        }
      : { role: "assistant", content: text };
    const payload = JSON.stringify({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage,
    });
    response.writeHead(200, { "content-type": "application/json", ...script.headers });
    if (script.cutAfterChunks !== undefined) {
      response.write(payload.slice(0, Math.floor(payload.length / 2)));
      await sleep(10, response);
      cut.add(response);
      response.socket?.destroy();
      return;
    }
    response.end(payload);
    return;
  }

  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...script.headers,
  });
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    response.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
    );
  send(
    asToolCall
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id: toolCallId, type: "function", function: { name: toolName, arguments: "" } }],
        }
      : { role: "assistant", content: "" },
  );
  const size = Math.max(1, script.chunkSize ?? 8);
  let sent = 0;
  for (let start = 0; start < text.length; start += size) {
    if (script.cutAfterChunks !== undefined && sent >= script.cutAfterChunks) {
      await sleep(10, response);
      cut.add(response);
      response.socket?.destroy();
      return;
    }
    const piece = text.slice(start, start + size);
    send(asToolCall ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece });
    sent++;
    await sleep(script.chunkDelayMs ?? 0, response);
    if (response.destroyed) return;
  }
  if (script.cutAfterChunks !== undefined) {
    cut.add(response);
    response.socket?.destroy();
    return;
  }
  send({}, finishReason);
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) {
    response.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
  }
  response.end("data: [DONE]\n\n");
}

async function answerEmbeddings(
  response: ServerResponse,
  body: Record<string, unknown>,
  script: OpenAIEmbeddingsScript | undefined,
  defaultDimension: number,
) {
  await sleep(script?.delayMs ?? 0, response);
  if (response.destroyed) return;
  if (script?.type === "error") {
    sendJson(
      response,
      script.status,
      script.body ?? { error: { message: script.message ?? `scripted error ${script.status}`, type: "server_error" } },
      script.headers,
    );
    return;
  }
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
  const dimension = typeof body.dimensions === "number" ? body.dimensions : defaultDimension;
  const vectors = script?.vectors ?? inputs.map((input) => deterministicVector(input, dimension));
  const base64 = body.encoding_format === "base64";
  sendJson(
    response,
    200,
    {
      object: "list",
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
      })),
      model: typeof body.model === "string" ? body.model : "wire-embedding",
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    },
    script?.headers,
  );
}

/** The tool name a request forces: `tool_choice.function.name`, or the only tool with `tool_choice` `required`. */
function forcedToolName(body: Record<string, unknown>): string | undefined {
  const choice = body.tool_choice as { function?: { name?: unknown } } | string | undefined;
  if (typeof choice === "object" && typeof choice.function?.name === "string") return choice.function.name;
  const tools = body.tools as { function?: { name?: unknown } }[] | undefined;
  const first = tools?.[0]?.function?.name;
  if ((choice === "required" || choice === undefined) && typeof first === "string" && body.response_format === undefined) return first;
  return undefined;
}

/**
 * A deterministic unit vector for `text` (FNV-1a hashes of its words into `dimension` buckets),
 * so embeddings tests get stable, text-dependent vectors.
 */
export function deterministicVector(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [""]) {
    let hash = 0x811c9dc5;
    for (const character of word) hash = Math.imul(hash ^ (character.codePointAt(0) as number), 0x01000193) >>> 0;
    const index = hash % dimension;
    vector[index] = (vector[index] as number) + (hash & 0x10000 ? 1 : -1);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(payload));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Waits `milliseconds`, returning early when the client goes away. */
function sleep(milliseconds: number, response: ServerResponse): Promise<void> {
  if (milliseconds <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      response.off("close", done);
      resolve();
    }
    response.once("close", done);
  });
}
