/**
 * The error every Redis-backed part throws when Redis fails: `store_unavailable` (HTTP 503),
 * naming the target and what to do.
 */
import { DocqaError } from "@docqa/core";
import type { Redis } from "ioredis";
import { describeRedisTarget } from "./redis-client-from-config.js";

/**
 * Wraps a Redis failure: a {@link DocqaError} `store_unavailable`, component `redis`, whose
 * message names the operation, the target (without credentials) and the cause's message, with
 * the cause kept. A {@link DocqaError} is returned unchanged.
 */
export function redisUnavailableError(client: Redis, operation: string, cause: unknown): DocqaError {
  if (DocqaError.isInstance(cause)) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DocqaError(
    "store_unavailable",
    `Redis at ${describeRedisTarget(client.options)} failed to ${operation} (${reason}): start Redis or check CACHE_URL / CACHE_HOST`,
    { component: "redis", cause },
  );
}
