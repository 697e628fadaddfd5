/**
 * The Redis client docqa uses, built from `CACHE_*` settings, tuned so that a Redis outage makes
 * calls fail within `STORE_TIMEOUT_MS` instead of hanging.
 */
import { type DocqaConfig, DocqaError, type Logger, silentLogger } from "@docqa/core";
import { Redis, type RedisOptions } from "ioredis";

/** Options of {@link redisClientFromConfig}. */
export interface RedisClientOptions {
  /** Where connection losses and recoveries are logged (never with credentials); default silent. */
  logger?: Logger | undefined;
  /** `CLIENT SETNAME` of the connection, shown by `CLIENT LIST`; default `docqa`. */
  connectionName?: string | undefined;
  /**
   * Longest wait between reconnection attempts, in milliseconds; default 2000. Attempts go on for
   * as long as the client is open, so the service recovers by itself when Redis is back.
   */
  maxReconnectDelayMs?: number | undefined;
}

/**
 * The ioredis options for `config.cache`:
 *
 * - `CACHE_URL` (`redis://[user:password@]host[:port][/db]` or `rediss://…` for TLS) when set;
 *   its password and database win over `CACHE_PASSWORD` and `CACHE_DB`, which fill them in when
 *   the URL has none. `CACHE_SSL=true` turns TLS on for a `redis://` URL too.
 * - Otherwise `CACHE_HOST`, `CACHE_PORT` (6379), `CACHE_DB` (0), `CACHE_PASSWORD`, and TLS
 *   when `CACHE_SSL` is true.
 *
 * Failure behaviour: `lazyConnect` (nothing happens until the first command), no offline queue
 * and no resending after a reconnection (a command is sent only on a ready connection, and one
 * that failed is never replayed later behind the caller's back), `connectTimeout` and
 * `commandTimeout` of `STORE_TIMEOUT_MS`, `socketTimeout` of `STORE_TIMEOUT_MS` (a connection
 * that leaves a command unanswered that long is dropped and reconnected, so a half-open
 * connection does not stay stuck), `maxRetriesPerRequest: 1`, and reconnection attempts
 * 100 ms, 200 ms, … up to {@link RedisClientOptions.maxReconnectDelayMs} apart. docqa's stores
 * call through `callRedis`, which connects a lazy client and waits for readiness within
 * the same timeout: a refused connection fails at once, a hung one after `STORE_TIMEOUT_MS`.
 *
 * @throws {DocqaError} `config_invalid` when neither `CACHE_URL` nor `CACHE_HOST` is set, or
 *   `CACHE_URL` is not a `redis://` or `rediss://` URL (the message never shows the URL's password).
 */
export function redisOptionsFromConfig(config: DocqaConfig, options: RedisClientOptions = {}): RedisOptions {
  const { cache } = config.memory;
  const storeTimeoutMs = config.stores.timeoutMs;
  const maxReconnectDelayMs = options.maxReconnectDelayMs ?? 2000;
  const common: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
    connectTimeout: storeTimeoutMs,
    commandTimeout: storeTimeoutMs,
    socketTimeout: storeTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, maxReconnectDelayMs),
    connectionName: options.connectionName ?? "docqa",
  };
  if (cache.url) {
    let url: URL;
    try {
      url = new URL(cache.url);
    } catch (error) {
      throw new DocqaError("config_invalid", "CACHE_URL is not a URL: use redis://host:port/db or rediss://host:port/db", {
        component: "redis",
        cause: error instanceof Error ? new Error(error.name) : undefined,
      });
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
      throw new DocqaError("config_invalid", `CACHE_URL must start with redis:// or rediss://, not ${url.protocol}//`, {
        component: "redis",
      });
    }
    const database = url.pathname.replace(/^\//, "");
    if (database !== "" && !/^\d+$/.test(database)) {
      throw new DocqaError("config_invalid", `CACHE_URL's path must be a database number, not /${database}`, { component: "redis" });
    }
    return {
      ...common,
      host: url.hostname.replace(/^\[(.*)\]$/, "$1") || "127.0.0.1",
      port: url.port ? Number(url.port) : 6379,
      db: database === "" ? cache.db : Number(database),
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : cache.password,
      tls: url.protocol === "rediss:" || cache.ssl ? {} : undefined,
    };
  }
  if (!cache.host) {
    throw new DocqaError("config_invalid", "the Redis backend needs CACHE_URL or CACHE_HOST", { component: "redis" });
  }
  return {
    ...common,
    host: cache.host,
    port: cache.port,
    db: cache.db,
    password: cache.password,
    tls: cache.ssl ? {} : undefined,
  };
}

/**
 * Where a client connects, for messages and logs: `redis://host:port/db` or `rediss://…`, never
 * with credentials.
 */
export function describeRedisTarget(options: Pick<RedisOptions, "host" | "port" | "db" | "tls">): string {
  const host = options.host?.includes(":") ? `[${options.host}]` : (options.host ?? "localhost");
  return `${options.tls ? "rediss" : "redis"}://${host}:${options.port ?? 6379}/${options.db ?? 0}`;
}

/**
 * Creates the ioredis client for `config.cache` (see {@link redisOptionsFromConfig}). It connects
 * on its first command. A lost connection is logged once as a warning (target and reason, never
 * the password) and its recovery once at info level; the client's `error` events are handled, so
 * they never crash the process. Close it with `quit()`.
 *
 * @throws {DocqaError} `config_invalid`, see {@link redisOptionsFromConfig}.
 * @example
 * ```ts
 * const client = redisClientFromConfig(loadConfig(), { logger });
 * const jobs = createRedisJobStore(client);
 * ```
 */
export function redisClientFromConfig(config: DocqaConfig, options: RedisClientOptions = {}): Redis {
  const redisOptions = redisOptionsFromConfig(config, options);
  const logger = options.logger ?? silentLogger;
  const target = describeRedisTarget(redisOptions);
  const client = new Redis(redisOptions);
  let failing = false;
  client.on("error", (error: Error) => {
    if (failing) return;
    failing = true;
    logger.warn("redis unavailable; calls fail with store_unavailable until it is back", {
      component: "redis",
      target,
      error: error.message,
    });
  });
  client.on("ready", () => {
    if (!failing) return;
    failing = false;
    logger.info("redis available again", { component: "redis", target });
  });
  return client;
}
