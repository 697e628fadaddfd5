import { mintAccessToken } from "@docqa/core";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bearerTokenUserKey, createMemoryRateLimiter, createRateLimiters, type RateLimiter, rateLimit } from "./rate-limit.js";

const start = new Date("2026-03-02T10:00:00.000Z");

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(start);
});
afterEach(() => {
  vi.useRealTimers();
});

function appWith(
  limiters: readonly RateLimiter[],
  key = (c: { req: { header(name: string): string | undefined } }) => c.req.header("X-User"),
) {
  const app = new Hono();
  app.use("*", rateLimit({ limiters, key }));
  app.get("/", (c) => c.text("ok"));
  app.get("/fails", () => {
    throw new Error("boom");
  });
  app.onError((_error, c) => c.text("error", 500));
  return app;
}

const as = (user: string) => ({ headers: { "X-User": user } });
const advance = (seconds: number) => vi.setSystemTime(new Date(Date.now() + seconds * 1000));

describe("rateLimit with the spec's budgets (100 per minute, 1,000 per hour)", () => {
  it("the 101st request within a minute gets 429 with Retry-After equal to the seconds left in the window", async () => {
    const app = appWith(createRateLimiters({ perMinute: 100, perHour: 1000 }));
    for (let index = 0; index < 100; index++) {
      if (index === 50) advance(15);
      const response = await app.request("/", as("ann"));
      expect(response.status).toBe(200);
      expect(response.headers.get("RateLimit-Remaining")).toBe(String(99 - index));
    }
    advance(5);
    const limited = await app.request("/", as("ann"));
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: { code: "rate_limited", message: "rate limit exceeded: 100 requests per 60 s; retry after 40 s" },
    });
    expect(Object.fromEntries([...limited.headers].filter(([name]) => name.startsWith("ratelimit") || name === "retry-after"))).toEqual({
      "retry-after": "40",
      "ratelimit-limit": "100",
      "ratelimit-remaining": "0",
      "ratelimit-reset": "40",
      "ratelimit-policy": "100;w=60, 1000;w=3600",
    });
    // Another user has a budget of their own.
    expect((await app.request("/", as("bob"))).status).toBe(200);
    // When the window ends the budget is restored.
    advance(39);
    expect((await app.request("/", as("ann"))).status).toBe(429);
    advance(1);
    const restored = await app.request("/", as("ann"));
    expect(restored.status).toBe(200);
    expect(restored.headers.get("RateLimit-Remaining")).toBe("99");
  });

  it("the hour's budget holds across minutes; requests denied by the minute window do not use it", async () => {
    const app = appWith(createRateLimiters({ perMinute: 3, perHour: 5 }));
    for (let index = 0; index < 3; index++) expect((await app.request("/", as("ann"))).status).toBe(200);
    const minute = await app.request("/", as("ann"));
    expect(minute.status).toBe(429);
    expect(minute.headers.get("Retry-After")).toBe("60");
    advance(60);
    const fourth = await app.request("/", as("ann"));
    expect(fourth.status).toBe(200);
    // The hour window is now the one closest to exhaustion: 1 left, resetting in 59 minutes.
    expect(fourth.headers.get("RateLimit-Limit")).toBe("5");
    expect(fourth.headers.get("RateLimit-Remaining")).toBe("1");
    expect(fourth.headers.get("RateLimit-Reset")).toBe("3540");
    expect(fourth.headers.get("RateLimit-Policy")).toBe("3;w=60, 5;w=3600");
    expect((await app.request("/", as("ann"))).status).toBe(200);
    const hour = await app.request("/", as("ann"));
    expect(hour.status).toBe(429);
    expect(hour.headers.get("Retry-After")).toBe("3540");
    expect(hour.headers.get("RateLimit-Limit")).toBe("5");
  });

  it("counts error responses too, and sets the headers on them", async () => {
    const app = appWith([createMemoryRateLimiter({ limit: 1, windowSeconds: 60 })]);
    const failed = await app.request("/fails", as("ann"));
    expect(failed.status).toBe(500);
    expect(failed.headers.get("RateLimit-Remaining")).toBe("0");
    expect((await app.request("/", as("ann"))).status).toBe(429);
  });
});

describe("rateLimit edge cases", () => {
  it("leaves requests without a key uncounted, and no limiters means no limit", async () => {
    const app = appWith(createRateLimiters({ perMinute: 1, perHour: 1 }));
    for (let index = 0; index < 3; index++) {
      const response = await app.request("/");
      expect(response.status).toBe(200);
      expect(response.headers.get("RateLimit-Limit")).toBeNull();
    }
    expect(createRateLimiters({ perMinute: 0, perHour: 0 })).toEqual([]);
  });

  it("lets requests through when the store fails (fail open), or rethrows when failOpen is false", async () => {
    const broken: RateLimiter = {
      consume: async () => {
        throw new Error("ECONNREFUSED 127.0.0.1:6379");
      },
    };
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
    const open = new Hono();
    open.use("*", rateLimit({ limiters: [broken], key: () => "ann", logger }));
    open.get("/", (c) => c.text("ok"));
    expect((await open.request("/")).status).toBe(200);
    expect(warnings).toEqual(["rate-limit store failed; the request is let through uncounted"]);
    const closed = new Hono();
    closed.use("*", rateLimit({ limiters: [broken], key: () => "ann", failOpen: false }));
    closed.get("/", (c) => c.text("ok"));
    closed.onError((error, c) => c.text(error.message, 500));
    const response = await closed.request("/");
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("ECONNREFUSED 127.0.0.1:6379");
  });

  it("uses the adapter's own 429 body", async () => {
    const app = new Hono();
    app.use(
      "*",
      rateLimit({
        limiters: [createMemoryRateLimiter({ limit: 1, windowSeconds: 10 })],
        key: () => "k",
        onLimited: (c) => c.json({ detail: "slow down", code: "rate_limited" }, 429),
      }),
    );
    app.get("/", (c) => c.text("ok"));
    await app.request("/");
    const limited = await app.request("/");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ detail: "slow down", code: "rate_limited" });
    expect(limited.headers.get("Retry-After")).toBe("10");
    expect(limited.headers.get("Content-Type")).toContain("application/json");
  });
});

describe("RateLimit-Policy", () => {
  it("lists the windows of limiters that do not declare theirs from their decisions", async () => {
    const custom: RateLimiter = {
      consume: async () => ({ allowed: true, limit: 5, remaining: 4, resetSeconds: 10, retryAfterSeconds: 0, windowSeconds: 10 }),
    };
    const response = await appWith([custom]).request("/", as("ann"));
    expect(response.headers.get("RateLimit-Policy")).toBe("5;w=10");
    expect(response.headers.get("RateLimit-Reset")).toBe("10");
  });
});

describe("bearerTokenUserKey", () => {
  it("keys a valid token by organisation and lower-cased e-mail, and leaves invalid or missing tokens uncounted", async () => {
    const jwt = { secret: "rate-limit-secret-0123456789-0123456789", algorithm: "HS256" as const, issuer: "oauth-app" };
    const key = bearerTokenUserKey(() => jwt);
    const app = new Hono();
    app.get("/", async (c) => c.text(String(await key(c))));
    const token = await mintAccessToken(jwt, { email: "Ann@Example.org", orgId: "org-1" });
    expect(await (await app.request("/", { headers: { Authorization: `Bearer ${token}` } })).text()).toBe("org-1:ann@example.org");
    expect(await (await app.request("/", { headers: { Authorization: "Bearer nope" } })).text()).toBe("undefined");
    expect(await (await app.request("/")).text()).toBe("undefined");
    const unconfigured = bearerTokenUserKey(() => ({ ...jwt, secret: undefined }));
    const other = new Hono();
    other.get("/", async (c) => c.text(String(await unconfigured(c))));
    expect(await (await other.request("/", { headers: { Authorization: `Bearer ${token}` } })).text()).toBe("undefined");
  });
});
