/**
 * Rate limits shared across server instances: two set B servers (real HTTP on loopback), each
 * with its own Redis connection, count against one budget per user in Redis
 * (`DOCQA_TEST_REDIS_URL`, set by scripts/services/env.sh). Skipped with a message when Redis is
 * absent; fails in CI (`CI=true`). Its keys carry the run id and are deleted at the end.
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryJobStore, createRagService, mintAccessToken, type RagService } from "@docqa/core";
import { integrationServer, testName } from "@docqa/core/testing";
import { rateLimiterFromFlexible, resolveServerConfig } from "@docqa/http";
import { type ServerType, serve } from "@hono/node-server";
import { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { afterAll, describe, expect, it } from "vitest";
import { chatRoutes } from "./chat-routes.js";

const redis = await integrationServer("redis", "chat-api Redis rate-limit test");
const redisUrl = redis.url ?? "";
const redisAvailable = redis.available;
const secret = "redis-rate-limit-secret-0123456789-0123456789";

const clients: Redis[] = [];
const servers: ServerType[] = [];
const services: RagService[] = [];
const prefix = testName("docqa_test_rate_limit");
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(services.map((service) => service.close()));
  const cleanup = clients[0];
  if (cleanup) {
    const keys = await cleanup.keys(`${prefix}*`);
    if (keys.length > 0) await cleanup.del(...keys);
  }
  for (const client of clients) client.disconnect();
});

/** One server instance: its own service, Redis connection and limiters, on a loopback port. */
async function startInstance(): Promise<string> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  clients.push(client);
  const limiter = (points: number, duration: number) =>
    rateLimiterFromFlexible(new RateLimiterRedis({ storeClient: client, points, duration, keyPrefix: `${prefix}:${duration}` }));
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-chat-api-redis-"));
  const service = createRagService({
    config: { stores: { dataDir }, logging: { level: "silent" }, ingestion: { useRaptor: false } },
    embeddings: null,
    jobStore: createInMemoryJobStore(),
  });
  services.push(service);
  const app = chatRoutes(service, {
    server: resolveServerConfig({ jwt: { secret } }),
    rateLimit: { limiters: [limiter(100, 60), limiter(1000, 3600)] },
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.skipIf(!redisAvailable)("set B rate limits in Redis", () => {
  it("two instances share one budget per user: the 101st request within a minute, on either, gets 429", async () => {
    expect(redisAvailable, `Redis is unreachable at ${redisUrl}`).toBe(true);
    const instances = [await startInstance(), await startInstance()];
    const jwt = { secret, algorithm: "HS256" as const, issuer: "oauth-app" };
    const ann = await mintAccessToken(jwt, { email: "ann@example.org", orgId: "org-1" });
    const get = (base: string, token: string) => fetch(`${base}/api/ingest/no-such-job`, { headers: { Authorization: `Bearer ${token}` } });
    const started = Date.now();
    for (let index = 0; index < 100; index++) {
      const response = await get(instances[index % 2] as string, ann);
      expect(response.status).toBe(404);
      expect(response.headers.get("RateLimit-Remaining")).toBe(String(99 - index));
      await response.arrayBuffer();
    }
    for (const base of instances) {
      const limited = await get(base, ann);
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
      const retryAfter = Number(limited.headers.get("Retry-After"));
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(retryAfter).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - started) / 1000));
      expect(limited.headers.get("RateLimit-Limit")).toBe("100");
      expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
    }
    // Another user, and another organisation's user of the same e-mail, have budgets of their own.
    const bob = await mintAccessToken(jwt, { email: "bob@example.org", orgId: "org-1" });
    expect((await get(instances[1] as string, bob)).status).toBe(404);
    const annElsewhere = await mintAccessToken(jwt, { email: "ann@example.org", orgId: "org-2" });
    expect((await get(instances[0] as string, annElsewhere)).status).toBe(404);
    // The counters live in Redis with the window's expiry.
    const ttl = await (clients[0] as Redis).pttl(`${prefix}:60:org-1:ann@example.org`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
