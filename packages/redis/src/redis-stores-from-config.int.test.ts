import { silentLogger } from "@docqa/core";
import { contractJob, contractTurn } from "@docqa/core/contract";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { redisStoresFromConfig } from "./redis-stores-from-config.js";
import { connectTestRedis, describeSkippedWithoutRedis } from "./testing/connect-test-redis.js";

const redis = await connectTestRedis();

if (redis.unavailable) {
  describeSkippedWithoutRedis("redisStoresFromConfig", redis);
} else {
  describe("redisStoresFromConfig", () => {
    const orgId = `acme-${crypto.randomUUID()}`;
    afterAll(async () => {
      await redis.deleteKeys(`docqa:job:${orgId}:`);
      await redis.deleteKeys(`docqa:memory:${orgId}:`);
    });

    it("stores jobs and conversations under docqa: on one lazy client, closed once both stores are closed", async () => {
      const stores = redisStoresFromConfig(redis.config, silentLogger);
      expect(stores.client.status).toBe("wait");
      expect([stores.jobStore.name, stores.memoryStore.name]).toEqual(["redis", "redis"]);
      await stores.jobStore.save(contractJob("j1", orgId, "succeeded"));
      await stores.memoryStore.append({ orgId, kind: "session", id: "ada@acme.org" }, [contractTurn("1")], {
        userName: "ada@acme.org",
        ttlSeconds: 60,
      });
      const reader = new Redis(redis.url);
      try {
        expect(JSON.parse((await reader.get(`docqa:job:${orgId}:j1`)) ?? "null")).toMatchObject({ jobId: "j1", orgId });
        expect(await reader.llen(`docqa:memory:${orgId}:session:ada@acme.org`)).toBe(2);
      } finally {
        reader.disconnect();
      }
      await stores.jobStore.close();
      expect(stores.client.status).toBe("ready");
      await stores.memoryStore.close();
      expect(stores.client.status).toBe("end");
      await stores.close();
      await expect(stores.jobStore.get(orgId, "j1")).rejects.toMatchObject({ code: "store_unavailable" });
    });
  });
}
