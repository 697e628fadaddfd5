/**
 * Telemetry of the library: OpenTelemetry spans through `@opentelemetry/api` (no-op until the
 * application registers a tracer provider) and metric events through the {@link ServiceMetrics}
 * sink (no metrics library in the core).
 */

export {
  createPerfLog,
  type PerfEvent,
  type PerfLog,
  type RagEndEvent,
  type RagStartEvent,
  type RetrievalDoneEvent,
} from "../logging/perf-log.js";
export type {
  AnswerEvent,
  BackendErrorEvent,
  EmbeddingEvent,
  FileIngestionEvent,
  IndexingEvent,
  ServiceMetrics,
  StageEvent,
  SweepEvent,
} from "./service-metrics.js";
export { noServiceMetrics } from "./service-metrics.js";
export { stateAttributes } from "./state-attributes.js";
export { docqaTracer, errorCodeOf, recordSpanError, tracerName, withSpan } from "./tracing.js";
