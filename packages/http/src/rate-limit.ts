/**
 * Per-user rate limits for docqa's Hono adapters (spec "Limits": set B allows 100 requests per
 * minute and 1,000 per hour per user; excess gives 429). Counting is behind a small
 * {@link RateLimiter} interface: in memory by default (one process), or in a shared store such as
 * Redis so that every server instance draws on the same budget. Responses carry the IETF
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy` fields
 * (draft-ietf-httpapi-ratelimit-headers-07, sections 4 and 5) and, on 429, `Retry-After`
 * (RFC 9110, section 10.2.3).
 */
import { type JwtSettings, type Logger, normalizeAccessName, silentLogger, verifyAccessToken } from "@docqa/core";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { AuthVariables } from "./bearer-auth.js";

/** The outcome of counting one request in one window. */
export interface RateLimitDecision {
  /** Whether the request is within the budget. */
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one (0 when denied). */
  remaining: number;
  /** Seconds until the current window ends and the budget is restored (whole seconds, rounded up). */
  resetSeconds: number;
  /** Seconds to wait before retrying: `resetSeconds` when denied, else 0. */
  retryAfterSeconds: number;
  /** Length of the window in seconds, for `RateLimit-Policy`; optional for limiters that cannot tell. */
  windowSeconds?: number | undefined;
}

/** One window of a limiter: at most `points` requests per `durationSeconds`. */
export interface RateLimitWindow {
  /** Requests allowed per window; a positive integer. */
  points: number;
  /** Window length in seconds; a positive integer. */
  durationSeconds: number;
}

/**
 * The one rate-limiter interface of docqa: counts requests per key in one or more fixed windows.
 * Implementations: {@link createMemoryRateLimiter} (one window, one process),
 * {@link rateLimiterFromFlexible} over any `rate-limiter-flexible` limiter, and `@docqa/redis`'s
 * `createRateLimiter` (every window in Redis, shared by all instances, falling back to
 * per-process counters while Redis is down).
 */
export interface RateLimiter {
  /**
   * The windows this limiter counts, for the `RateLimit-Policy` field; optional. Without it the
   * field lists the windows of the decisions made.
   */
  readonly limits?: readonly RateLimitWindow[] | undefined;
  /**
   * Counts one request for `key` and says whether it is allowed. A limiter of several windows
   * reports the one that decided: when refused, an exceeded window; when allowed, the window
   * closest to exhaustion.
   *
   * @throws {Error} when the counter store fails (the middleware then lets the request through
   *   and logs a warning; see {@link RateLimitOptions.failOpen}). A limiter may instead handle
   *   store failures itself, as `@docqa/redis`'s does.
   */
  consume(key: string): Promise<RateLimitDecision>;
}

/** Budgets per user. */
export interface RateLimitPolicy {
  /** Requests per user per minute; default 100 (spec "Limits"). 0 disables the minute window. */
  perMinute: number;
  /** Requests per user per hour; default 1000 (spec "Limits"). 0 disables the hour window. */
  perHour: number;
}

/** The spec's set B budgets: 100 requests per minute and 1,000 per hour per user. */
export const defaultRateLimitPolicy: Readonly<RateLimitPolicy> = { perMinute: 100, perHour: 1000 };

/**
 * How an app limits its authenticated routes: a {@link RateLimitPolicy} counted in this process,
 * `{ limiters }` for counters of your own (for example in Redis, shared by every instance), or
 * `false` for no limit.
 */
export type RateLimitSetting = RateLimitPolicy | { limiters: readonly RateLimiter[] } | false;

/** The limiters of `setting`: none for `false`, in-memory ones for a policy, else the given ones. */
export function rateLimitersFor(setting: RateLimitSetting): readonly RateLimiter[] {
  if (setting === false) return [];
  return "limiters" in setting ? setting.limiters : createRateLimiters(setting);
}

/**
 * The message of a 429, for example `rate limit exceeded: 100 requests per minute per user;
 * retry after 41 s` (`minute` and `hour` for windows of 60 and 3,600 s, else `<n> s`).
 */
export function rateLimitedMessage(decision: RateLimitDecision): string {
  const window =
    decision.windowSeconds === 60
      ? "minute"
      : decision.windowSeconds === 3600
        ? "hour"
        : decision.windowSeconds === undefined
          ? "window"
          : `${decision.windowSeconds} s`;
  const requests = decision.limit === 1 ? "request" : "requests";
  return `rate limit exceeded: ${decision.limit} ${requests} per ${window} per user; retry after ${decision.retryAfterSeconds} s`;
}

/** Settings of {@link createMemoryRateLimiter}. */
export interface MemoryRateLimiterSettings {
  /** Requests allowed per window (at least 1). */
  limit: number;
  /** Window length in seconds. */
  windowSeconds: number;
  /** Prefix of the keys, so that several limiters can share a store; default `docqa`. */
  keyPrefix?: string | undefined;
}

/**
 * A fixed-window limiter kept in this process (`rate-limiter-flexible`'s `RateLimiterMemory`):
 * the window of a key starts with its first request. Budgets are per process; use a shared store
 * when several instances serve the same users.
 */
export function createMemoryRateLimiter(settings: MemoryRateLimiterSettings): RateLimiter {
  return rateLimiterFromFlexible(
    new RateLimiterMemory({
      points: settings.limit,
      duration: settings.windowSeconds,
      keyPrefix: `${settings.keyPrefix ?? "docqa"}:${settings.windowSeconds}s`,
    }),
  );
}

/**
 * Adapts a `rate-limiter-flexible` limiter (`RateLimiterMemory`, `RateLimiterRedis` with or
 * without an `insuranceLimiter`, ...) to {@link RateLimiter}. A rejection carrying a
 * `RateLimiterRes` is a denial; any other rejection (the store failed) is rethrown.
 *
 * @example
 * ```ts
 * const perMinute = rateLimiterFromFlexible(new RateLimiterRedis({ storeClient: redis, points: 100, duration: 60, keyPrefix: "docqa:minute" }));
 * ```
 */
export function rateLimiterFromFlexible(limiter: RateLimiterAbstract): RateLimiter {
  const decision = (result: RateLimiterRes, allowed: boolean): RateLimitDecision => {
    const resetSeconds = Math.max(1, Math.ceil(Math.max(0, result.msBeforeNext) / 1000));
    return {
      allowed,
      limit: limiter.points,
      remaining: allowed ? Math.max(0, result.remainingPoints) : 0,
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : resetSeconds,
      windowSeconds: limiter.duration,
    };
  };
  return {
    limits: [{ points: limiter.points, durationSeconds: limiter.duration }],
    async consume(key) {
      try {
        return decision(await limiter.consume(key), true);
      } catch (error) {
        if (error instanceof RateLimiterRes) return decision(error, false);
        throw error;
      }
    },
  };
}

/**
 * One limiter per non-zero window of `policy`, made by `create` (default
 * {@link createMemoryRateLimiter}); pass a factory over a shared store to share budgets.
 */
export function createRateLimiters(
  policy: RateLimitPolicy = defaultRateLimitPolicy,
  create: (settings: MemoryRateLimiterSettings) => RateLimiter = createMemoryRateLimiter,
): RateLimiter[] {
  const limiters: RateLimiter[] = [];
  if (policy.perMinute > 0) limiters.push(create({ limit: policy.perMinute, windowSeconds: 60 }));
  if (policy.perHour > 0) limiters.push(create({ limit: policy.perHour, windowSeconds: 3600 }));
  return limiters;
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** The windows, checked in order; a request is allowed only when every window allows it. */
  limiters: readonly RateLimiter[];
  /**
   * The key a request is counted under, or undefined to leave it uncounted. Default
   * {@link authenticatedUserKey}: the organisation and user of `c.var.auth`, so the middleware goes
   * after `bearerAuth`.
   */
  key?: ((c: Context) => string | undefined | Promise<string | undefined>) | undefined;
  /**
   * The 429 response in the adapter's error shape. The middleware adds `Retry-After` and the
   * `RateLimit-*` fields. Default: `{"error": {"code": "rate_limited", "message": ...}}`.
   */
  onLimited?: ((c: Context, decision: RateLimitDecision) => Response | Promise<Response>) | undefined;
  /**
   * When the counter store fails: true (default) lets the request through and logs a warning
   * (availability first); false rethrows the error, which the adapter answers with 500.
   */
  failOpen?: boolean | undefined;
  logger?: Logger | undefined;
}

/** The default key: `<org_id>:<e-mail>` of the verified token (normalised, `normalizeAccessName`), or undefined before authentication. */
export function authenticatedUserKey(c: Context): string | undefined {
  const auth = (c as Context<{ Variables: Partial<AuthVariables> }>).get("auth");
  return auth ? `${auth.orgId}:${normalizeAccessName(auth.principal.userName)}` : undefined;
}

/**
 * A key function that verifies the bearer token itself, for wrapping an app whose own routes
 * authenticate (the middleware then runs before them). Requests without a valid token are left
 * uncounted; the wrapped app answers them with 401 or 503.
 */
export function bearerTokenUserKey(settings: () => JwtSettings) {
  return async (c: Context): Promise<string | undefined> => {
    const jwt = settings();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "");
    if (!jwt.secret || !match) return undefined;
    try {
      const claims = await verifyAccessToken(match[1] as string, jwt);
      return `${claims.org_id}:${normalizeAccessName(claims.email)}`;
    } catch {
      return undefined;
    }
  };
}

/**
 * The `RateLimit-Policy` value, for example `100;w=60, 1000;w=3600`: the windows the limiters
 * declare, else those of the decisions made.
 */
function policyHeader(limiters: readonly RateLimiter[], decisions: readonly RateLimitDecision[]): string | undefined {
  const windows = limiters.every((limiter) => limiter.limits !== undefined)
    ? limiters.flatMap((limiter) => (limiter.limits ?? []).map((limit) => [limit.points, limit.durationSeconds] as const))
    : decisions
        .filter((decision) => decision.windowSeconds !== undefined)
        .map((decision) => [decision.limit, decision.windowSeconds] as const);
  return windows.length === 0 ? undefined : windows.map(([points, seconds]) => `${points};w=${seconds}`).join(", ");
}

/**
 * The decision whose window is closest to exhaustion, which the `RateLimit-*` fields describe
 * (draft-ietf-httpapi-ratelimit-headers-07, section 5.1: "the one closest to reaching its limit"):
 * a denial first, else the fewest remaining, ties broken by the later reset.
 */
function governing(decisions: readonly RateLimitDecision[]): RateLimitDecision {
  return decisions.reduce((best, candidate) => {
    if (best.allowed !== candidate.allowed) return candidate.allowed ? best : candidate;
    if (candidate.remaining !== best.remaining) return candidate.remaining < best.remaining ? candidate : best;
    return candidate.resetSeconds > best.resetSeconds ? candidate : best;
  });
}

const defaultLimitedResponse = (c: Context, decision: RateLimitDecision): Response =>
  c.json(
    {
      error: {
        code: "rate_limited",
        message: `rate limit exceeded: ${decision.limit} requests per ${decision.windowSeconds ?? "?"} s; retry after ${decision.retryAfterSeconds} s`,
      },
    },
    429,
  );

/**
 * Middleware counting each request under its key in every window of `options.limiters`. Windows
 * are consulted in order and the first denial stops (a request denied by the minute window does
 * not use the hour's budget). Every counted response carries `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` (delta seconds) and `RateLimit-Policy`; a denied one
 * is answered by `options.onLimited` with status 429 and `Retry-After` (seconds).
 *
 * @example
 * ```ts
 * app.use("/api/*", bearerAuth(() => server.jwt), rateLimit({ limiters: createRateLimiters({ perMinute: 100, perHour: 1000 }) }));
 * ```
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const keyOf = options.key ?? authenticatedUserKey;
  const onLimited = options.onLimited ?? defaultLimitedResponse;
  const failOpen = options.failOpen ?? true;
  const logger = options.logger ?? silentLogger;
  return createMiddleware(async (c, next) => {
    const key = options.limiters.length === 0 ? undefined : await keyOf(c);
    if (key === undefined) return next();
    const decisions: RateLimitDecision[] = [];
    try {
      for (const limiter of options.limiters) {
        const decision = await limiter.consume(key);
        decisions.push(decision);
        if (!decision.allowed) break;
      }
    } catch (error) {
      if (!failOpen) throw error;
      logger.warn("rate-limit store failed; the request is let through uncounted", {
        component: "rate-limit",
        error: (error as Error).message,
      });
      return next();
    }
    const decision = governing(decisions);
    const headers: Record<string, string> = {
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
    };
    const policy = policyHeader(options.limiters, decisions);
    if (policy) headers["RateLimit-Policy"] = policy;
    if (!decision.allowed) {
      const response = await onLimited(c, decision);
      const limited = new Response(response.body, { status: 429, headers: response.headers });
      for (const [name, value] of Object.entries(headers)) limited.headers.set(name, value);
      limited.headers.set("Retry-After", String(decision.retryAfterSeconds));
      return limited;
    }
    // Set before the handler runs, so responses built by the handler or the error handler carry them.
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  });
}
