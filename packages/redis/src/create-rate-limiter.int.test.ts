import { randomUUID } from "node:crypto";
import { type Logger, resolveConfig } from "@docqa/core";
import { startTcpFaultProxy } from "@docqa/core/testing";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "./create-rate-limiter.js";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { connectTestRedis, describeSkippedWithoutRedis } from "./testing/connect-test-redis.js";

const redis = await connectTestRedis();

if (redis.unavailable) {
  describeSkippedWithoutRedis("rate limiter on Redis", redis);
} else {
  describe("rate limiter on Redis", () => {
    let first: Redis;
    let second: Redis;
    const keyPrefix = redis.newKeyPrefix();
    beforeAll(() => {
      first = redisClientFromConfig(redis.config);
      second = redisClientFromConfig(redis.config);
    });
    afterAll(async () => {
      await redis.deleteKeys(keyPrefix);
      await first.quit();
      await second.quit();
    });

    it("shares counters between instances through Redis, per window, with the documented keys", async () => {
      const limits = [
        { points: 3, durationSeconds: 60 },
        { points: 4, durationSeconds: 3600 },
      ];
      const one = createRateLimiter({ client: first, limits, keyPrefix });
      const two = createRateLimiter({ client: second, limits, keyPrefix });
      const user = `acme:ada-${randomUUID()}`;
      expect(await one.consume(user)).toEqual({
        allowed: true,
        limit: 3,
        remaining: 2,
        resetSeconds: 60,
        retryAfterSeconds: 0,
        windowSeconds: 60,
      });
      expect(await two.consume(user)).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
      expect(await one.consume(user)).toMatchObject({ allowed: true, limit: 3, remaining: 0 });
      expect(await two.consume(user)).toEqual({
        allowed: false,
        limit: 3,
        remaining: 0,
        resetSeconds: 60,
        retryAfterSeconds: 60,
        windowSeconds: 60,
      });
      expect(await one.consume(`${user}-other`)).toMatchObject({ allowed: true, remaining: 2 });

      const escaped = user.replace(":", "%003a");
      expect(await first.get(`${keyPrefix}rate:3-per-60s:${escaped}`)).toBe("4");
      expect(await first.get(`${keyPrefix}rate:4-per-3600s:${escaped}`)).toBe("4");
      const ttl = await first.pttl(`${keyPrefix}rate:4-per-3600s:${escaped}`);
      expect(ttl).toBeGreaterThan(3_590_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
    });

    it("resets when the window has passed", async () => {
      const limiter = createRateLimiter({ client: first, limits: [{ points: 1, durationSeconds: 1 }], keyPrefix });
      const user = `ada-${randomUUID()}`;
      expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 1 });
      expect(await limiter.consume(user)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it("falls back to process memory while Redis is unreachable, and shares counters again once it is back", async () => {
      const proxy = await startTcpFaultProxy(new URL(redis.url).host);
      const lines: string[] = [];
      const logger: Logger = {
        debug: () => {},
        info: (message) => lines.push(`info ${message}`),
        warn: (message) => lines.push(`warn ${message}`),
        error: (message) => lines.push(`error ${message}`),
      };
      const config = resolveConfig({ memory: { cache: { url: `redis://127.0.0.1:${proxy.port}` } } }, redis.config);
      const client = redisClientFromConfig(config);
      const limiter = createRateLimiter({ client, limits: [{ points: 3, durationSeconds: 60 }], keyPrefix, logger, timeoutMs: 500 });
      const user = `ada-${randomUUID()}`;
      const counter = `${keyPrefix}rate:3-per-60s:${user}`;
      try {
        expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 2 });
        expect(await first.get(counter)).toBe("1");

        proxy.setMode("down");
        const started = performance.now();
        expect(await limiter.consume(user)).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
        expect(performance.now() - started).toBeLessThan(600);
        expect(lines).toEqual(["warn rate-limit counters unavailable in Redis; counting in this process until it is back"]);
        const skipping = performance.now();
        expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 1 });
        expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 0 });
        expect(await limiter.consume(user)).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
        expect(performance.now() - skipping).toBeLessThan(50);
        expect(await first.get(counter)).toBe("1");

        proxy.setMode("up");
        await new Promise((resolve) => client.once("ready", resolve));
        expect(await limiter.consume(user)).toMatchObject({ allowed: true, remaining: 1 });
        expect(await first.get(counter)).toBe("2");
        expect(lines.at(-1)).toBe("info rate-limit counters shared through Redis again");
      } finally {
        client.disconnect();
        await proxy.close();
      }
    });
  });
}
