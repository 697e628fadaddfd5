import { contractJob, describeJobStoreContract } from "@docqa/core/contract";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { createRedisJobStore, defaultFinishedJobRetentionSeconds } from "./redis-job-store.js";
import { redisKeyLayout } from "./redis-key-layout.js";
import { connectTestRedis, describeSkippedWithoutRedis } from "./testing/connect-test-redis.js";

const redis = await connectTestRedis();

if (redis.unavailable) {
  describeSkippedWithoutRedis("redis job store", redis);
} else {
  describeJobStoreContract("redis", async () => {
    const client = redisClientFromConfig(redis.config);
    const keyPrefix = redis.newKeyPrefix();
    return {
      store: createRedisJobStore(client, { keyPrefix }),
      async close() {
        await redis.deleteKeys(keyPrefix);
        await client.quit();
      },
    };
  });

  describe("redis job store", () => {
    let client: Redis;
    const keyPrefix = redis.newKeyPrefix();
    const keys = redisKeyLayout(keyPrefix);
    beforeAll(() => {
      client = redisClientFromConfig(redis.config);
    });
    afterAll(async () => {
      await redis.deleteKeys(keyPrefix);
      await client.quit();
    });

    it("keeps unfinished jobs without expiry in the unfinished set, and finished ones for the retention only", async () => {
      const store = createRedisJobStore(client, { keyPrefix, finishedRetentionSeconds: 1 });
      await store.save(contractJob("j1", "acme:eu", "running"));
      const key = keys.job("acme:eu", "j1");
      expect(key).toBe(`${keyPrefix}job:acme%003aeu:j1`);
      expect(await client.pttl(key)).toBe(-1);
      expect(await client.zrange(keys.unfinishedJobs, 0, "-1")).toEqual([key]);

      await store.save(contractJob("j1", "acme:eu", "succeeded"));
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1000);
      expect(await client.zrange(keys.unfinishedJobs, 0, "-1")).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(await store.get("acme:eu", "j1")).toBeUndefined();

      await store.save(contractJob("j1", "acme:eu", "queued"));
      expect(await client.pttl(key)).toBe(-1);
      expect(defaultFinishedJobRetentionSeconds).toBe(604_800);
      await store.save(contractJob("j2", "acme", "failed"));
      const defaultTtl = await createRedisJobStore(client, { keyPrefix })
        .save(contractJob("j3", "acme", "failed"))
        .then(() => client.pttl(keys.job("acme", "j3")));
      expect(defaultTtl).toBeGreaterThan(604_790_000);
      expect(defaultTtl).toBeLessThanOrEqual(604_800_000);
    });

    it("forgets unfinished entries whose job key is gone, and lists unfinished jobs oldest first", async () => {
      const prefix = redis.newKeyPrefix();
      const store = createRedisJobStore(client, { keyPrefix: prefix });
      const layout = redisKeyLayout(prefix);
      try {
        await store.save({ ...contractJob("late", "acme", "queued"), createdAt: "2026-01-02T00:00:00.000Z" });
        await store.save({ ...contractJob("early", "acme", "running"), createdAt: "2026-01-01T00:00:00.000Z" });
        await store.save(contractJob("lost", "acme", "queued"));
        await client.del(layout.job("acme", "lost"));
        expect((await store.unfinished()).map((job) => job.jobId)).toEqual(["lost", "early", "late"].slice(1));
        expect(await client.zcard(layout.unfinishedJobs)).toBe(2);
      } finally {
        await redis.deleteKeys(prefix);
      }
    });
  });
}
