/**
 * One structured call of a chat model, shared by the answerer, query decomposition and the
 * intent classifier: `withStructuredOutput` with a plain JSON Schema and `includeRaw`, run under
 * {@link callWithResilience}, optionally streaming tokens. It returns every candidate form of
 * the output (parsed object, tool-call arguments, raw text) for the caller's own validation and
 * repair, rather than trusting LangChain's or the SDK's parsing.
 */
import { BaseCallbackHandler, type CallbackHandlerPrefersStreaming } from "@langchain/core/callbacks/base";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { callWithResilience, type ResiliencePolicy } from "./call-with-resilience.js";
import type { ModelFailure } from "./classify-model-error.js";

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
 * does not force a tool choice), `functionCalling` for every other provider.
 */
export function defaultStructuredOutputMethod(model: BaseChatModel): StructuredOutputMethod {
  return model._llmType() === "ollama" ? "jsonSchema" : "functionCalling";
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
   * arguments (an object), an invalid tool call's raw arguments (a string), the message text.
   * Empty values are left out.
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
  const runnable = call.model.withStructuredOutput(call.schema, { name: call.name, method: call.method, includeRaw: true });
  const callbacks = call.onToken ? [new TokenForwarder(call.onToken)] : undefined;
  const { value, attempts } = await callWithResilience(
    async (signal) => {
      try {
        return await runnable.invoke(call.messages, { signal, callbacks });
      } catch (error) {
        // The SDK parses `json_schema` replies itself and throws SyntaxError on invalid JSON.
        if (error instanceof SyntaxError || (error as Error | undefined)?.name === "OutputParserException") {
          return { raw: undefined, parsed: undefined, parseError: (error as Error).message };
        }
        throw error;
      }
    },
    { policy: call.policy, signal: call.signal, component: call.component, model: call.modelName, mayRetry: call.mayRetry },
  );
  const result = value as { raw?: unknown; parsed?: unknown; parseError?: string };
  return { candidates: candidatesOf(result.parsed, result.raw), attempts, parseError: result.parseError };
}

function candidatesOf(parsed: unknown, raw: unknown): unknown[] {
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
  add(textOf(message.content));
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

/**
 * Forwards streamed text to a listener. Preferring streaming makes LangChain call the model's
 * streaming endpoint even under `invoke` (`BaseChatModel._generateUncached`); handlers are awaited
 * so tokens arrive in order and before the call resolves.
 */
class TokenForwarder extends BaseCallbackHandler implements CallbackHandlerPrefersStreaming {
  name = "docqa-token-forwarder";
  readonly lc_prefer_streaming = true;

  constructor(private readonly listener: (text: string) => void) {
    super({ _awaitHandler: true });
  }

  override handleLLMNewToken(
    token: string,
    _indices: unknown,
    _runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: { chunk?: unknown },
  ): void {
    const chunk = fields?.chunk as ChatGenerationChunk | undefined;
    const toolChunks = (chunk?.message as { tool_call_chunks?: { args?: string }[] } | undefined)?.tool_call_chunks ?? [];
    const text = token !== "" ? token : toolChunks.map((part) => part.args ?? "").join("");
    if (text !== "") this.listener(text);
  }
}
