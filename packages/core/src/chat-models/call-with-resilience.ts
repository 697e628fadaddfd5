/**
 * The retry layer of every model call: a per-attempt timeout carried by an `AbortSignal` (so the
 * client aborts its HTTP request and no request is left hanging), retries with exponential
 * backoff and jitter on 429, 5xx and connection failures, the provider's `Retry-After` honoured,
 * and a bound on the total time. Provider clients are built with `maxRetries: 0` so that this
 * layer is the only one retrying.
 *
 * Backoff is "equal jitter" (Brooker, 2015, "Exponential Backoff And Jitter", AWS Architecture
 * Blog): attempt n waits d/2 + random × d/2 with d = min(maxDelayMs, baseDelayMs × 2^(n−1)).
 * A `Retry-After` delay replaces the backoff; when it would pass the total budget the call fails
 * at once rather than wait in vain.
 */
import { classifyModelError, type ModelFailure, modelFailureError } from "./classify-model-error.js";

/** Timeouts and retries of model calls. */
export interface ResiliencePolicy {
  /** Milliseconds one attempt may take (proposed `RAG_LLM_TIMEOUT_MS`); default 60000. */
  timeoutMs: number;
  /** Retries after the first attempt (proposed `RAG_LLM_MAX_RETRIES`); default 2. */
  maxRetries: number;
  /** First backoff delay in milliseconds; default 500. */
  baseDelayMs: number;
  /** Largest backoff delay in milliseconds; default 8000. */
  maxDelayMs: number;
  /** Milliseconds all attempts and waits together may take; default twice `timeoutMs`. */
  maxTotalMs: number;
}

/** The default policy: 60 s per attempt, 2 retries, backoff from 0.5 s to 8 s, 120 s in total. */
export const defaultResiliencePolicy: Readonly<ResiliencePolicy> = {
  timeoutMs: 60_000,
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxTotalMs: 120_000,
};

/** Completes a partial policy: unset fields from {@link defaultResiliencePolicy}; `maxTotalMs` defaults to twice `timeoutMs`. */
export function resiliencePolicy(overrides: Partial<ResiliencePolicy> = {}): ResiliencePolicy {
  const timeoutMs = overrides.timeoutMs ?? defaultResiliencePolicy.timeoutMs;
  return {
    ...defaultResiliencePolicy,
    maxTotalMs: 2 * timeoutMs,
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
    timeoutMs,
  };
}

/** Options of {@link callWithResilience}. */
export interface ResilienceOptions {
  policy: ResiliencePolicy;
  /** The caller's signal (the client went away): aborts the attempt and rethrows its reason; never retried. */
  signal?: AbortSignal | undefined;
  /** Component named in errors, for example `openai`. */
  component: string;
  /** Model named in errors. */
  model: string;
  /** Asked before each retry; return false to stop (for example once stream tokens were sent). */
  mayRetry?: (failure: ModelFailure) => boolean;
  /** Called before waiting for a retry. */
  onRetry?: (event: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
  /** Random source in [0, 1) for the jitter; default `Math.random`. */
  random?: () => number;
}

/** Result of {@link callWithResilience}. */
export interface ResilientResult<T> {
  value: T;
  /** Calls made, the successful one included. */
  attempts: number;
}

/**
 * Runs `operation` under the policy. Each attempt gets its own signal, aborted when the attempt
 * times out or the caller's signal aborts; the promise settles at that moment even if the
 * client ignores the signal.
 *
 * @throws {DocqaError} `model_unavailable` when the failure is not retryable or retries are
 *   exhausted (`details.reason`: `rate_limited`, `server_error`, `unreachable`, `rejected`), and
 *   for a timeout (`details.reason: "timeout"`, code {@link modelTimeoutCode}).
 * @throws the caller's abort reason when `options.signal` aborts.
 * @throws the original error when it is not a model failure (`unknown`: for example a bug).
 */
export async function callWithResilience<T>(
  operation: (signal: AbortSignal, attempt: number) => Promise<T>,
  options: ResilienceOptions,
): Promise<ResilientResult<T>> {
  const { policy } = options;
  const random = options.random ?? Math.random;
  const started = performance.now();
  const context = (attempts: number, cause: unknown, note?: string) => ({
    component: options.component,
    model: options.model,
    attempts,
    cause,
    note,
  });
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    const remaining = policy.maxTotalMs - (performance.now() - started);
    const attemptTimeout = Math.max(1, Math.min(policy.timeoutMs, remaining));
    const controller = new AbortController();
    const timeoutReason = new TimeoutSignalReason(attemptTimeout);
    const timer = setTimeout(() => controller.abort(timeoutReason), attemptTimeout);
    const forwardAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const value = await settleOnAbort(operation(controller.signal, attempt), controller.signal);
      return { value, attempts: attempt };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (controller.signal.reason === timeoutReason) {
        throw modelFailureError(
          { kind: "timeout", retryable: false, description: `no answer within ${attemptTimeout} ms` },
          context(attempt, error),
        );
      }
      const failure = classifyModelError(error);
      if (failure.kind === "unknown" || failure.kind === "aborted") throw error;
      if (!failure.retryable || attempt > policy.maxRetries || (options.mayRetry && !options.mayRetry(failure))) {
        throw modelFailureError(failure, context(attempt, error));
      }
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delayMs = failure.retryAfterMs ?? Math.round(ceiling / 2 + (random() * ceiling) / 2);
      const elapsed = performance.now() - started;
      if (elapsed + delayMs >= policy.maxTotalMs) {
        throw modelFailureError(
          failure,
          context(attempt, error, `waiting ${delayMs} ms more would pass the ${policy.maxTotalMs} ms budget`),
        );
      }
      options.onRetry?.({ attempt, delayMs, failure });
      await delay(delayMs, options.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", forwardAbort);
    }
  }
}

/** Marks an abort caused by the attempt timeout (as opposed to the caller). */
class TimeoutSignalReason extends Error {
  constructor(milliseconds: number) {
    super(`model call timed out after ${milliseconds} ms`);
    this.name = "TimeoutError";
  }
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (the late outcome is ignored). */
function settleOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `milliseconds`; rejects with the signal's reason when it aborts first. */
function delay(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
