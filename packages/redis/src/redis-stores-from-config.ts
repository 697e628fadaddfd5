/**
 * The Redis stores a configuration selects, for the core to import on demand
 * (`importBackend("@docqa/redis", "CACHE_URL")`).
 */
import type { DocqaConfig, JobStore, Logger } from "@docqa/core";
import type { MemoryStore } from "@docqa/core/stores";
import type { Redis } from "ioredis";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { createRedisJobStore } from "./redis-job-store.js";
import { createRedisMemoryStore } from "./redis-memory-store.js";

/** What {@link redisStoresFromConfig} returns. */
export interface RedisStores {
  /** Ingestion jobs in Redis (finished jobs kept 7 days). */
  jobStore: JobStore;
  /** Conversation memory in Redis. */
  memoryStore: MemoryStore;
  /** The shared client, for example for `createRateLimiter({ client })`. */
  client: Redis;
  /**
   * Closes both stores and the client: `QUIT` when connected (a disconnect when Redis does not
   * answer within `STORE_TIMEOUT_MS`), else a disconnect that stops reconnection attempts. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Creates the Redis job store and memory store on one client built from `config.cache` (see
 * {@link redisClientFromConfig}), under the default key prefix `docqa:`. Nothing connects until
 * the first call, so this does not fail when Redis is down; calls then fail with `store_unavailable`.
 * The client is closed when {@link RedisStores.close} is called, or when both stores have been
 * closed.
 *
 * @throws {DocqaError} `config_invalid` when neither `CACHE_URL` nor `CACHE_HOST` is set, or
 *   `CACHE_URL` is malformed.
 */
export function redisStoresFromConfig(config: DocqaConfig, logger: Logger): RedisStores {
  const client = redisClientFromConfig(config, { logger });
  let closing: Promise<void> | undefined;
  const closeClient = () => {
    closing ??= (async () => {
      // Only a ready connection has replies worth waiting for; otherwise stop reconnecting at once.
      if (client.status !== "ready") {
        client.disconnect();
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const ended = new Promise<void>((resolve) => {
        client.once("end", () => resolve());
        // QUIT unanswered in time: drop the connection; stop waiting at the latest twice as long.
        timer = setTimeout(() => {
          client.disconnect();
          timer = setTimeout(resolve, config.stores.timeoutMs);
        }, config.stores.timeoutMs);
      });
      client.quit().catch(() => client.disconnect());
      await ended;
      clearTimeout(timer);
    })();
    return closing;
  };
  const open = new Set<string>(["jobs", "memory"]);
  const closer = (name: string) => async () => {
    open.delete(name);
    if (open.size === 0) await closeClient();
  };
  const jobStore: JobStore = { ...createRedisJobStore(client), close: closer("jobs") };
  const memoryStore: MemoryStore = { ...createRedisMemoryStore(client), close: closer("memory") };
  return {
    jobStore,
    memoryStore,
    client,
    async close() {
      open.clear();
      await closeClient();
    },
  };
}
