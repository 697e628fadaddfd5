/**
 * Redis down or hung: every store call fails with `store_unavailable` within STORE_TIMEOUT_MS,
 * and the rate limiter fails open. Needs no Redis server: it uses an unused loopback port and a
 * local TCP server that accepts connections and never answers.
 */
import { createServer, type Server } from "node:net";
import { type DocqaError, type Logger, resolveConfig } from "@docqa/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "./create-rate-limiter.js";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { redisStoresFromConfig } from "./redis-stores-from-config.js";

const storeTimeoutMs = 1500;
const thread = { orgId: "acme", kind: "thread", id: "t" } as const;
const turn = { question: "q", answer: "a", createdAt: 0 };

/** A port nothing listens on: bound by the system, then released. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function recordingLogger(): Logger & { lines: { level: string; message: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Runs `call`, expecting `store_unavailable` from component `redis`; returns the milliseconds it took. */
async function timedFailure(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const error = (await call().then(
    () => undefined,
    (failure: unknown) => failure,
  )) as DocqaError | undefined;
  const elapsed = performance.now() - started;
  expect(error).toMatchObject({ name: "DocqaError", code: "store_unavailable", component: "redis" });
  expect(error?.message).toMatch(/^\[docqa\] \[redis\] Redis at redis:\/\/127\.0\.0\.1:\d+\/0 failed to /);
  expect(error?.message).not.toContain("hunter2");
  return elapsed;
}

for (const scenario of ["refused", "hung"] as const) {
  describe(`Redis ${scenario === "refused" ? "down (connection refused)" : "hung (connection accepted, never answered)"}`, () => {
    let port: number;
    let server: Server | undefined;
    beforeAll(async () => {
      if (scenario === "refused") port = await unusedPort();
      else {
        server = createServer((socket) => socket.on("error", () => {}));
        await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
        port = (server.address() as { port: number }).port;
      }
    });
    afterAll(async () => {
      server?.close();
    });

    it("fails every store call with store_unavailable within STORE_TIMEOUT_MS, logging one warning without the password", async () => {
      const logger = recordingLogger();
      const config = resolveConfig({
        memory: { cache: { host: "127.0.0.1", port, password: "hunter2" } },
        stores: { timeoutMs: storeTimeoutMs },
      });
      const stores = redisStoresFromConfig(config, logger);
      const calls: (() => Promise<unknown>)[] = [
        () => stores.jobStore.get("acme", "j1"),
        () =>
          stores.jobStore.save({
            jobId: "j1",
            orgId: "acme",
            state: "queued",
            createdAt: new Date(0).toISOString(),
            files: { total: 0, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
            documents: 0,
            chunks: 0,
            errors: [],
            warnings: [],
          }),
        () => stores.jobStore.unfinished(),
        () => stores.memoryStore.load(thread, 60),
        () => stores.memoryStore.append(thread, [turn], { userName: "ada@acme.org", ttlSeconds: 60 }),
        () => stores.memoryStore.deleteUser("acme", "ada@acme.org"),
      ];
      const elapsed = await Promise.all(calls.map(timedFailure));
      for (const milliseconds of elapsed) expect(milliseconds).toBeLessThan(storeTimeoutMs + 250);
      // A refused connection fails at once (the queued command is flushed after the second attempt).
      if (scenario === "refused") for (const milliseconds of elapsed) expect(milliseconds).toBeLessThan(750);
      // A second round fails as fast, while the client keeps reconnecting in the background.
      expect(await timedFailure(() => stores.memoryStore.load(thread, 60))).toBeLessThan(storeTimeoutMs + 250);
      await stores.close();
      let reconnections = 0;
      stores.client.on("reconnecting", () => {
        reconnections += 1;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(reconnections).toBe(0);
      expect(stores.client.status).not.toBe("ready");
      const warnings = logger.lines.filter((line) => line.level === "warn");
      if (scenario === "refused") {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]?.fields).toMatchObject({ component: "redis", target: `redis://127.0.0.1:${port}/0` });
      }
      expect(JSON.stringify(logger.lines)).not.toContain("hunter2");
    });

    it("lets requests through the rate limiter, counting in process memory, with one warning", async () => {
      const logger = recordingLogger();
      const client = redisClientFromConfig(
        resolveConfig({ memory: { cache: { host: "127.0.0.1", port } }, stores: { timeoutMs: storeTimeoutMs } }),
      );
      const limiter = createRateLimiter({ client, limits: [{ points: 2, durationSeconds: 60 }], timeoutMs: 300, logger });
      const started = performance.now();
      expect(await limiter.consume("ada")).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
      expect(performance.now() - started).toBeLessThan(1000);
      const again = performance.now();
      expect(await limiter.consume("ada")).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.consume("ada")).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
      expect(performance.now() - again).toBeLessThan(scenario === "refused" ? 1000 : 100);
      expect(logger.lines.filter((line) => line.level === "warn").map((line) => line.fields?.component)).toEqual(["rate-limit"]);
      client.disconnect();
    });
  });
}
