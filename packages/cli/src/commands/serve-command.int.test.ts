/**
 * `docqa serve`'s rate limits with Redis configured (`CACHE_URL`): two server instances count
 * each user's requests in one budget (`DOCQA_TEST_REDIS_URL`, default redis://127.0.0.1:6379).
 * Skipped with a message when Redis is unreachable; fails in CI (`CI=true`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryJobStore, createRagService, mintAccessToken, type RagService, resolveConfig } from "@docqa/core";
import { isContinuousIntegration, isTcpReachable } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServers, sharedRateLimiters, startServers } from "./serve-command.js";

const redisUrl = process.env.DOCQA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const secret = "serve-redis-secret-0123456789-0123456789";

const redisAvailable = await isTcpReachable(redisUrl);
if (!redisAvailable && !isContinuousIntegration()) {
  console.warn(`serve-command Redis test skipped: no Redis at ${redisUrl} (set DOCQA_TEST_REDIS_URL)`);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.skipIf(!redisAvailable && !isContinuousIntegration())("docqa serve rate limits in Redis", () => {
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
    // A user no earlier run has counted.
    const token = await mintAccessToken(
      { secret, algorithm: "HS256", issuer: "oauth-app" },
      { email: `${randomUUID()}@example.org`, orgId: "org-1" },
    );
    const statuses: number[] = [];
    for (const url of [urls[0], urls[1], urls[0], urls[1]]) {
      const response = await fetch(`${url}/api/ingest/none`, { headers: { Authorization: `Bearer ${token}` } });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });
});
