/**
 * One structured call of a chat model, shared by the answerer, query decomposition and the
 * intent classifier: `withStructuredOutput` with a plain JSON Schema and `includeRaw`, run under
 * {@link callWithResilience}, optionally forwarding streamed tokens. It returns every candidate
 * form of the output (parsed object, tool-call arguments, raw text) for the caller's own
 * validation and repair, rather than trusting LangChain's or the SDK's parsing.
 *
 * A model behind a server (every provider but the in-process `llama-cpp`, which guards its own
 * tokens) is always called in streaming mode under a {@link RepetitionStop}: a small model that
 * loops is cut off after a few periods of its loop instead of generating until `max_tokens`
 * (the 1.5B Qwen2.5-Coder looped in 4 of 52 SQuAD answers under `json_schema`), and the text
 * streamed so far is its raw output for repair.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { DocqaError } from "../errors/docqa-error.js";
import { callWithResilience, type ResiliencePolicy } from "./call-with-resilience.js";
import type { ModelFailure } from "./classify-model-error.js";
import { RepetitionStop, TokenForwarder } from "./stream-callbacks.js";

/**
 * How the output is constrained:
 * - `functionCalling` (default except for Ollama): a forced tool call whose arguments are the
 *   object. Supported by OpenAI, vLLM (`--enable-auto-tool-choice`), llama.cpp server (`--jinja`)
 *   and most gateways; the raw arguments stay available for repair.
 * - `jsonSchema` (default for Ollama): Ollama's `format` schema, or `response_format`
 *   `json_schema` (OpenAI, vLLM, llama.cpp). With `@langchain/openai`, a non-streamed reply that
 *   is not valid JSON is rejected by the SDK before docqa can repair it (the answer then falls
 *   back to the extractive one), so `functionCalling` is preferred there.
 * - `jsonMode`: `response_format` `json_object` / Ollama `format: "json"`: valid JSON, schema from
 *   the prompt only. For servers without tool calling or JSON schema support.
 */
export type StructuredOutputMethod = "functionCalling" | "jsonSchema" | "jsonMode";

/**
 * The default method for a model: `jsonSchema` for Ollama (its native `format` schema; `ChatOllama`
 * does not force a tool choice) and for the in-process `llama-cpp` model (a grammar, whatever the
 * method), `functionCalling` for every other provider. For a model marked with
 * {@link detectStructuredOutputMethod}, `functionCalling` is where detection starts.
 */
export function defaultStructuredOutputMethod(model: BaseChatModel): StructuredOutputMethod {
  const type = model._llmType();
  return type === "ollama" || type === "llama-cpp" ? "jsonSchema" : "functionCalling";
}

/** Models whose `functionCalling` calls may switch to `jsonSchema` (see {@link detectStructuredOutputMethod}). */
const detecting = new WeakSet<BaseChatModel>();
/** What detection found per model: `jsonSchema` once the server showed it does not honour a forced tool call. */
const detected = new WeakMap<BaseChatModel, StructuredOutputMethod>();

/**
 * Marks a model whose server may not honour a forced tool call (`RAG_LLM_STRUCTURED_OUTPUT=auto`
 * with the openai provider): its `functionCalling` calls then switch to `jsonSchema` when the
 * server shows it, and stay switched for that model (every later call of any component):
 * - the server rejects the request (HTTP 400) with a message about tools or `tool_choice`
 *   (older `llama-server` builds: "Wrong type supplied for parameter 'tool_choice'"): the call is
 *   sent again at once with `response_format: json_schema`, and the switch is kept only if that
 *   succeeds;
 * - the server answers with text and no tool call (it accepted `tool_choice` without enforcing it,
 *   as current `llama-server` builds do, and the model wrote the call, or the object, as text): a
 *   call that was not streamed is sent again at once with `jsonSchema`; a streamed call's text has
 *   already reached the listener and is used as it is (the arguments of a call written as text
 *   first, `toolCallWrittenAsText`). Later calls use `jsonSchema`.
 * Servers that honour tool calling (OpenAI, vLLM with a tool parser, gateways) are never switched.
 */
export function detectStructuredOutputMethod(model: BaseChatModel): void {
  detecting.add(model);
}

/** The method detection chose for a model so far: `jsonSchema` after a switch, else undefined. */
export function detectedStructuredOutputMethod(model: BaseChatModel): StructuredOutputMethod | undefined {
  return detected.get(model);
}

/** Input of {@link invokeStructured}. */
export interface StructuredCall {
  model: BaseChatModel;
  /** Plain JSON Schema of the output object. */
  schema: Record<string, unknown>;
  /** Tool or schema name, for example `answer`. */
  name: string;
  method: StructuredOutputMethod;
  messages: BaseMessage[];
  policy: ResiliencePolicy;
  /** Component and model named in errors. */
  component: string;
  modelName: string;
  signal?: AbortSignal | undefined;
  /**
   * Receives streamed text (content deltas, or tool-call argument deltas) as it arrives. When
   * set, the model is called in streaming mode.
   */
  onToken?: ((text: string) => void) | undefined;
  /** Asked before each retry (see `callWithResilience`). */
  mayRetry?: ((failure: ModelFailure) => boolean) | undefined;
}

/** Output of {@link invokeStructured}. */
export interface StructuredOutput {
  /**
   * Candidate outputs, most structured first: the parsed object, the first tool call's
   * arguments (an object), an invalid tool call's raw arguments (a string), the arguments of a
   * tool call written as text (`toolCallWrittenAsText`), the message text. Empty values are left out.
   */
  candidates: unknown[];
  /** Calls made, retries included. */
  attempts: number;
  /** The parse error that lost the raw output (the SDK's `jsonSchema` parsing), if any. */
  parseError?: string | undefined;
}

/**
 * Calls the model for one structured output.
 *
 * @throws {DocqaError} `model_unavailable` (see `callWithResilience`); the caller's abort reason.
 */
export async function invokeStructured(call: StructuredCall): Promise<StructuredOutput> {
  const detects = call.method === "functionCalling" && detecting.has(call.model);
  const method = detects ? (detected.get(call.model) ?? call.method) : call.method;
  if (!detects || method !== "functionCalling") return invokeWith(call, method);
  let output: StructuredOutput & { toolCalls: number };
  try {
    output = await invokeWith(call, "functionCalling");
  } catch (error) {
    if (!rejectsToolCalls(error)) throw error;
    const retried = await invokeWith(call, "jsonSchema");
    detected.set(call.model, "jsonSchema");
    return { ...retried, attempts: retried.attempts + 1 };
  }
  if (output.toolCalls > 0 || output.candidates.length === 0) return output;
  detected.set(call.model, "jsonSchema");
  // Nothing was streamed to anyone: ask again with a schema the server enforces. A streamed
  // reply already reached the listener, so its text is used as it is.
  if (call.onToken) return output;
  const retried = await invokeWith(call, "jsonSchema");
  return { ...retried, attempts: retried.attempts + output.attempts };
}

/** True for a request the server refused because of its tools or forced `tool_choice` (HTTP 400). */
function rejectsToolCalls(error: unknown): boolean {
  if (!DocqaError.isInstance(error)) return false;
  const details = error.details as { reason?: unknown; status?: unknown } | undefined;
  return details?.reason === "rejected" && details.status === 400 && /tool/i.test(error.message);
}

async function invokeWith(call: StructuredCall, method: StructuredOutputMethod): Promise<StructuredOutput & { toolCalls: number }> {
  const runnable = call.model.withStructuredOutput(call.schema, { name: call.name, method, includeRaw: true });
  // The in-process model stops its own loops; a server generates until max_tokens unless the stream is cut.
  const guarded = call.model._llmType() !== "llama-cpp";
  const { value, attempts } = await callWithResilience(
    async (signal) => {
      const stop = guarded ? new RepetitionStop() : undefined;
      const callbacks = [...(call.onToken ? [new TokenForwarder(call.onToken)] : []), ...(stop ? [stop] : [])];
      try {
        return await runnable.invoke(call.messages, {
          signal: stop ? AbortSignal.any([signal, stop.signal]) : signal,
          callbacks: callbacks.length > 0 ? callbacks : undefined,
        });
      } catch (error) {
        // Stopped because the output loops: what was streamed is the raw output, for repair.
        if (stop?.looping && !signal.aborted) {
          return {
            raw: { content: stop.text },
            parsed: undefined,
            parseError: `the output repeated itself; stopped after ${stop.pieces} streamed pieces`,
          };
        }
        // The SDK parses `json_schema` replies itself: SyntaxError on invalid JSON, and
        // LengthFinishReasonError when the reply stopped at the token limit (a model that looped).
        if (error instanceof SyntaxError || (error as Error | undefined)?.name === "OutputParserException" || stoppedAtLength(error)) {
          return { raw: undefined, parsed: undefined, parseError: (error as Error).message };
        }
        throw error;
      }
    },
    { policy: call.policy, signal: call.signal, component: call.component, model: call.modelName, mayRetry: call.mayRetry },
  );
  const result = value as { raw?: unknown; parsed?: unknown; parseError?: string };
  const toolCalls = ((result.raw ?? {}) as { tool_calls?: unknown[] }).tool_calls?.length ?? 0;
  return { candidates: candidatesOf(result.parsed, result.raw, call.name), attempts, parseError: result.parseError, toolCalls };
}

/** Whether `error` is the OpenAI SDK's `LengthFinishReasonError` (a reply cut at `max_tokens`), by class name or message. */
function stoppedAtLength(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.constructor.name === "LengthFinishReasonError" || /length limit was reached/.test(error.message);
}

/**
 * The arguments of a tool call the model wrote as text instead of through the server's tool-call
 * protocol: `{"name": "<tool>", "arguments": {...}}`, bare, in a Markdown fence or in Qwen's
 * `<tool_call>` tags (what Qwen2.5 writes when a server passes the tools to the chat template but
 * does not parse the reply, as `llama-server` does for a forced `tool_choice`). Undefined for any
 * other text, or a call of another tool.
 */
export function toolCallWrittenAsText(text: string | undefined, toolName: string): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*|\s*```$/g, "")
    .replace(/^<tool_call>\s*|\s*<\/tool_call>$/g, "")
    .trim();
  if (!body.startsWith("{")) return undefined;
  try {
    const envelope = JSON.parse(body) as { name?: unknown; arguments?: unknown; parameters?: unknown };
    const args = envelope.arguments ?? envelope.parameters;
    if (envelope.name !== toolName || typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
    return args as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function candidatesOf(parsed: unknown, raw: unknown, toolName: string): unknown[] {
  const candidates: unknown[] = [];
  const add = (value: unknown) => {
    if (value === undefined || value === null) return;
    if (typeof value === "string" && value.trim() === "") return;
    if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return;
    candidates.push(value);
  };
  add(parsed);
  const message = (raw ?? {}) as {
    content?: unknown;
    tool_calls?: { args?: unknown }[];
    invalid_tool_calls?: { args?: unknown }[];
  };
  add(message.tool_calls?.[0]?.args);
  add(message.invalid_tool_calls?.[0]?.args);
  const text = textOf(message.content);
  add(toolCallWrittenAsText(text, toolName));
  add(text);
  return candidates;
}

/** The text of a message's content: a string, or the text blocks of a content array. */
function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((block) =>
      typeof block === "string"
        ? block
        : (block as { type?: unknown; text?: unknown }).type === "text"
          ? String((block as { text: unknown }).text)
          : "",
    )
    .join("");
}
