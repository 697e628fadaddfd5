/**
 * `docqa forget` against Redis (`DOCQA_TEST_REDIS_URL`): deletes the user's session and threads
 * written by a server, and nobody else's. Skipped with a message when Redis is unreachable;
 * fails in CI (`CI=true`).
 */
import { createRagService, resolveConfig } from "@docqa/core";
import { sessionKey, threadKey } from "@docqa/core/stores";
import { integrationServer, testName } from "@docqa/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createProgram } from "../create-program.js";

const redis = await integrationServer("redis", "docqa forget test");
const redisUrl = redis.url ?? "";
const available = redis.available;

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe.skipIf(!available)("docqa forget", () => {
  it("deletes one user's conversation memory in Redis, and only theirs", async () => {
    const orgId = testName("org");
    const config = resolveConfig({ memory: { cache: { url: redisUrl } }, logging: { level: "silent" } });
    // What a server stores: a thread and the session of each user.
    const { memoryStore, close } = await (await import("@docqa/redis")).redisStoresFromConfig(config, {
      debug() {},
      info() {},
      warn() {},
      error() {},
    });
    const turn = { question: "q", answer: "a", createdAt: Date.now() };
    for (const user of ["ann@x.org", "bob@x.org"]) {
      await memoryStore.append(threadKey(orgId, user, "t1"), [turn], { userName: user, ttlSeconds: 60 });
      await memoryStore.append(sessionKey(orgId, user), [turn], { userName: user, ttlSeconds: 60 });
    }
    process.env.CACHE_URL = redisUrl;
    process.env.LOG_LEVEL = "silent";
    const output: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => output.push(chunk) > 0) as typeof process.stdout.write;
    try {
      await createProgram().parseAsync(["node", "docqa", "forget", "--org", orgId, "--user", "Ann@X.org"]);
    } finally {
      process.stdout.write = write;
    }
    expect(output.join("")).toBe(`deleted 2 conversations of ann@x.org in ${orgId}\n`);
    expect(await memoryStore.load(threadKey(orgId, "ann@x.org", "t1"), 60)).toBeUndefined();
    expect(await memoryStore.load(threadKey(orgId, "bob@x.org", "t1"), 60)).toBeDefined();
    const cleanup = createRagService({ config });
    await cleanup.forgetUser({ orgId, principal: { userName: "bob@x.org", roles: [], groups: [] } });
    await cleanup.close();
    await close();
  });
});
