import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { chatRateLimits, createRateLimiter } from "./create-rate-limiter.js";

describe("createRateLimiter in process memory", () => {
  it("allows the limit, then refuses with Retry-After, reporting the tightest window", async () => {
    const limiter = createRateLimiter({
      limits: [
        { points: 3, durationSeconds: 60 },
        { points: 5, durationSeconds: 3600 },
      ],
    });
    const first = await limiter.consume("acme/ada");
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60, retryAfterSeconds: 0, windowSeconds: 60 });
    await limiter.consume("acme/ada");
    expect(await limiter.consume("acme/ada")).toMatchObject({ allowed: true, limit: 3, remaining: 0, windowSeconds: 60 });
    const refused = await limiter.consume("acme/ada");
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 60, retryAfterSeconds: 60, windowSeconds: 60 });
    expect(await limiter.consume("acme/bob")).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
  });

  it("reports the window that resets last when several are exceeded", async () => {
    const limiter = createRateLimiter({
      limits: [
        { points: 2, durationSeconds: 60 },
        { points: 1, durationSeconds: 3600 },
      ],
    });
    expect(await limiter.consume("k")).toMatchObject({ allowed: true, limit: 1, remaining: 0, resetSeconds: 3600, windowSeconds: 3600 });
    expect(await limiter.consume("k")).toMatchObject({ allowed: false, limit: 1, retryAfterSeconds: 3600, windowSeconds: 3600 });
    expect(await limiter.consume("k")).toMatchObject({ allowed: false, limit: 1, retryAfterSeconds: 3600, windowSeconds: 3600 });
  });

  it("on equal remaining requests, reports the window that resets last", async () => {
    const limiter = createRateLimiter({
      limits: [
        { points: 10, durationSeconds: 1 },
        { points: 10, durationSeconds: 60 },
      ],
    });
    expect(await limiter.consume("k")).toMatchObject({ limit: 10, remaining: 9, resetSeconds: 60, windowSeconds: 60 });
  });

  it("defaults to the chat API's set B, 100 a minute and 1000 an hour", async () => {
    expect(chatRateLimits).toEqual([
      { points: 100, durationSeconds: 60 },
      { points: 1000, durationSeconds: 3600 },
    ]);
    const limiter = createRateLimiter();
    expect(limiter.limits).toEqual(chatRateLimits);
    expect(await limiter.consume("k")).toMatchObject({ allowed: true, limit: 100, remaining: 99, resetSeconds: 60 });
  });

  it("rejects empty, non-integer, non-positive and repeated limits", () => {
    for (const limits of [
      [],
      [{ points: 0, durationSeconds: 1 }],
      [{ points: 1.5, durationSeconds: 1 }],
      [{ points: 1, durationSeconds: -1 }],
    ]) {
      expect(() => createRateLimiter({ limits })).toThrow(DocqaError);
    }
    expect(() =>
      createRateLimiter({
        limits: [
          { points: 1, durationSeconds: 1 },
          { points: 1, durationSeconds: 1 },
        ],
      }),
    ).toThrow(/given twice/);
  });
});
