/**
 * Exporting docqa's traces: the OpenTelemetry Node SDK (`@opentelemetry/sdk-node`), configured
 * by the standard `OTEL_*` environment variables, started only when an OTLP endpoint is set; and
 * the HTTP server span of every request (`@hono/otel`), parent of the library's `docqa.predict`
 * and stage spans.
 */
import type { EnvironmentVariables } from "@docqa/core";
import { httpInstrumentationMiddleware } from "@hono/otel";
import type { MiddlewareHandler } from "hono";

/** Settings of {@link startTracing}. */
export interface TracingSettings {
  /** Where the `OTEL_*` variables are read to decide whether to start; default `process.env` (the SDK itself always reads `process.env`). */
  environment?: EnvironmentVariables | undefined;
  /** `service.name` when `OTEL_SERVICE_NAME` is unset; default `docqa`. */
  serviceName?: string | undefined;
  /** `service.version` resource attribute. */
  serviceVersion?: string | undefined;
}

/** Tracing started by {@link startTracing}. */
export interface RunningTracing {
  /** Where spans go, for the start-up line: the traces endpoint or the base endpoint, and the protocol. */
  readonly description: string;
  /** Exports the spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/** Whether an OTLP endpoint is configured and the SDK not disabled (`OTEL_SDK_DISABLED`). */
export function tracingConfigured(environment: EnvironmentVariables = process.env): boolean {
  const endpoint = environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || environment.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && environment.OTEL_SDK_DISABLED?.trim().toLowerCase() !== "true";
}

/**
 * Starts the Node SDK when {@link tracingConfigured}: spans (and metrics and logs, per the SDK's
 * defaults) are exported over OTLP as the standard variables say: `OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf` by
 * default, `http/json`, `grpc`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`,
 * `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRICS_EXPORTER`, ... The SDK is loaded
 * only then, so a server without tracing never imports it.
 *
 * @returns the running SDK, or undefined when no endpoint is configured.
 */
export async function startTracing(settings: TracingSettings = {}): Promise<RunningTracing | undefined> {
  const environment = settings.environment ?? process.env;
  if (!tracingConfigured(environment)) return undefined;
  const [{ NodeSDK }, { defaultResource, resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/resources"),
  ]);
  const sdk = new NodeSDK({
    resource: defaultResource().merge(
      resourceFromAttributes(settings.serviceVersion ? { "service.version": settings.serviceVersion } : {}),
    ),
    ...(environment.OTEL_SERVICE_NAME ? {} : { serviceName: settings.serviceName ?? "docqa" }),
  });
  sdk.start();
  const endpoint = environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${environment.OTEL_EXPORTER_OTLP_ENDPOINT}`;
  const protocol = environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || environment.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf";
  return { description: `${endpoint} (${protocol})`, shutdown: () => sdk.shutdown() };
}

/**
 * Middleware opening the server span of every request (`SpanKind.SERVER`, named
 * `<method> <route pattern>`, with the HTTP semantic-convention attributes and the status code),
 * continuing the caller's trace from its `traceparent` header. A no-op span when no tracer
 * provider is registered. Pass it first in the route factories' `middleware`.
 */
export function httpTracing(settings: Pick<TracingSettings, "serviceName" | "serviceVersion"> = {}): MiddlewareHandler {
  return httpInstrumentationMiddleware({ serviceName: settings.serviceName ?? "docqa", serviceVersion: settings.serviceVersion });
}
