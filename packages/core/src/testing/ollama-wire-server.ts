/**
 * A local HTTP server speaking the Ollama wire protocol, so the real `@langchain/ollama` clients
 * (and the `ollama` package under them) run unchanged in tests. It listens on `127.0.0.1:0` and
 * answers from per-test queues of scripted responses.
 *
 * Wire formats follow Ollama's API reference (`docs/api.md`): `POST /api/chat` streams
 * newline-delimited JSON objects (`application/x-ndjson`) unless the request says
 * `"stream": false`, each with `message.content` text and `done: false`, ended by an object with
 * `done: true`, `done_reason` and the timing counters; tool calls come whole, with `arguments` as
 * an object. `POST /api/embed` returns `embeddings` (one array per input). Errors are
 * `{"error": "..."}` with an HTTP status. `GET /api/version` and `GET /api/tags` answer too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deterministicVector, type WireRequest, type WireTiming } from "./openai-wire-server.js";

/**
 * One scripted answer of `POST /api/chat`:
 * - `content`: the assistant message's text;
 * - `tool-call`: one tool call (name default: the request's first tool, else `answer`);
 * - `output`: a tool call when the request has tools and no `format` and the text is a JSON
 *   object (as Ollama parses tool calls itself), else content;
 * - `error`: an HTTP error with body `{"error": message}`.
 */
export type OllamaChatScript = WireTiming &
  (
    | { type: "content"; content: string }
    | { type: "tool-call"; arguments: Record<string, unknown>; name?: string }
    | { type: "output"; text: string }
    | { type: "error"; status: number; message?: string }
  );

/** One scripted answer of `POST /api/embed`; without one, deterministic vectors are returned. */
export type OllamaEmbedScript = WireTiming &
  ({ type: "vectors"; vectors: number[][] } | { type: "error"; status: number; message?: string });

/** A running Ollama wire-protocol server. */
export interface OllamaWireServer extends AsyncDisposable {
  /** Base URL for clients (`baseUrl`, `LOCALLLM_BASE_URL`), without a trailing slash. */
  readonly baseUrl: string;
  /** Requests received, oldest first. */
  readonly requests: WireRequest[];
  enqueueChat(...scripts: OllamaChatScript[]): void;
  enqueueEmbed(...scripts: OllamaEmbedScript[]): void;
  /** Chat scripts not used yet. */
  pendingChat(): number;
  /** Responses still being written. */
  openResponses(): number;
  close(): Promise<void>;
}

/** Settings of {@link startOllamaWireServer}. */
export interface OllamaWireServerSettings {
  /** Dimension of the default deterministic embeddings; default 8. */
  embeddingDimension?: number;
}

/**
 * Starts an Ollama wire-protocol server on `127.0.0.1` with a free port. A chat request with no
 * script queued gets a 500 error saying so.
 *
 * @example
 * ```ts
 * await using server = await startOllamaWireServer();
 * server.enqueueChat({ type: "content", content: '{"callout_answer": "..."}' });
 * const model = new ChatOllama({ model: "llama3.1:8b", baseUrl: server.baseUrl });
 * ```
 */
export async function startOllamaWireServer(settings: OllamaWireServerSettings = {}): Promise<OllamaWireServer> {
  const chatQueue: OllamaChatScript[] = [];
  const embedQueue: OllamaEmbedScript[] = [];
  const requests: WireRequest[] = [];
  const cut = new WeakSet<ServerResponse>();
  let open = 0;

  const server = createServer((request, response) => {
    open++;
    const recorded: WireRequest = {
      method: request.method ?? "GET",
      path: (request.url ?? "/").split("?")[0] as string,
      headers: request.headers,
      body: undefined,
      clientAborted: false,
    };
    requests.push(recorded);
    response.on("close", () => {
      open--;
      if (!response.writableFinished && !cut.has(response)) recorded.clientAborted = true;
    });
    readBody(request)
      .then(async (text) => {
        recorded.body = parseJson(text);
        const body = (typeof recorded.body === "object" && recorded.body !== null ? recorded.body : {}) as Record<string, unknown>;
        const route = `${recorded.method} ${recorded.path}`;
        if (route === "POST /api/chat") {
          const script = chatQueue.shift() ?? {
            type: "error" as const,
            status: 500,
            message: "ollama wire server: no scripted chat response left",
          };
          await answerChat(response, body, script, cut);
        } else if (route === "POST /api/embed") {
          await answerEmbed(response, body, embedQueue.shift(), settings.embeddingDimension ?? 8);
        } else if (route === "GET /api/version") {
          sendJson(response, 200, { version: "0.0.0-wire" });
        } else if (route === "GET /api/tags") {
          sendJson(response, 200, { models: [] });
        } else {
          sendJson(response, 404, { error: `unknown route ${route}` });
        }
      })
      .catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: String(error) });
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
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    enqueueChat: (...scripts) => chatQueue.push(...scripts),
    enqueueEmbed: (...scripts) => embedQueue.push(...scripts),
    pendingChat: () => chatQueue.length,
    openResponses: () => open,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function answerChat(response: ServerResponse, body: Record<string, unknown>, script: OllamaChatScript, cut: WeakSet<ServerResponse>) {
  await sleep(script.delayMs ?? 0, response);
  if (response.destroyed) return;
  if (script.type === "error") {
    sendJson(response, script.status, { error: script.message ?? `scripted error ${script.status}` }, script.headers);
    return;
  }
  const model = typeof body.model === "string" ? body.model : "wire-model";
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: unknown } }[]) : [];
  const firstTool = typeof tools[0]?.function?.name === "string" ? tools[0].function.name : undefined;
  let toolCall: { name: string; arguments: Record<string, unknown> } | undefined;
  let content = "";
  if (script.type === "tool-call") toolCall = { name: script.name ?? firstTool ?? "answer", arguments: script.arguments };
  else if (script.type === "content") content = script.content;
  else {
    const parsed = parseJson(script.text);
    const asTool = tools.length > 0 && body.format === undefined && typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
    if (asTool) toolCall = { name: firstTool ?? "answer", arguments: parsed as Record<string, unknown> };
    else content = script.text;
  }
  const createdAt = () => new Date().toISOString();
  const statistics = {
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: 10,
    prompt_eval_duration: 200_000,
    eval_count: Math.max(1, Math.ceil(content.length / 4)),
    eval_duration: 700_000,
  };
  const toolCalls = toolCall ? [{ function: { name: toolCall.name, arguments: toolCall.arguments } }] : undefined;

  if (body.stream === false) {
    const payload = JSON.stringify({
      model,
      created_at: createdAt(),
      message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
      done: true,
      done_reason: "stop",
      ...statistics,
    });
    response.writeHead(200, { "content-type": "application/json; charset=utf-8", ...script.headers });
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

  response.writeHead(200, { "content-type": "application/x-ndjson", ...script.headers });
  const line = (message: Record<string, unknown>, done: boolean, extra: Record<string, unknown> = {}) =>
    response.write(`${JSON.stringify({ model, created_at: createdAt(), message: { role: "assistant", ...message }, done, ...extra })}\n`);
  const size = Math.max(1, script.chunkSize ?? 8);
  let sent = 0;
  for (let start = 0; start < content.length; start += size) {
    if (script.cutAfterChunks !== undefined && sent >= script.cutAfterChunks) break;
    line({ content: content.slice(start, start + size) }, false);
    sent++;
    await sleep(script.chunkDelayMs ?? 0, response);
    if (response.destroyed) return;
  }
  if (script.cutAfterChunks !== undefined) {
    await sleep(10, response);
    cut.add(response);
    response.socket?.destroy();
    return;
  }
  if (toolCalls) line({ content: "", tool_calls: toolCalls }, false);
  line({ content: "" }, true, { done_reason: "stop", ...statistics });
  response.end();
}

async function answerEmbed(
  response: ServerResponse,
  body: Record<string, unknown>,
  script: OllamaEmbedScript | undefined,
  defaultDimension: number,
) {
  await sleep(script?.delayMs ?? 0, response);
  if (response.destroyed) return;
  if (script?.type === "error") {
    sendJson(response, script.status, { error: script.message ?? `scripted error ${script.status}` }, script.headers);
    return;
  }
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
  const dimension = typeof body.dimensions === "number" ? body.dimensions : defaultDimension;
  sendJson(
    response,
    200,
    {
      model: typeof body.model === "string" ? body.model : "wire-embedding",
      embeddings: script?.vectors ?? inputs.map((input) => deterministicVector(input, dimension)),
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: inputs.length,
    },
    script?.headers,
  );
}

function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
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
