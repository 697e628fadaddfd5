/**
 * Request rate limits (the chat API's "set B": 100 requests a minute and 1000 an hour per user),
 * counted in Redis so every server instance shares the counters, or in process memory without
 * Redis. Built on rate-limiter-flexible's fixed windows, which start at a key's first request.
 * The limiter implements `@docqa/http`'s `RateLimiter` interface directly, so it plugs into
 * `chatRoutes(service, { rateLimit: { limiters: [limiter] } })` and `predictRoutes` as it is.
 *
 * The fall-back to per-process counters while Redis is down is this file's, not
 * rate-limiter-flexible's `insuranceLimiter` with `RLWrapperTimeouts` and `rejectIfRedisNotReady`:
 * the client is lazy (`lazyConnect`; every Redis call of this package connects it through
 * `whenRedisReady`), and with `rejectIfRedisNotReady` a client that has not connected yet would
 * never be connected, so every request would count locally; and an outage is logged once when it
 * starts and once when it ends, which the insurance limiter has no hook for. The counting itself
 * is rate-limiter-flexible's.
 */
import { DocqaError, type Logger, silentLogger } from "@docqa/core";
import type { RateLimitDecision, RateLimiter, RateLimitWindow } from "@docqa/http";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { whenRedisReady } from "./call-redis.js";
import { escapeKeyPart } from "./escape-key-part.js";
import { describeRedisTarget } from "./redis-client-from-config.js";
import { defaultKeyPrefix, redisKeyLayout } from "./redis-key-layout.js";

/**
 * One limit: at most `points` requests per window of `durationSeconds` (positive integers); the
 * window starts at the key's first request. The same type as `@docqa/http`'s `RateLimitWindow`.
 */
export type RateLimit = RateLimitWindow;

export type { RateLimitDecision, RateLimiter } from "@docqa/http";

/** The chat API's limits (set B): 100 requests per minute and 1000 per hour, per user. */
export const chatRateLimits: readonly RateLimit[] = [
  { points: 100, durationSeconds: 60 },
  { points: 1000, durationSeconds: 3600 },
];

/** Settings of {@link createRateLimiter}. */
export interface RateLimiterSettings {
  /**
   * Redis client whose counters every instance shares. Without one, counters live in this process
   * (right for a single instance). When Redis fails or answers slower than `timeoutMs`, the
   * limiter fails open to counters in this process — each instance then limits on its own, so a
   * cache outage neither takes the API down nor lifts the limits — and logs one warning per
   * outage. Until the client is connected again (it reconnects by itself), requests skip Redis.
   */
  client?: Redis | undefined;
  /** The limits; default {@link chatRateLimits}. Each must have integer `points` and `durationSeconds` of at least 1. */
  limits?: readonly RateLimit[] | undefined;
  /** Prefix of the Redis keys; default `docqa:` (keys `docqa:rate:100-per-60s:<key>`). */
  keyPrefix?: string | undefined;
  /** How long to wait for Redis before counting in process memory, in milliseconds; default 1000. */
  timeoutMs?: number | undefined;
  /** Where Redis failures are logged; default silent. */
  logger?: Logger | undefined;
}

interface Window {
  limit: RateLimit;
  shared: { limiter: RateLimiterRedis; client: Redis } | undefined;
  local: RateLimiterMemory;
}

interface WindowResult {
  limit: RateLimit;
  allowed: boolean;
  remaining: number;
  msBeforeNext: number;
}

/**
 * Creates a rate limiter (`@docqa/http`'s `RateLimiter`). `consume(key)` counts one request of
 * `key` (for example an organisation and user name, combined unambiguously) in every window, even
 * when refused, and reports, when refused, the exceeded window that resets last; when allowed,
 * the window with the fewest requests left (on a tie, the one resetting last). Decisions carry
 * `windowSeconds`, and the limiter declares its `limits`, so `RateLimit-Policy` lists every window.
 * It never throws for a store failure (see {@link RateLimiterSettings.client}).
 *
 * With a Redis `client`, counters are shared through Redis
 * (rate-limiter-flexible's `RateLimiterRedis`, one atomic Lua increment per window); without one,
 * they are kept in process memory (`RateLimiterMemory`).
 *
 * Failure behaviour: fail open to per-process counters, with a warning log once per outage (see
 * {@link RateLimiterSettings.client}).
 *
 * @throws {DocqaError} `config_invalid` when `limits` is empty, holds a non-positive or
 *   fractional value, or holds the same limit twice.
 * @example
 * ```ts
 * const limiter = createRateLimiter({ client, limits: chatRateLimits });
 * const decision = await limiter.consume(JSON.stringify([orgId, userName]));
 * if (!decision.allowed) return tooManyRequests(decision.retryAfterSeconds);
 * ```
 */
export function createRateLimiter(settings: RateLimiterSettings = {}): RateLimiter {
  const limits = settings.limits ?? chatRateLimits;
  const keys = redisKeyLayout(settings.keyPrefix ?? defaultKeyPrefix);
  const timeoutMs = settings.timeoutMs ?? 1000;
  const logger = settings.logger ?? silentLogger;
  const { client } = settings;
  if (limits.length === 0) throw new DocqaError("config_invalid", "rate limits must not be empty", { component: "rate-limit" });
  const names = new Set<string>();
  for (const limit of limits) {
    if (!Number.isInteger(limit.points) || limit.points < 1 || !Number.isInteger(limit.durationSeconds) || limit.durationSeconds < 1) {
      throw new DocqaError(
        "config_invalid",
        `rate limit ${limit.points} per ${limit.durationSeconds} s: points and durationSeconds must be integers of at least 1`,
        { component: "rate-limit" },
      );
    }
    const name = keys.rateLimitWindow(limit.points, limit.durationSeconds);
    if (names.has(name)) {
      throw new DocqaError("config_invalid", `rate limit ${limit.points} per ${limit.durationSeconds} s is given twice`, {
        component: "rate-limit",
      });
    }
    names.add(name);
  }
  const windows: Window[] = limits.map((limit) => {
    const options = {
      points: limit.points,
      duration: limit.durationSeconds,
      keyPrefix: keys.rateLimitWindow(limit.points, limit.durationSeconds),
    };
    return {
      limit,
      shared: client ? { limiter: new RateLimiterRedis({ ...options, storeClient: client }), client } : undefined,
      local: new RateLimiterMemory(options),
    };
  });

  let degraded = false;
  const fellBack = (error: unknown) => {
    if (degraded) return;
    degraded = true;
    logger.warn("rate-limit counters unavailable in Redis; counting in this process until it is back", {
      component: "rate-limit",
      target: client ? describeRedisTarget(client.options) : undefined,
      error: error instanceof Error ? error.message : String(error),
    });
  };

  const consumeWindow = async (window: Window, key: string): Promise<WindowResult> => {
    const outcome = (response: RateLimiterRes, allowed: boolean): WindowResult => ({
      limit: window.limit,
      allowed,
      remaining: allowed ? response.remainingPoints : 0,
      msBeforeNext: Math.max(0, response.msBeforeNext),
    });
    const settle = (attempt: Promise<RateLimiterRes>) =>
      attempt.then(
        (response) => outcome(response, true),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return outcome(rejection, false);
          throw rejection;
        },
      );
    // During an outage, skip Redis until the client has reconnected by itself, so requests do not
    // each wait for the timeout.
    if (window.shared && !(degraded && client?.status !== "ready")) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const shared = window.shared;
        const attempt = whenRedisReady(shared.client, timeoutMs).then(() => settle(shared.limiter.consume(key)));
        attempt.catch(() => {});
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
        });
        const result = await Promise.race([attempt, deadline]);
        if (degraded) {
          degraded = false;
          logger.info("rate-limit counters shared through Redis again", { component: "rate-limit" });
        }
        return result;
      } catch (error) {
        fellBack(error);
      } finally {
        clearTimeout(timer);
      }
    }
    return settle(window.local.consume(key));
  };

  return {
    limits: limits.map((limit) => ({ ...limit })),
    async consume(key: string): Promise<RateLimitDecision> {
      const counterKey = escapeKeyPart(key);
      const results = await Promise.all(windows.map((window) => consumeWindow(window, counterKey)));
      const refused = results.filter((result) => !result.allowed);
      const reported = (refused.length > 0 ? refused : results).reduce((tightest, result) => {
        if (refused.length > 0) return result.msBeforeNext > tightest.msBeforeNext ? result : tightest;
        if (result.remaining !== tightest.remaining) return result.remaining < tightest.remaining ? result : tightest;
        return result.msBeforeNext > tightest.msBeforeNext ? result : tightest;
      });
      const resetSeconds = Math.max(1, Math.ceil(reported.msBeforeNext / 1000));
      return {
        allowed: refused.length === 0,
        limit: reported.limit.points,
        remaining: reported.remaining,
        resetSeconds,
        retryAfterSeconds: refused.length > 0 ? resetSeconds : 0,
        windowSeconds: reported.limit.durationSeconds,
      };
    },
  };
}
