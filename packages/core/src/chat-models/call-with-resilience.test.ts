import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { callWithResilience, defaultResiliencePolicy, type ResiliencePolicy, resiliencePolicy } from "./call-with-resilience.js";
import { classifyModelError, parseRetryAfter } from "./classify-model-error.js";

const policy: ResiliencePolicy = { timeoutMs: 1_000, maxRetries: 2, baseDelayMs: 40, maxDelayMs: 100, maxTotalMs: 5_000 };
const options = { policy, component: "openai", model: "gpt-test", random: () => 0.5 };

function httpError(status: number, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(`${status} scripted`), { status, headers: new Headers(headers), ...extra });
}

/** An operation failing with `failures` in turn, then returning "ok". */
function scripted(failures: unknown[]) {
  const calls: number[] = [];
  const started = performance.now();
  const operation = async () => {
    calls.push(Math.round(performance.now() - started));
    const failure = failures.shift();
    if (failure !== undefined) throw failure;
    return "ok";
  };
  return { operation, calls };
}

describe("classifyModelError", () => {
  it("classifies statuses, retry delays, timeouts, aborts and connection failures", () => {
    expect(classifyModelError(httpError(429, { "retry-after": "2" }))).toEqual({
      kind: "rate_limited",
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
      description: "HTTP 429: 429 scripted",
    });
    expect(classifyModelError(httpError(429, { "retry-after-ms": "150", "retry-after": "9" })).retryAfterMs).toBe(150);
    expect(classifyModelError(httpError(429, {}, { code: "insufficient_quota" })).retryable).toBe(false);
    expect(classifyModelError(httpError(503)).kind).toBe("server_error");
    expect(classifyModelError(httpError(408)).retryable).toBe(true);
    expect(classifyModelError(httpError(404))).toMatchObject({ kind: "rejected", retryable: false });
    expect(classifyModelError(Object.assign(new Error("model not found"), { status_code: 404 })).kind).toBe("rejected");
    expect(classifyModelError(Object.assign(new Error("Request timed out."), { name: "TimeoutError" })).kind).toBe("timeout");
    expect(classifyModelError(Object.assign(new Error("aborted"), { name: "AbortError" })).kind).toBe("aborted");
    const refused = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
    expect(classifyModelError(refused)).toEqual({ kind: "unreachable", retryable: true, description: "fetch failed (ECONNREFUSED)" });
    expect(classifyModelError(new TypeError("x is not a function"))).toMatchObject({ kind: "unknown", retryable: false });
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:04 GMT", now)).toBe(4000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("callWithResilience", () => {
  it("returns the first success without retrying", async () => {
    const { operation, calls } = scripted([]);
    expect(await callWithResilience(operation, options)).toEqual({ value: "ok", attempts: 1 });
    expect(calls).toHaveLength(1);
  });

  it("backs off exponentially with equal jitter between retries", async () => {
    const { operation, calls } = scripted([httpError(500), httpError(502)]);
    const delays: number[] = [];
    const result = await callWithResilience(operation, { ...options, onRetry: ({ delayMs }) => delays.push(delayMs) });
    expect(result).toEqual({ value: "ok", attempts: 3 });
    // d = min(100, 40 × 2^(n−1)); delay = d/2 + 0.5 × d/2
    expect(delays).toEqual([30, 60]);
    expect((calls[1] as number) - (calls[0] as number)).toBeGreaterThanOrEqual(28);
    expect((calls[2] as number) - (calls[1] as number)).toBeGreaterThanOrEqual(58);
  });

  it("waits the Retry-After delay instead of the backoff", async () => {
    const { operation, calls } = scripted([httpError(429, { "retry-after-ms": "250" })]);
    const result = await callWithResilience(operation, options);
    expect(result.attempts).toBe(2);
    expect((calls[1] as number) - (calls[0] as number)).toBeGreaterThanOrEqual(245);
  });

  it("raises model_unavailable with the last failure once retries are exhausted", async () => {
    const { operation, calls } = scripted([httpError(500), httpError(500), httpError(503)]);
    const error = (await callWithResilience(operation, options).catch((caught: unknown) => caught)) as DocqaError;
    expect(DocqaError.isInstance(error)).toBe(true);
    expect(error.code).toBe("model_unavailable");
    expect(error.details).toEqual({ reason: "server_error", status: 503, attempts: 3, retryAfterMs: undefined });
    expect(error.cause).toBeInstanceOf(Error);
    expect(calls).toHaveLength(3);
  });

  it("stops when mayRetry says so", async () => {
    const { operation, calls } = scripted([httpError(500)]);
    const error = (await callWithResilience(operation, { ...options, mayRetry: () => false }).catch(
      (caught: unknown) => caught,
    )) as DocqaError;
    expect((error.details as { attempts: number }).attempts).toBe(1);
    expect(calls).toHaveLength(1);
  });

  it("aborts a hanging attempt at the timeout and settles even if the operation ignores its signal", async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const error = (await callWithResilience(
      (signal) => {
        seen = signal;
        return new Promise<string>(() => {});
      },
      { ...options, policy: { ...policy, timeoutMs: 100 } },
    ).catch((caught: unknown) => caught)) as DocqaError;
    expect(performance.now() - started).toBeLessThan(500);
    expect(seen?.aborted).toBe(true);
    expect([error.code, error.details]).toEqual([
      "model_timeout",
      { reason: "timeout", status: undefined, attempts: 1, retryAfterMs: undefined },
    ]);
    expect(error.message).toBe(
      "[docqa] [openai] model gpt-test failed after 1 attempt (no answer within 100 ms): the model did not answer in time: raise the timeout, use a faster model, or lower MAX_CONTEXT_CHARS",
    );
  });

  it("bounds the total time: an attempt gets only the budget left", async () => {
    const { operation } = scripted([httpError(500)]);
    let second: number | undefined;
    const started = performance.now();
    const error = (await callWithResilience(
      async (signal, attempt) => {
        if (attempt === 1) return operation();
        second = performance.now();
        return new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
      { ...options, policy: { ...policy, timeoutMs: 1_000, maxTotalMs: 300 } },
    ).catch((caught: unknown) => caught)) as DocqaError;
    expect(second).toBeDefined();
    expect(performance.now() - started).toBeLessThan(600);
    expect([error.code, (error.details as { reason: string }).reason]).toEqual(["model_timeout", "timeout"]);
  });

  it("rethrows the caller's abort reason, never retried", async () => {
    const controller = new AbortController();
    const reason = new Error("client disconnected");
    const calls: number[] = [];
    const promise = callWithResilience(
      (signal) => {
        calls.push(1);
        return new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
      },
      { ...options, signal: controller.signal },
    );
    setTimeout(() => controller.abort(reason), 30);
    await expect(promise).rejects.toBe(reason);
    expect(calls).toHaveLength(1);
  });

  it("rethrows errors that are not model failures as they are", async () => {
    const bug = new TypeError("x is not a function");
    await expect(callWithResilience(() => Promise.reject(bug), options)).rejects.toBe(bug);
  });

  it("completes partial policies from the defaults", () => {
    expect(resiliencePolicy()).toEqual(defaultResiliencePolicy);
    expect(resiliencePolicy({ timeoutMs: 5_000 })).toEqual({ ...defaultResiliencePolicy, timeoutMs: 5_000, maxTotalMs: 10_000 });
    expect(resiliencePolicy({ maxRetries: 0, maxTotalMs: 7_000 })).toEqual({
      ...defaultResiliencePolicy,
      maxRetries: 0,
      maxTotalMs: 7_000,
    });
  });
});
