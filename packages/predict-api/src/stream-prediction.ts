/**
 * Server-Sent Events for `POST /predict` (issue 6, point 6; the spec leaves the delivery
 * mechanism open). A client asks for a stream with `Accept: text/event-stream` or the body field
 * `stream: true` (the body field, when present, decides). The response is `text/event-stream`
 * (WHATWG HTML, "Server-sent events") with these events:
 *
 * - `token`, data `{"text": "..."}`: text the model wrote since the previous event (with
 *   structured output, fragments of the Answer JSON). A preview only; the extractive answerer
 *   sends none.
 * - `final`, data: the non-streamed response body, field for field (answer, resolved and pruned
 *   `sources`, `thread_id`, ...). Authoritative; the last event of a successful stream.
 * - `error`, data `{"detail": "...", "code": "..."}`: the request failed after the first event
 *   was sent (the status is already 200); the last event of a failed stream.
 *
 * A failure before the first event is an ordinary HTTP error response (for example 504
 * `model_timeout`), because nothing has been sent yet.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";

/** Whether the client asked for Server-Sent Events: the body's `stream` flag if given, else the `Accept` header. */
export function wantsEventStream(c: Context, streamFlag: boolean | undefined): boolean {
  if (streamFlag !== undefined) return streamFlag;
  return (c.req.header("Accept") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Runs a prediction and streams it as Server-Sent Events (module comment). `run` receives the
 * token listener to pass to `RagService.predict` as `onToken` and resolves with the response body;
 * `errorBody` turns a failure after the first event into the `error` event's data (and logs it).
 *
 * @returns the SSE response once the first token arrived or the prediction finished.
 * @throws the prediction's error when it fails before any token (the caller's error handler
 *   turns it into an ordinary HTTP error response).
 */
export async function streamPrediction<T>(
  c: Context,
  run: (onToken: (text: string) => void) => Promise<T>,
  errorBody: (error: unknown) => object,
): Promise<Response> {
  const tokens: string[] = [];
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const changed = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  run((text) => {
    tokens.push(text);
    notify();
  }).then(
    (value) => {
      outcome = { ok: true, value };
      notify();
    },
    (error: unknown) => {
      outcome = { ok: false, error };
      notify();
    },
  );
  while (tokens.length === 0 && outcome === undefined) await changed();
  if (tokens.length === 0 && outcome?.ok === false) throw outcome.error;

  return streamSSE(c, async (stream) => {
    while (true) {
      if (tokens.length > 0) {
        // Tokens that arrived while the previous event was written go out as one event.
        const text = tokens.splice(0).join("");
        await stream.writeSSE({ event: "token", data: JSON.stringify({ text }) });
        continue;
      }
      if (outcome !== undefined) break;
      await changed();
    }
    const settled = outcome as NonNullable<typeof outcome>;
    if (settled.ok) await stream.writeSSE({ event: "final", data: JSON.stringify(settled.value) });
    else if (!c.req.raw.signal.aborted) {
      await stream.writeSSE({ event: "error", data: JSON.stringify(errorBody(settled.error)) });
    }
  });
}
