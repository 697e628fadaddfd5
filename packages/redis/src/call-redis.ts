/**
 * Bounded calls to Redis: wait for a connection (connecting a lazy client), then run, all within
 * the client's `commandTimeout` (`STORE_TIMEOUT_MS`).
 */
import type { Redis } from "ioredis";
import { redisUnavailableError } from "./redis-unavailable-error.js";

/** One wait per client, shared by every caller waiting at the same time (so listeners stay few). */
const pending = new WeakMap<Redis, Promise<void>>();

/**
 * Resolves when `client` is ready, connecting it when it is lazy and has not connected yet.
 * Rejects at the next failed connection attempt (so a refused connection fails at once, while a
 * reconnecting client that succeeds lets the caller through), when the client is closed, or after
 * `timeoutMs` (default: the client's `commandTimeout`, else 10,000).
 *
 * @throws {Error} the connection error, `the connection is closed`, or `not connected within … ms`.
 */
export function whenRedisReady(client: Redis, timeoutMs?: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  if (client.status === "end" || client.status === "close") return Promise.reject(new Error("the connection is closed"));
  const existing = pending.get(client);
  if (existing) return existing;
  const limit = timeoutMs ?? client.options.commandTimeout ?? 10_000;
  const wait = new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("error", onError);
      client.off("end", onEnd);
      pending.delete(client);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => settle();
    const onError = (error: Error) => settle(error);
    const onEnd = () => settle(new Error("the connection is closed"));
    const timer = setTimeout(() => settle(new Error(`not connected within ${limit} ms`)), limit);
    client.on("ready", onReady);
    client.on("error", onError);
    client.on("end", onEnd);
  });
  pending.set(client, wait);
  if (client.status === "wait") client.connect().catch(() => {});
  return wait;
}

/**
 * Runs `operation` against Redis once the client is ready, failing with
 * {@link redisUnavailableError} when it throws or when waiting and running together take longer
 * than the client's `commandTimeout` (`STORE_TIMEOUT_MS`).
 *
 * @throws {DocqaError} `store_unavailable`.
 */
export async function callRedis<T>(client: Redis, operation: string, run: () => Promise<T>): Promise<T> {
  const timeoutMs = client.options.commandTimeout ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const call = whenRedisReady(client, timeoutMs).then(run);
    call.catch(() => {});
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return await Promise.race([call, deadline]);
  } catch (error) {
    throw redisUnavailableError(client, operation, error);
  } finally {
    clearTimeout(timer);
  }
}
