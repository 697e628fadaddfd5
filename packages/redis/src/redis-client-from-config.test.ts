import { type DocqaConfig, DocqaError, resolveConfig } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { describeRedisTarget, redisClientFromConfig, redisOptionsFromConfig } from "./redis-client-from-config.js";

const config = (cache: Partial<DocqaConfig["memory"]["cache"]>) => resolveConfig({ memory: { cache }, stores: { timeoutMs: 1234 } });

const configError = (run: () => unknown): DocqaError => {
  try {
    run();
  } catch (error) {
    if (DocqaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a DocqaError");
};

describe("redisOptionsFromConfig", () => {
  it("reads CACHE_URL with credentials, port, database and TLS, and bounds every wait by STORE_TIMEOUT_MS", () => {
    const options = redisOptionsFromConfig(config({ url: "rediss://user:p%40ss@cache.example.org:6380/3" }));
    expect(options).toMatchObject({
      host: "cache.example.org",
      port: 6380,
      db: 3,
      username: "user",
      password: "p@ss",
      tls: {},
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1234,
      commandTimeout: 1234,
      socketTimeout: 1234,
      connectionName: "docqa",
    });
    expect(options.retryStrategy?.(1)).toBe(100);
    expect(options.retryStrategy?.(1000)).toBe(2000);
  });

  it("fills a URL's missing password and database from CACHE_PASSWORD and CACHE_DB, and turns TLS on with CACHE_SSL", () => {
    const options = redisOptionsFromConfig(config({ url: "redis://[::1]", password: "secret", db: 2, ssl: true }));
    expect(options).toMatchObject({ host: "::1", port: 6379, db: 2, password: "secret", tls: {} });
    expect(options.username).toBeUndefined();
    expect(redisOptionsFromConfig(config({ url: "redis://h:1/0", db: 5 })).db).toBe(0);
    expect(redisOptionsFromConfig(config({ url: "redis://h:1" })).tls).toBeUndefined();
  });

  it("uses CACHE_HOST, CACHE_PORT, CACHE_DB, CACHE_PASSWORD and CACHE_SSL without a URL", () => {
    expect(redisOptionsFromConfig(config({ host: "redis", port: 6390, db: 1, password: "pw", ssl: false }))).toMatchObject({
      host: "redis",
      port: 6390,
      db: 1,
      password: "pw",
      tls: undefined,
    });
    expect(redisOptionsFromConfig(config({ host: "redis", ssl: true })).tls).toEqual({});
  });

  it("rejects a missing address and a malformed URL without showing the password", () => {
    expect(configError(() => redisOptionsFromConfig(config({})))).toMatchObject({ code: "config_invalid", component: "redis" });
    for (const url of ["http://user:hunter2@host", "redis://user:hunter2@host/x", "not a url hunter2"]) {
      const error = configError(() => redisOptionsFromConfig(config({ url })));
      expect(error.code).toBe("config_invalid");
      expect(error.message).not.toContain("hunter2");
      expect(String((error.cause as Error | undefined)?.message ?? "")).not.toContain("hunter2");
    }
  });
});

describe("describeRedisTarget", () => {
  it("shows scheme, host, port and database, never credentials", () => {
    const options = redisOptionsFromConfig(config({ url: "rediss://user:hunter2@cache:6380/3" }));
    expect(describeRedisTarget(options)).toBe("rediss://cache:6380/3");
    expect(describeRedisTarget({ host: "::1", port: 6379, db: 0 })).toBe("redis://[::1]:6379/0");
  });
});

describe("redisClientFromConfig", () => {
  it("creates a lazy client that has not connected", () => {
    const client = redisClientFromConfig(config({ host: "127.0.0.1", port: 1 }));
    expect(client.status).toBe("wait");
    client.disconnect();
  });
});
