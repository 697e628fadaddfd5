/**
 * @docqa/redis: the Redis backend of docqa. Ingestion jobs ({@link createRedisJobStore}),
 * conversation memory ({@link createRedisMemoryStore}) and rate-limit counters
 * ({@link createRateLimiter}) shared by every server instance, on one ioredis client built from
 * `CACHE_*` settings ({@link redisClientFromConfig}). The core loads
 * {@link redisStoresFromConfig} on demand when Redis is configured.
 */
export { callRedis, whenRedisReady } from "./call-redis.js";
export {
  chatRateLimits,
  createRateLimiter,
  type RateLimit,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterSettings,
} from "./create-rate-limiter.js";
export { escapeKeyPart } from "./escape-key-part.js";
export {
  describeRedisTarget,
  type RedisClientOptions,
  redisClientFromConfig,
  redisOptionsFromConfig,
} from "./redis-client-from-config.js";
export { createRedisJobStore, defaultFinishedJobRetentionSeconds, type RedisJobStoreOptions } from "./redis-job-store.js";
export { defaultKeyPrefix, type RedisKeyLayout, redisKeyLayout } from "./redis-key-layout.js";
export { createRedisMemoryStore, type RedisMemoryStoreOptions } from "./redis-memory-store.js";
export { type RedisStores, redisStoresFromConfig } from "./redis-stores-from-config.js";
export { redisUnavailableError } from "./redis-unavailable-error.js";
