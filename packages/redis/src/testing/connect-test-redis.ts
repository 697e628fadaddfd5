/**
 * Test support for the integration tests: the Redis of this run (`DOCQA_TEST_REDIS_URL`, exported
 * by scripts/services/env.sh; never a default port), a key prefix per run and call, and cleanup.
 * Under `CI=true` a missing Redis fails the tests; elsewhere they are skipped with a one-line
 * message.
 */
import { type DocqaConfig, resolveConfig } from "@docqa/core";
import { integrationServer, testName } from "@docqa/core/testing";
import { Redis } from "ioredis";
import { describe, it } from "vitest";

/** The Redis the integration tests use. */
export interface TestRedis {
  /** `DOCQA_TEST_REDIS_URL`; empty when it is unset (the tests are then skipped). */
  url: string;
  /** Why Redis is unusable, when it is (tests are then skipped). */
  unavailable: string | undefined;
  /** A configuration whose `CACHE_URL` is {@link url}, with `STORE_TIMEOUT_MS` of 5000. */
  config: DocqaConfig;
  /** A key prefix no other run or call uses: `docqa_test_<run id>_<random>:`. */
  newKeyPrefix(): string;
  /** Deletes every key under `prefix` (with `SCAN`), using a short-lived connection. */
  deleteKeys(prefix: string): Promise<void>;
}

/**
 * Checks that the test Redis answers `PING`.
 *
 * @throws {Error} when it does not and `CI` is `true`.
 */
export async function connectTestRedis(testFile = "Redis integration tests"): Promise<TestRedis> {
  const server = await integrationServer("redis", testFile);
  const url = server.url ?? "";
  const open = () => new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  let unavailable = server.skipReason;
  if (!unavailable) {
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
      unavailable = `the server at ${url} does not answer PING (${reason})`;
      if (process.env.CI === "true") throw new Error(`${testFile}: ${unavailable}; CI=true requires it`);
      console.warn(`[docqa] ${testFile} skipped: ${unavailable}`);
    } finally {
      probe.disconnect();
    }
  }
  return {
    url,
    unavailable,
    config: resolveConfig({ memory: { cache: url ? { url } : {} }, stores: { timeoutMs: 5000 } }),
    newKeyPrefix: () => `${testName("docqa_test")}:`,
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
