/**
 * The short-lived state a configuration selects: ingestion jobs and conversation memory (the
 * spec's "memory store", `CACHE_*`). With `CACHE_URL` or `CACHE_HOST` set both live in Redis
 * (package `@docqa/redis`, loaded on demand) and are shared by every server instance; otherwise
 * jobs live in SQLite under `DATA_DIR` and memory in this process.
 */
import { join, resolve } from "node:path";
import type { DocqaConfig } from "../config/config-schema.js";
import type { JobStore } from "../jobs/job-store.js";
import { createSqliteJobStore } from "../jobs/sqlite-job-store.js";
import type { Logger } from "../logging/logger.js";
import { createInMemoryMemoryStore } from "../memory/in-memory-memory-store.js";
import type { MemoryStore } from "../memory/memory-store.js";
import { importBackend } from "./store-backend.js";

/** Jobs and conversation memory, closed together. */
export interface CacheStores {
  jobStore: JobStore;
  memoryStore: MemoryStore;
  /** Closes both stores and their connection. */
  close(): Promise<void>;
}

/** The export of `@docqa/redis` used here. */
export interface RedisPackage {
  redisStoresFromConfig(config: DocqaConfig, logger: Logger): CacheStores;
}

/** Whether the configuration selects Redis (`CACHE_URL` or `CACHE_HOST` set). */
export function isRedisConfigured(config: DocqaConfig): boolean {
  return Boolean(config.memory.cache.url || config.memory.cache.host);
}

/**
 * Creates the job and memory stores `config` selects. Redis connects lazily, so this does not
 * fail when Redis is down (calls then fail with `store_unavailable`).
 *
 * @throws {DocqaError} `config_invalid` when Redis is configured but `@docqa/redis` is not installed.
 */
export async function cacheStoresFromConfig(config: DocqaConfig, logger: Logger): Promise<CacheStores> {
  if (isRedisConfigured(config)) {
    return (await importBackend<RedisPackage>("@docqa/redis", config.memory.cache.url ? "CACHE_URL" : "CACHE_HOST")).redisStoresFromConfig(
      config,
      logger,
    );
  }
  const jobStore = createSqliteJobStore(join(resolve(config.stores.dataDir), "jobs.sqlite"));
  const memoryStore = createInMemoryMemoryStore();
  return {
    jobStore,
    memoryStore,
    async close() {
      await Promise.all([jobStore.close(), memoryStore.close()]);
    },
  };
}
