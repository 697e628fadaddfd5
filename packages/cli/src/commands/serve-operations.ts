/**
 * What `docqa serve` adds to both endpoint sets for the people who run and use them: the server
 * span of every request (OpenTelemetry, exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set),
 * request metrics and `GET /metrics` (`METRICS`, `METRICS_TOKEN`), and the web page at `/ui`
 * (`WEB_UI`, `WEB_UI_DEV_TOKENS`).
 */
import type { Logger, RagService } from "@docqa/core";
import type { ServiceMetrics } from "@docqa/core/telemetry";
import type { AuthVariables, RateLimitSetting, ServerConfig } from "@docqa/http";
import { createPrometheusMetrics, httpTracing, metricsHandlers, type PrometheusMetrics } from "@docqa/observability";
import { webUiRoutes } from "@docqa/web-ui";
import type { Hono, MiddlewareHandler } from "hono";

/** Additions to one endpoint set (`ServeSettings.extensions` of `startServers`). */
export interface SetExtensions {
  /** Middleware run first on every request of the set (tracing, request metrics). */
  middleware?: MiddlewareHandler[] | undefined;
  /** Adds routes to the set's app after its own. */
  routes?: ((app: Hono<{ Variables: AuthVariables }>) => void) | undefined;
}

/** Settings of {@link serveOperations}. */
export interface ServeOperationsSettings {
  /** The server settings: `METRICS`, `METRICS_TOKEN`, `WEB_UI`, `WEB_UI_DEV_TOKENS`, access tokens. */
  server: ServerConfig;
  /** The version reported as the `service.version` of spans. */
  version: string;
  /** `NODE_ENV`; development tokens are refused in `production`. Default `process.env.NODE_ENV`. */
  nodeEnvironment?: string | undefined;
  logger?: Logger | undefined;
}

/** The operations of a server, before and after its service exists. */
export interface ServeOperations {
  /** The Prometheus metrics, when `METRICS` is not `off`. */
  readonly metrics: PrometheusMetrics | undefined;
  /** Pass as `createRagService({ metrics })`: undefined when `METRICS` is `off`. */
  readonly serviceMetrics: ServiceMetrics | undefined;
  /** `ServeSettings.extensions` for `startServers` over `service`. */
  extensions(service: RagService): (set: "a" | "b", rateLimit: RateLimitSetting) => SetExtensions;
  /** What is served besides the sets' routes, for the start-up line: `metrics: ...; web page: ...`. */
  readonly summary: string;
}

/**
 * Prepares the operations of `docqa serve`.
 *
 * @throws {DocqaError} `config_invalid` when `METRICS=token` without a `METRICS_TOKEN` of at least 16 characters.
 */
export function serveOperations(settings: ServeOperationsSettings): ServeOperations {
  const { server } = settings;
  const metrics = server.metrics === "off" ? undefined : createPrometheusMetrics();
  const exposition = metrics
    ? metricsHandlers(metrics, { access: server.metrics === "token" ? "token" : "open", token: server.metricsToken })
    : [];
  const tracing = httpTracing({ serviceVersion: settings.version });
  return {
    metrics,
    serviceMetrics: metrics?.serviceMetrics,
    extensions(service) {
      metrics?.observeService(service);
      return (set, rateLimit) => ({
        middleware: [tracing, ...(metrics ? [metrics.httpMiddleware(set)] : [])],
        routes(app) {
          if (exposition.length > 0) app.get("/metrics", ...(exposition as [MiddlewareHandler]));
          if (server.webUi) {
            app.route(
              "/ui",
              webUiRoutes(service, {
                server,
                set,
                rateLimit,
                logger: settings.logger,
                nodeEnvironment: settings.nodeEnvironment ?? process.env.NODE_ENV,
              }),
            );
          }
        },
      });
    },
    summary: `metrics: ${server.metrics === "off" ? "off" : `/metrics (${server.metrics})`}; web page: ${server.webUi ? "/ui" : "off"}`,
  };
}
