/**
 * Backpressure for ingestion: at most `INGESTION_QUEUE_SIZE` ingestion requests (an `/upsert`, an
 * ingestion job, awaited or in the background) are accepted and unfinished at once. One more is
 * refused at once with `ingestion_busy` (HTTP 503) and a `Retry-After` estimated from how long
 * recent requests took, instead of waiting in an unbounded queue while its client times out and
 * memory grows.
 */
import { DocqaError } from "../errors/docqa-error.js";

/** Settings of {@link createIngestionAdmission}. */
export interface IngestionAdmissionSettings {
  /** `INGESTION_QUEUE_SIZE`: requests accepted and unfinished at most. */
  limit: number;
  /** Requests processed at once (the pool's threads), for the `Retry-After` estimate. */
  concurrency: number;
}

/** Admission of ingestion requests. */
export interface IngestionAdmission {
  /** Requests accepted and unfinished. */
  readonly pending: number;
  /** `INGESTION_QUEUE_SIZE`. */
  readonly limit: number;
  /**
   * Accepts a request and returns the function that marks it finished (call it once).
   *
   * @param options.force - accept even when full (jobs resumed after a restart, already accepted once).
   * @throws {DocqaError} `ingestion_busy` with `retryAfterSeconds` when `limit` requests are pending.
   */
  admit(options?: { force?: boolean }): () => void;
  /**
   * Throws like {@link admit} when it would refuse, without accepting anything: lets an adapter
   * refuse an upload before reading its body.
   */
  check(): void;
}

/** Seconds suggested before any request has finished. */
const initialRetrySeconds = 5;
/** Bounds of the suggested `Retry-After`, seconds. */
const retryBounds = { minimum: 1, maximum: 120 };
/** Weight of the latest duration in the moving average. */
const smoothing = 0.3;

/** Creates the admission of a service's ingestion. */
export function createIngestionAdmission(settings: IngestionAdmissionSettings): IngestionAdmission {
  let pending = 0;
  let averageSeconds: number | undefined;

  const busy = () => {
    // A slot frees when one of the requests in progress finishes: about the average duration
    // divided by the requests processed at once.
    const estimate = averageSeconds === undefined ? initialRetrySeconds : averageSeconds / Math.max(1, settings.concurrency);
    const retryAfterSeconds = Math.min(retryBounds.maximum, Math.max(retryBounds.minimum, Math.ceil(estimate)));
    return new DocqaError(
      "ingestion_busy",
      `${pending} ingestion requests are in progress (INGESTION_QUEUE_SIZE is ${settings.limit}); retry after ${retryAfterSeconds} s`,
      { component: "ingestion", retryAfterSeconds },
    );
  };

  return {
    get pending() {
      return pending;
    },
    limit: settings.limit,
    admit(options = {}) {
      if (!options.force && pending >= settings.limit) throw busy();
      pending++;
      const started = performance.now();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        pending--;
        const seconds = (performance.now() - started) / 1000;
        averageSeconds = averageSeconds === undefined ? seconds : smoothing * seconds + (1 - smoothing) * averageSeconds;
      };
    },
    check() {
      if (pending >= settings.limit) throw busy();
    },
  };
}
