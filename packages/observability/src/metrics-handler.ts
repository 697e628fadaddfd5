/**
 * `GET /metrics`: the Prometheus exposition of a {@link PrometheusMetrics} registry, open or
 * behind a bearer token (`METRICS`, `METRICS_TOKEN`). The token is compared in constant time by
 * Hono's `bearerAuth`.
 */
import { DocqaError } from "@docqa/core";
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { createMiddleware } from "hono/factory";
import type { PrometheusMetrics } from "./prometheus-metrics.js";

/** Who may read `/metrics`. */
export interface MetricsAccess {
  /** `open`: anyone who can reach the port; `token`: `Authorization: Bearer <token>` only. */
  access: "open" | "token";
  /** The bearer token when `access` is `token`: at least 16 characters. */
  token?: string | undefined;
}

/** The shortest `METRICS_TOKEN` accepted. */
export const minimumMetricsTokenLength = 16;

/**
 * The handlers of `GET /metrics`: with `access: "token"`, bearer authentication (401 with
 * `WWW-Authenticate: Bearer` without the right token), then the exposition text with the
 * registry's content type.
 *
 * @throws {DocqaError} `config_invalid` when `access` is `token` and the token is missing or
 *   shorter than {@link minimumMetricsTokenLength}.
 * @example
 * ```ts
 * app.get("/metrics", ...metricsHandlers(metrics, { access: "token", token: process.env.METRICS_TOKEN }));
 * ```
 */
export function metricsHandlers(metrics: Pick<PrometheusMetrics, "registry">, settings: MetricsAccess): MiddlewareHandler[] {
  const expose = createMiddleware(async (c) => {
    const text = await metrics.registry.metrics();
    return c.body(text, 200, { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" });
  });
  if (settings.access === "open") return [expose];
  const token = settings.token ?? "";
  if (token.length < minimumMetricsTokenLength) {
    throw new DocqaError(
      "config_invalid",
      `METRICS=token needs METRICS_TOKEN of at least ${minimumMetricsTokenLength} characters: set it, or METRICS=open for a scraper on a private network`,
      { component: "metrics" },
    );
  }
  return [bearerAuth({ token }), expose];
}
