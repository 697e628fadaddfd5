/**
 * `docqa serve`'s rate limits with Redis configured (`CACHE_URL`): two server instances count
 * each user's requests in one budget (`DOCQA_TEST_REDIS_URL`, set by scripts/services/env.sh).
 * Skipped with a message when Redis is absent; fails in CI (`CI=true`). The user's rate-limit keys
 * are deleted at the end.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryJobStore, createRagService, mintAccessToken, type RagService, resolveConfig } from "@docqa/core";
import { integrationServer, testName } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServers, sharedRateLimiters, startServers } from "./serve-command.js";

const redis = await integrationServer("redis", "docqa serve Redis rate-limit test");
const redisUrl = redis.url ?? "";
const redisAvailable = redis.available;
const secret = "serve-redis-secret-0123456789-0123456789";

/** Deletes the keys matching `pattern` (SCAN MATCH), through @docqa/redis's client. */
async function deleteKeysMatching(url: string, pattern: string): Promise<void> {
  const { redisClientFromConfig } = await import("@docqa/redis");
  const client = redisClientFromConfig(resolveConfig({ memory: { cache: { url } } }));
  try {
    await client.connect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await client.quit();
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.skipIf(!redisAvailable)("docqa serve rate limits in Redis", () => {
  it("two instances configured with CACHE_URL share one budget per user", async () => {
    expect(redisAvailable, `Redis is unreachable at ${redisUrl}`).toBe(true);
    const urls: string[] = [];
    for (let instance = 0; instance < 2; instance++) {
      const config = resolveConfig({
        memory: { cache: { url: redisUrl } },
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-serve-redis-")) },
        logging: { level: "silent" },
      });
      const service: RagService = createRagService({ config, embeddings: null, jobStore: createInMemoryJobStore() });
      const counters = await sharedRateLimiters(config, { perMinute: 3, perHour: 1000 });
      expect(counters.store).toBe("redis");
      const running: RunningServers = await startServers(service, {
        api: "b",
        server: resolveServerConfig({ host: "127.0.0.1", port: 0, portB: 0, jwt: { secret }, rateLimits: { perMinute: 3, perHour: 1000 } }),
        limiters: counters.limiters,
      });
      cleanups.push(
        () => service.close(),
        () => counters.close(),
        () => running.close(),
      );
      urls.push(running.servers[0]?.url as string);
    }
    // A user no other run counts; their counters are deleted at the end.
    const email = `${testName("user")}@example.org`;
    cleanups.unshift(() => deleteKeysMatching(redisUrl, `*${email}*`));
    const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId: "org-1" });
    const statuses: number[] = [];
    for (const url of [urls[0], urls[1], urls[0], urls[1]]) {
      const response = await fetch(`${url}/api/ingest/none`, { headers: { Authorization: `Bearer ${token}` } });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });
});
