/**
 * LangChain callback handlers on a structured call's stream (`invokeStructured`). Both prefer
 * streaming, which makes LangChain call the model's streaming endpoint even under `invoke`
 * (`BaseChatModel._generateUncached`); handlers are awaited, so pieces arrive in order and before
 * the call resolves.
 * - {@link TokenForwarder} passes the streamed text to a listener (the SSE endpoints).
 * - {@link RepetitionStop} stops a call whose output loops, for the providers whose server
 *   generates until `max_tokens` (an OpenAI-compatible server, Ollama); the in-process model
 *   guards its own tokens (`llama-cpp-runtime.ts`).
 */
import { BaseCallbackHandler, type CallbackHandlerPrefersStreaming } from "@langchain/core/callbacks/base";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { RepetitionGuard } from "./repetition-guard.js";

/** The text of one streamed piece: its content delta, else its tool-call argument deltas. */
function streamedText(token: string, fields: { chunk?: unknown } | undefined): string {
  if (token !== "") return token;
  const chunk = fields?.chunk as ChatGenerationChunk | undefined;
  const toolChunks = (chunk?.message as { tool_call_chunks?: { args?: string }[] } | undefined)?.tool_call_chunks ?? [];
  return toolChunks.map((part) => part.args ?? "").join("");
}

/** A handler that prefers streaming and receives each streamed piece's text ({@link onText}), empty pieces left out. */
abstract class StreamedTextHandler extends BaseCallbackHandler implements CallbackHandlerPrefersStreaming {
  readonly lc_prefer_streaming = true;

  constructor() {
    super({ _awaitHandler: true });
  }

  /** Receives the text of one streamed piece. */
  protected abstract onText(text: string): void;

  override handleLLMNewToken(
    token: string,
    _indices: unknown,
    _runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: { chunk?: unknown },
  ): void {
    const text = streamedText(token, fields);
    if (text !== "") this.onText(text);
  }
}

/** Forwards streamed text (content deltas, or tool-call argument deltas) to a listener. */
export class TokenForwarder extends StreamedTextHandler {
  name = "docqa-token-forwarder";

  constructor(private readonly listener: (text: string) => void) {
    super();
  }

  protected onText(text: string): void {
    this.listener(text);
  }
}

/**
 * Watches a streamed call with a {@link RepetitionGuard} and aborts {@link signal} once the output
 * loops, keeping the text streamed so far ({@link text}) for repair. A server streams about one
 * token per piece (llama.cpp's server, vLLM, Ollama, OpenAI), so each distinct piece of text
 * stands for one token id; a server that streams larger pieces is stopped later, never earlier.
 *
 * @example
 * ```ts
 * const stop = new RepetitionStop();
 * await model.invoke(messages, { callbacks: [stop], signal: AbortSignal.any([signal, stop.signal]) });
 * ```
 */
export class RepetitionStop extends StreamedTextHandler {
  name = "docqa-repetition-stop";
  readonly #guard = new RepetitionGuard();
  readonly #ids = new Map<string, number>();
  readonly #controller = new AbortController();
  #text = "";

  /** Aborted once the output loops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the output loops. */
  get looping(): boolean {
    return this.#guard.looping;
  }

  /** The text streamed so far. */
  get text(): string {
    return this.#text;
  }

  /** Pieces streamed so far. */
  get pieces(): number {
    return this.#guard.length;
  }

  protected onText(text: string): void {
    if (this.#guard.looping) return;
    this.#text += text;
    let id = this.#ids.get(text);
    if (id === undefined) this.#ids.set(text, (id = this.#ids.size));
    if (this.#guard.push([id])) this.#controller.abort(new Error("the model's output repeats itself"));
  }
}
