/**
 * Streaming of answers (issue 6, point 6): token events while the model writes, then one final
 * event whose answer equals the non-streamed answer for the same model output, because both run
 * the same call and the same repair path; only the transport differs.
 */
import type { Answerer } from "./answerer.js";
import type { AnswerStreamEvent, ModelAnswerer, ModelAnswerRequest, ModelGeneratedAnswer } from "./model-answerer.js";
import { resolveCitations } from "./resolve-citations.js";

/**
 * Streams any answerer: a {@link ModelAnswerer}'s tokens and final event, or for another
 * answerer (the extractive one) just the final event. Lets an SSE route serve every answerer.
 */
export function streamModelAnswer(answerer: Answerer, request: ModelAnswerRequest): AsyncIterable<AnswerStreamEvent> {
  if ("stream" in answerer && typeof answerer.stream === "function") return (answerer as ModelAnswerer).stream(request);
  return (async function* () {
    const generated = await answerer.answer(request);
    yield { type: "final" as const, generated, resolved: resolveCitations(generated.answer, request.context.sources) };
  })();
}

/**
 * Runs `generate` with a token listener and turns its tokens and result into events. Breaking
 * out of the iteration aborts the call. Used by `createModelAnswerer`.
 */
export async function* streamAnswerEvents(
  request: ModelAnswerRequest,
  generate: (request: ModelAnswerRequest, onToken: (text: string) => void) => Promise<ModelGeneratedAnswer>,
): AsyncGenerator<AnswerStreamEvent> {
  // Stopping the iteration early (the client went away) aborts the model call.
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(request.signal?.reason);
  request.signal?.addEventListener("abort", forwardAbort, { once: true });
  const pending: AnswerStreamEvent[] = [];
  let wake: (() => void) | undefined;
  let settled: { error: unknown } | { done: true } | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  generate({ ...request, signal: controller.signal }, (text) => {
    pending.push({ type: "token", text });
    notify();
  }).then(
    (generated) => {
      pending.push({ type: "final", generated, resolved: resolveCitations(generated.answer, request.context.sources) });
      settled = { done: true };
      notify();
    },
    (error: unknown) => {
      settled = { error };
      notify();
    },
  );
  try {
    while (true) {
      const event = pending.shift();
      if (event) {
        yield event;
        continue;
      }
      if (settled) {
        if ("error" in settled) throw settled.error;
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    request.signal?.removeEventListener("abort", forwardAbort);
    if (!settled) controller.abort(new DOMException("the answer stream was closed by its consumer", "AbortError"));
  }
}
