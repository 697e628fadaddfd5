/**
 * The readiness route both endpoint sets serve (`GET /readyz`, no authentication, no rate
 * limit): 200 when every configured backend answers within `READINESS_TIMEOUT_MS`, 503 naming
 * the backend that is down. It is the probe to take an instance out of a load balancer;
 * `/healthz` (set A) and `/health` (set B) stay liveness probes that never wait for a backend
 * (docs/deployment.md).
 */
import type { RagService } from "@docqa/core";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { DocqaEnv } from "./create-docqa-app.js";

/** One backend's check in a readiness answer. */
export const readinessCheckSchema = z
  .object({
    role: z.enum(["startup", "vector", "keyword", "registry", "jobs", "memory"]).openapi({
      description:
        "What the backend serves: `vector` index, `keyword` (BM25) index, document `registry`, ingestion `jobs`, conversation `memory`, or the service's own `startup`.",
      example: "vector",
    }),
    backend: z.string().openapi({
      description: "`embedded`, `milvus`, `opensearch`, `elasticsearch`, `sqlite`, `redis`, `in-memory` or `docqa`.",
      example: "milvus",
    }),
    status: z.enum(["up", "degraded", "down"]).openapi({
      description:
        "`up`; `degraded`: the backend serves every request but with less redundancy than it was set up with (a search engine cluster in yellow health, or with fewer nodes than `FULLTEXT_URI` lists), which keeps the service ready; `down`: it does not answer in time.",
    }),
    latencyMs: z.number().openapi({ description: "Milliseconds until the backend answered (or the timeout).", example: 3 }),
    error: z.string().optional().openapi({ description: "Why the backend is down." }),
    degraded: z.string().optional().openapi({
      description: "Why the backend is degraded.",
      example: "cluster health yellow (2 of the 3 nodes of FULLTEXT_URI in the cluster; 6 shard copies unassigned)",
    }),
  })
  .openapi("ReadinessCheck");

/** The body of `GET /readyz`. */
export const readinessResponseSchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    detail: z.string().optional().openapi({
      description:
        "When not ready: each backend that is down, its role and why; when ready with a degraded backend: each degraded backend and why.",
      example: "milvus (vector index) is down: VECTORDB_URI http://milvus:19530 is unreachable (ECONNREFUSED)",
    }),
    checks: z.array(readinessCheckSchema),
  })
  .openapi("ReadinessResponse");

/** Options of {@link addReadinessRoute}. */
export interface ReadinessRouteOptions {
  /** Path of the route; default `/readyz`. */
  path?: string | undefined;
}

/**
 * Adds `GET /readyz` to a set's app: `service.readiness()`, answered 200 when ready and 503
 * otherwise, never cached.
 *
 * @example
 * ```ts
 * const { app } = createDocqaApp({ ... });
 * addReadinessRoute(app, service);
 * ```
 */
export function addReadinessRoute(
  app: OpenAPIHono<DocqaEnv>,
  service: Pick<RagService, "readiness">,
  options: ReadinessRouteOptions = {},
): void {
  const content = (description: string) => ({ content: { "application/json": { schema: readinessResponseSchema } }, description });
  app.openapi(
    createRoute({
      method: "get",
      path: options.path ?? "/readyz",
      summary: "Readiness check",
      description:
        "No authentication and no rate limit. Asks every configured backend (vector index, keyword index, registry, job store, memory store) one light request, each within `READINESS_TIMEOUT_MS`: 200 when all answer (a degraded backend, such as a search engine cluster that lost a node, answers and is reported with status `degraded`), 503 naming those that do not. Use it as the readiness probe; the health route is the liveness probe.",
      responses: { 200: content("Every backend answers."), 503: content("A backend is down, or the service is still starting.") },
    }),
    async (c) => {
      const readiness = await service.readiness();
      const body = {
        status: readiness.ready ? ("ready" as const) : ("not_ready" as const),
        ...(readiness.detail ? { detail: readiness.detail } : {}),
        checks: readiness.checks,
      };
      c.header("Cache-Control", "no-store");
      return readiness.ready ? c.json(body, 200) : c.json(body, 503);
    },
  );
}
