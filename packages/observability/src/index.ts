/**
 * @docqa/observability: operating docqa. Prometheus metrics of a service and its endpoint sets
 * with `prom-client` (`createPrometheusMetrics`, `metricsHandlers` for `GET /metrics`), and
 * OpenTelemetry tracing for servers (`startTracing`: the Node SDK over OTLP when the standard
 * `OTEL_*` variables ask for it; `httpTracing`: the server span of every request). The library
 * `@docqa/core` emits spans through `@opentelemetry/api` and metric events through its
 * `ServiceMetrics` sink; this package exports them.
 */
export { type MetricsAccess, metricsHandlers, minimumMetricsTokenLength } from "./metrics-handler.js";
export { createPrometheusMetrics, type PrometheusMetrics, type PrometheusMetricsOptions } from "./prometheus-metrics.js";
export { httpTracing, type RunningTracing, startTracing, type TracingSettings, tracingConfigured } from "./start-tracing.js";
