import { resolveConfig } from "@docqa/core";
import { contractTurn, describeMemoryStoreContract } from "@docqa/core/contract";
import { startTcpFaultProxy } from "@docqa/core/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { redisKeyLayout } from "./redis-key-layout.js";
import { createRedisMemoryStore } from "./redis-memory-store.js";
import { connectTestRedis, describeSkippedWithoutRedis } from "./testing/connect-test-redis.js";

const redis = await connectTestRedis();

if (redis.unavailable) {
  describeSkippedWithoutRedis("redis memory store", redis);
} else {
  describeMemoryStoreContract("redis", async () => {
    const client = redisClientFromConfig(redis.config);
    const keyPrefix = redis.newKeyPrefix();
    return {
      store: createRedisMemoryStore(client, { keyPrefix }),
      async close() {
        await redis.deleteKeys(keyPrefix);
        await client.quit();
      },
    };
  });

  describe("redis memory store", () => {
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

    it("keeps one list per conversation (header, then at most maxTurns turns) and an index that outlives it", async () => {
      const store = createRedisMemoryStore(client, { keyPrefix });
      const key = { orgId: "acme:eu", kind: "thread", id: "t:1" } as const;
      await store.append(key, [contractTurn("1"), contractTurn("2"), contractTurn("3")], {
        userName: "ada@acme.org",
        ttlSeconds: 30,
        maxTurns: 2,
      });
      const listKey = `${keyPrefix}memory:acme%003aeu:thread:t%003a1`;
      const indexKey = `${keyPrefix}memory:acme%003aeu:user:ada@acme.org`;
      expect(keys.conversation(key)).toBe(listKey);
      const items = await client.lrange(listKey, 0, -1);
      expect(items.map((item) => JSON.parse(item))).toEqual([
        { v: 1, ownerUser: "ada@acme.org", index: indexKey },
        contractTurn("2"),
        contractTurn("3"),
      ]);
      expect(await client.smembers(indexKey)).toEqual([listKey]);
      const listTtl = await client.pttl(listKey);
      expect(listTtl).toBeGreaterThan(29_000);
      expect(listTtl).toBeLessThanOrEqual(30_000);

      await store.append({ orgId: "acme:eu", kind: "session", id: "ada@acme.org" }, [contractTurn("s")], {
        userName: "ada@acme.org",
        ttlSeconds: 600,
      });
      expect(await client.pttl(indexKey)).toBeGreaterThan(599_000);
      await store.load(key, 5);
      expect(await client.pttl(listKey)).toBeLessThanOrEqual(5000);
      expect(await client.pttl(indexKey)).toBeGreaterThan(599_000);
      expect(await client.scard(indexKey)).toBe(2);

      expect(await store.deleteUser("acme:eu", "ada@acme.org")).toBe(2);
      expect(await client.exists(listKey, indexKey)).toBe(0);
    });

    for (const outage of ["refused", "hung"] as const) {
      it(`fails while Redis is ${outage}, never applies the failed write later, and works again once Redis is back`, async () => {
        const proxy = await startTcpFaultProxy(new URL(redis.url).host);
        const proxied = redisClientFromConfig(
          resolveConfig({ stores: { timeoutMs: 400 }, memory: { cache: { url: `redis://127.0.0.1:${proxy.port}` } } }, redis.config),
        );
        const store = createRedisMemoryStore(proxied, { keyPrefix });
        const key = { orgId: `acme-${outage}`, kind: "session", id: "ada@acme.org" } as const;
        const options = { userName: "ada@acme.org", ttlSeconds: 60 };
        try {
          await store.append(key, [contractTurn("before")], options);
          if (outage === "refused") proxy.setMode("down");
          else proxy.setMode("hang");
          await expect(store.append(key, [contractTurn("during")], options)).rejects.toMatchObject({ code: "store_unavailable" });
          await expect(store.load(key, 60)).rejects.toMatchObject({ code: "store_unavailable" });
          proxy.setMode("up");
          await new Promise((resolve) => proxied.once("ready", resolve));
          await store.append(key, [contractTurn("after")], options);
          expect(await store.load(key, 60)).toEqual({ ownerUser: "ada@acme.org", turns: [contractTurn("before"), contractTurn("after")] });
        } finally {
          proxied.disconnect();
          await proxy.close();
        }
      });
    }
  });
}
