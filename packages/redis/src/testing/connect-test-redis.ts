/**
 * Test support for the integration tests: the Redis at `DOCQA_TEST_REDIS_URL` (default
 * `redis://127.0.0.1:6379`), a fresh key prefix per run, and cleanup. Under `CI=true` a missing
 * Redis fails the tests; elsewhere they are skipped with a message.
 */
import { randomUUID } from "node:crypto";
import { type DocqaConfig, resolveConfig } from "@docqa/core";
import { Redis } from "ioredis";
import { describe, it } from "vitest";

/** The Redis the integration tests use. */
export interface TestRedis {
  /** `DOCQA_TEST_REDIS_URL`, or `redis://127.0.0.1:6379`. */
  url: string;
  /** Why Redis is unusable, when it is (tests are then skipped). */
  unavailable: string | undefined;
  /** A configuration whose `CACHE_URL` is {@link url}, with `STORE_TIMEOUT_MS` of 5000. */
  config: DocqaConfig;
  /** A key prefix no other run uses: `docqa-test:<uuid>:`. */
  newKeyPrefix(): string;
  /** Deletes every key under `prefix` (with `SCAN`), using a short-lived connection. */
  deleteKeys(prefix: string): Promise<void>;
}

/**
 * Checks that the test Redis answers `PING`.
 *
 * @throws {Error} when it does not and `CI` is `true`.
 */
export async function connectTestRedis(): Promise<TestRedis> {
  const url = process.env.DOCQA_TEST_REDIS_URL || "redis://127.0.0.1:6379";
  const open = () => new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  let unavailable: string | undefined;
  const probe = open();
  let connectionError: Error | undefined;
  probe.on("error", (error: Error) => {
    connectionError ??= error;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const reason = (connectionError ?? error) instanceof Error ? (connectionError ?? (error as Error)).message : String(error);
    unavailable = `no Redis at ${url} (${reason}): start one with scripts/services/start-redis.sh or set DOCQA_TEST_REDIS_URL`;
  } finally {
    probe.disconnect();
  }
  if (unavailable && process.env.CI === "true") throw new Error(`${unavailable}; CI=true requires it`);
  if (unavailable) console.warn(`[docqa] Redis integration tests skipped: ${unavailable}`);
  return {
    url,
    unavailable,
    config: resolveConfig({ memory: { cache: { url } }, stores: { timeoutMs: 5000 } }),
    newKeyPrefix: () => `docqa-test:${randomUUID()}:`,
    async deleteKeys(prefix) {
      const client = open();
      client.on("error", () => {});
      try {
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== "0");
      } finally {
        client.disconnect();
      }
    },
  };
}

/** Registers one skipped test naming why, in place of a suite that needs Redis. */
export function describeSkippedWithoutRedis(name: string, redis: TestRedis): void {
  describe(name, () => {
    it.skip(`skipped: ${redis.unavailable}`, () => {});
  });
}
