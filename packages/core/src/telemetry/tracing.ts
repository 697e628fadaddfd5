/**
 * OpenTelemetry tracing of the library through `@opentelemetry/api` only: every span is a no-op
 * until the host application registers a tracer provider (`docqa serve` does when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set; see docs/observability.md). Spans carry sizes and counts;
 * document, question and answer text only when `TRACE_CONTENT` is true.
 */
import { type Attributes, type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import packageJson from "../../package.json" with { type: "json" };
import { DocqaError } from "../errors/docqa-error.js";
import { activeSpanClock } from "./span-clock.js";

/** The instrumentation scope of docqa's spans. */
export const tracerName = "@docqa/core";

/** The tracer of docqa's spans (the registered provider's, else the API's no-op one). */
export function docqaTracer(): Tracer {
  return trace.getTracer(tracerName, packageJson.version);
}

/** The stable code of an error for labels and attributes: a `DocqaError`'s code, else `internal_error`. */
export function errorCodeOf(error: unknown): string {
  return DocqaError.isInstance(error) ? error.code : "internal_error";
}

/**
 * Marks `span` failed with `error`: the exception event, status `ERROR` with the error's public
 * message, and `error.type` set to its code (OpenTelemetry's general attribute for the class of
 * an error).
 */
export function recordSpanError(span: Span, error: unknown): void {
  const message = DocqaError.isInstance(error) ? error.publicMessage : error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : new Error(message));
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute("error.type", errorCodeOf(error));
}

/**
 * Runs `work` inside a new active span named `name` (so spans started by `work` are its
 * children), ends the span when `work` settles, and marks it failed when `work` throws. Inside a
 * request, its times come from the request's clock (`span-clock.ts`).
 *
 * @param attributes - set when the span starts; `work` adds more as it learns sizes and counts.
 * @returns what `work` returns.
 * @throws whatever `work` throws.
 * @example
 * ```ts
 * const vector = await withSpan("docqa.embed.query", { "docqa.embed.texts": 1 }, () => embeddings.embedQuery(text));
 * ```
 */
export async function withSpan<T>(name: string, attributes: Attributes, work: (span: Span) => T | Promise<T>): Promise<T> {
  const clock = activeSpanClock();
  return docqaTracer().startActiveSpan(name, { attributes, startTime: clock?.time(performance.now()) }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordSpanError(span, error);
      throw error;
    } finally {
      span.end(clock?.time(performance.now()));
    }
  });
}
