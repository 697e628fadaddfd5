/**
 * Admission of generations to the in-process model: at most `slots` run at once (the context
 * sequences, `LOCALLLM_SEQUENCES`), at most `queueSize` more wait (`LOCALLLM_QUEUE_SIZE`), first
 * come, first served; one more is refused at once with `model_busy` (HTTP 503) and a
 * `Retry-After` estimated from how long recent generations took, as ingestion's admission does
 * (`ingestion-admission.ts`), instead of waiting in an unbounded queue while its client times out.
 * A waiting call whose signal aborts (the client went away, the call timed out) leaves the queue.
 */
import { DocqaError } from "../errors/docqa-error.js";

/** Settings of {@link GenerationAdmission}. */
export interface GenerationAdmissionSettings {
  /** Generations at once (`LOCALLLM_SEQUENCES`). */
  slots: number;
  /** Calls that may wait for a slot (`LOCALLLM_QUEUE_SIZE`). */
  queueSize: number;
}

/** Seconds suggested in `Retry-After` before any generation has finished. */
const initialRetrySeconds = 5;
/** Bounds of the suggested `Retry-After`, seconds. */
const retryBounds = { minimum: 1, maximum: 120 };
/** Weight of the latest duration in the moving average of generation durations. */
const smoothing = 0.3;

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
}

/**
 * Slots and a bounded queue.
 *
 * @example
 * ```ts
 * const admission = new GenerationAdmission({ slots: 2, queueSize: 16 });
 * const release = await admission.acquire(signal);
 * try { await generate(); } finally { release(); }
 * ```
 */
export class GenerationAdmission {
  readonly slots: number;
  readonly queueSize: number;
  #active = 0;
  readonly #waiting: Waiter[] = [];
  #averageSeconds: number | undefined;

  constructor(settings: GenerationAdmissionSettings) {
    if (!Number.isInteger(settings.slots) || settings.slots < 1)
      throw new RangeError(`slots must be a positive integer, got ${settings.slots}`);
    if (!Number.isInteger(settings.queueSize) || settings.queueSize < 0) {
      throw new RangeError(`queueSize must be a non-negative integer, got ${settings.queueSize}`);
    }
    this.slots = settings.slots;
    this.queueSize = settings.queueSize;
  }

  /** Generations running. */
  get active(): number {
    return this.#active;
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes a slot, waiting in the queue when all are taken; resolves to the function that returns
   * the slot (call it once, when the generation has ended; later calls do nothing).
   *
   * @throws {DocqaError} `model_busy` with `retryAfterSeconds` when `queueSize` calls already wait.
   * @throws the signal's reason when `signal` aborts before a slot is free.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#active < this.slots) this.#active++;
    else await this.#wait(signal);
    const started = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const seconds = (performance.now() - started) / 1000;
      this.#averageSeconds = this.#averageSeconds === undefined ? seconds : smoothing * seconds + (1 - smoothing) * this.#averageSeconds;
      this.#handOver();
    };
  }

  /** Refuses every waiting call with `reason` (the model is closing). */
  rejectWaiting(reason: unknown): void {
    for (const waiter of this.#waiting.splice(0)) waiter.reject(reason);
  }

  /** Waits until {@link #handOver} passes a slot on (the slot stays counted in `#active`). */
  #wait(signal: AbortSignal | undefined): Promise<void> {
    if (this.#waiting.length >= this.queueSize) return Promise.reject(this.#busy());
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (reason) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Gives a returned slot to the first waiting call, or frees it. */
  #handOver(): void {
    const next = this.#waiting.shift();
    if (next) next.resolve();
    else this.#active--;
  }

  #busy(): DocqaError {
    // The newcomer would start once the calls ahead of it (all waiting ones) have had a slot:
    // about the average duration times the calls ahead plus one, divided by the slots.
    const estimate =
      this.#averageSeconds === undefined ? initialRetrySeconds : (this.#averageSeconds * (this.#waiting.length + 1)) / this.slots;
    const retryAfterSeconds = Math.min(retryBounds.maximum, Math.max(retryBounds.minimum, Math.ceil(estimate)));
    return new DocqaError(
      "model_busy",
      `the local model is generating ${this.#active} answers and ${this.#waiting.length} more wait (LOCALLLM_SEQUENCES is ${this.slots}, LOCALLLM_QUEUE_SIZE ${this.queueSize}); retry after ${retryAfterSeconds} s`,
      { component: "llama-cpp", retryAfterSeconds },
    );
  }
}
