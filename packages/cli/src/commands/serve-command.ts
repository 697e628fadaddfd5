/**
 * `docqa serve`: serves endpoint set A (default port 8002), set B (default port 8000) or both
 * (`--api a|b|both`, default both) over one service and the configured stores, each with the
 * web page at `/ui`, `/metrics` when `METRICS` allows it, and OpenTelemetry tracing when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (`serve-operations.ts`).
 */
import type { AddressInfo } from "node:net";
import { chatRoutes, setBErrors } from "@docqa/chat-api";
import { createRagService, type DocqaConfig, DocqaError, type Logger, loadConfig, type RagService, type ServiceHealth } from "@docqa/core";
import { defaultStopTimeoutMs } from "@docqa/core/ingestion";
import { importBackend } from "@docqa/core/stores";
import {
  answerClientErrors,
  createMemoryRateLimiter,
  createRateLimiters,
  type ErrorFormat,
  loadServerConfig,
  type RateLimiter,
  type RateLimitPolicy,
  type RateLimitSetting,
  type ServerConfig,
} from "@docqa/http";
import { predictRoutes, setAErrors } from "@docqa/predict-api";
import { type ServerType, serve } from "@hono/node-server";
import type { Command } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import { createCliLogger } from "../cli-logger.js";
import { cliAuditLog } from "../cli-principal.js";
import type { SetExtensions } from "./serve-operations.js";
import { defaultRequestGraceMs, stopServing } from "./stop-serving.js";

/** Which endpoint sets to serve. */
export type ServedApi = "a" | "b" | "both";

/** What {@link startServers} serves, and how. */
export interface ServeSettings {
  /** Endpoint sets to serve; default both. */
  api: ServedApi;
  /**
   * Server settings (`loadServerConfig`): `HOST`, `PORT` (set A; 0 picks a free port), `PORT_B`
   * (set B), the per-user budgets `RATE_LIMIT_PER_MINUTE`/`_PER_HOUR` (0 disables a window) and
   * `RATE_LIMIT_SET_A`, access tokens, `TRUST_USER_INFO`, `ENABLE_TESTPREDICT`.
   */
  server: ServerConfig;
  /**
   * The counters of `rateLimits`; default one in-memory limiter per window (per process). Pass
   * Redis-backed ones ({@link sharedRateLimiters}) to share budgets across instances.
   */
  limiters?: readonly RateLimiter[] | undefined;
  /**
   * What each set gets besides its routes: middleware run first on every request, and routes
   * added after the set's own (`/metrics`, `/ui`); see `serveOperations`. Default none.
   */
  extensions?: ((set: "a" | "b", rateLimit: RateLimitSetting) => SetExtensions) | undefined;
}

/** The part of `@docqa/redis` used here (an optional backend, imported when Redis is configured). */
interface RedisPackage {
  redisClientFromConfig(config: DocqaConfig, options?: { logger?: Logger; connectionName?: string }): { quit(): Promise<unknown> };
  createRateLimiter(settings: {
    client?: unknown;
    limits?: readonly { points: number; durationSeconds: number }[];
    logger?: Logger;
  }): RateLimiter;
}

/**
 * Rate-limit counters for `policy`: in Redis when `CACHE_URL` or `CACHE_HOST` is set (every
 * instance shares each user's budget; `@docqa/redis`'s `createRateLimiter`, which falls back to
 * per-process counters while Redis is down), else in this process.
 *
 * @returns the limiters, where they count, and a function releasing the Redis connection.
 * @throws {DocqaError} `config_invalid` when Redis is configured but `@docqa/redis` is not installed.
 */
export async function sharedRateLimiters(
  config: DocqaConfig,
  policy: RateLimitPolicy,
  logger?: Logger,
): Promise<{ limiters: RateLimiter[]; store: "redis" | "memory"; close(): Promise<void> }> {
  const limits = [
    ...(policy.perMinute > 0 ? [{ points: policy.perMinute, durationSeconds: 60 }] : []),
    ...(policy.perHour > 0 ? [{ points: policy.perHour, durationSeconds: 3600 }] : []),
  ];
  if (limits.length === 0) return { limiters: [], store: "memory", close: async () => {} };
  if (!config.memory.cache.url && !config.memory.cache.host) {
    return { limiters: createRateLimiters(policy, createMemoryRateLimiter), store: "memory", close: async () => {} };
  }
  const redis = await importBackend<RedisPackage>("@docqa/redis", config.memory.cache.url ? "CACHE_URL" : "CACHE_HOST");
  const client = redis.redisClientFromConfig(config, { logger, connectionName: "docqa-rate-limit" });
  return {
    limiters: [redis.createRateLimiter({ client, limits, logger })],
    store: "redis",
    close: async () => {
      await client.quit().catch(() => {});
    },
  };
}

/** A running server. */
export interface RunningServer {
  api: "a" | "b";
  /** For example `http://127.0.0.1:8000`. */
  url: string;
  server: ServerType;
}

/** The servers started by {@link startServers}. */
export interface RunningServers {
  servers: RunningServer[];
  /** Stops accepting connections and waits for open ones to finish. */
  close(): Promise<void>;
  /** Ends the connections still open (requests in progress are cut off). */
  closeConnections(): void;
}

function listen(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  errors: ErrorFormat,
  host: string,
  port: number,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host });
    // Requests Node's parser refuses (headers over 16 KiB, malformed ones) get the set's JSON error body.
    answerClientErrors(server, errors);
    server.once("listening", () => resolve(server));
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new DocqaError(
          "config_invalid",
          error.code === "EADDRINUSE"
            ? `port ${port} on ${host} is in use: choose another with --port / --port-b (PORT / PORT_B)`
            : `cannot listen on ${host}:${port}: ${error.message}`,
          { component: "serve", cause: error },
        ),
      ),
    );
  });
}

/**
 * Starts set A and/or set B over `service`. Set B's routes are limited per user; set A's too when
 * `settings.server.rateLimits.setA` is true, drawing on the same budgets (a user's requests to both sets
 * count together).
 *
 * @throws {DocqaError} `config_invalid` when a port is in use (servers already started are closed).
 */
export async function startServers(service: RagService, settings: ServeSettings, logger?: Logger): Promise<RunningServers> {
  const { server: serverConfig } = settings;
  const limiters = settings.limiters ?? createRateLimiters(serverConfig.rateLimits, createMemoryRateLimiter);
  const servers: RunningServer[] = [];
  const close = async () => {
    await Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
  };
  const closeConnections = () => {
    for (const { server } of servers) if ("closeAllConnections" in server) server.closeAllConnections();
  };
  const host = serverConfig.host.includes(":") ? `[${serverConfig.host}]` : serverConfig.host;
  const url = (server: ServerType) => `http://${host}:${(server.address() as AddressInfo).port}`;
  try {
    if (settings.api !== "b") {
      const rateLimit: RateLimitSetting = serverConfig.rateLimits.setA ? { limiters } : false;
      const extensions = settings.extensions?.("a", rateLimit) ?? {};
      const app = predictRoutes(service, { server: serverConfig, logger, rateLimit, middleware: extensions.middleware });
      extensions.routes?.(app);
      const server = await listen(app, setAErrors, serverConfig.host, serverConfig.port);
      servers.push({ api: "a", url: url(server), server });
    }
    if (settings.api !== "a") {
      const rateLimit: RateLimitSetting = { limiters };
      const extensions = settings.extensions?.("b", rateLimit) ?? {};
      const app = chatRoutes(service, { server: serverConfig, logger, rateLimit, middleware: extensions.middleware });
      extensions.routes?.(app);
      const server = await listen(app, setBErrors, serverConfig.host, serverConfig.portB);
      servers.push({ api: "b", url: url(server), server });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { servers, close, closeConnections };
}

function parseApi(value: string): ServedApi {
  const api = value.trim().toLowerCase();
  if (api !== "a" && api !== "b" && api !== "both") {
    throw new DocqaError("config_invalid", `--api must be a, b or both, not ${JSON.stringify(value)}`, { component: "serve" });
  }
  return api;
}

/**
 * The one note `docqa serve` prints at start when a model would help: why there is no embedding
 * model and why no chat model, when the service runs without them. Undefined when both are ready
 * (an embedding model that failed to load has already been warned about).
 */
export function startupModelNote(health: ServiceHealth): string | undefined {
  const reasons: string[] = [];
  if (health.embeddings.status === "disabled" && health.embeddings.detail) reasons.push(health.embeddings.detail);
  if (health.chatModel?.status === "disabled" && health.chatModel.detail) reasons.push(health.chatModel.detail);
  return reasons.length === 0 ? undefined : `note: ${reasons.join("; ")}\n`;
}

/** Registers `docqa serve`. */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "serve endpoint set A (/healthz, /query, /predict, /upsert) and/or set B (/health, /api/chat, /api/search, /api/ingest), each with /docs and /redoc",
    )
    .option("--api <sets>", "endpoint sets to serve: a, b or both", "both")
    .option("--port <port>", "port of set A (PORT, default 8002)")
    .option("--port-b <port>", "port of set B (PORT_B, default 8000)")
    .option("--host <host>", "interface to listen on (HOST); 0.0.0.0 for all")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .action(async (options: { api: string; port?: string; portB?: string; host?: string; dataDir?: string }) => {
      const api = parseApi(options.api);
      const environment = {
        ...process.env,
        ...(options.port ? { PORT: options.port } : {}),
        ...(options.portB ? { PORT_B: options.portB } : {}),
        ...(options.host ? { HOST: options.host } : {}),
        ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}),
      };
      const config = loadConfig(environment);
      const server = loadServerConfig(environment);
      const logger = createCliLogger(config.logging.level === "debug");
      // Loaded here, not at the top: the other commands (ask, ingest) start without them.
      const [{ serveOperations }, { startTracing }] = await Promise.all([import("./serve-operations.js"), import("@docqa/observability")]);
      const operations = serveOperations({ server, version: packageJson.version, logger, nodeEnvironment: process.env.NODE_ENV });
      const tracing = await startTracing({ environment, serviceVersion: packageJson.version });
      const service = createRagService({ config, logger, audit: cliAuditLog(config), metrics: operations.serviceMetrics });
      await service.ready();
      const resumed = await service.resumeIngestions();
      if (resumed > 0) process.stderr.write(`resumed ${resumed} interrupted ingestion job(s)\n`);
      const health = await service.health();
      const counters = await sharedRateLimiters(config, server.rateLimits, logger);
      let running: RunningServers;
      try {
        running = await startServers(
          service,
          { api, server, limiters: counters.limiters, extensions: operations.extensions(service) },
          logger,
        );
      } catch (error) {
        await counters.close();
        await service.close();
        await tracing?.shutdown();
        throw error;
      }
      const limits =
        counters.limiters.length > 0
          ? `${server.rateLimits.perMinute}/min, ${server.rateLimits.perHour}/h per user, counted in ${counters.store}${server.rateLimits.setA ? ", sets A and B" : ", set B"}`
          : "off";
      for (const { api: set, url } of running.servers) {
        process.stderr.write(
          `docqa set ${set.toUpperCase()} listening on ${url} (data: ${config.stores.dataDir}; embeddings: ${
            health.embeddings.status === "ready"
              ? health.embeddings.model
              : health.embeddings.status === "disabled"
                ? "none, retrieval uses BM25 only"
                : "unavailable, retrieval uses BM25 only"
          }; answerer: ${health.answerer}; rate limits: ${set === "a" && !server.rateLimits.setA ? "off" : limits}; ${operations.summary}${
            server.jwt.secret ? "" : "; JWT_SECRET unset: authenticated routes answer 503"
          })\n`,
        );
      }
      const modelNote = startupModelNote(health);
      if (modelNote) process.stderr.write(modelNote);
      if (tracing) process.stderr.write(`docqa traces exported to ${tracing.description}\n`);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`received ${signal}, stopping\n`);
        // Never exit before the service has closed: ending the process while an ingestion worker
        // runs the embedding model aborts it (SIGABRT). See stop-serving.ts.
        stopServing({ servers: running, service, afterwards: [() => counters.close(), () => tracing?.shutdown()] }).then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`stopping failed: ${(error as Error).message}\n`);
            process.exit(1);
          },
        );
        // Last resort when something hangs: requests' grace, ingestion's stop timeout, and a margin.
        setTimeout(
          () => {
            process.stderr.write("docqa serve did not stop in time; exiting\n");
            process.exit(1);
          },
          defaultRequestGraceMs + defaultStopTimeoutMs + 15_000,
        ).unref();
      };
      process.on("SIGINT", () => stop("SIGINT"));
      process.on("SIGTERM", () => stop("SIGTERM"));
    });
}
