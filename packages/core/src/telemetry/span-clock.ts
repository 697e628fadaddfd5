/**
 * One timeline for the spans of a request. OpenTelemetry's JavaScript SDK anchors each span to
 * `Date.now()` (whole milliseconds) when it starts, so two sibling spans a few microseconds long
 * can appear out of order or overlapping by up to a millisecond. A request's spans instead take
 * their start and end times from one clock anchored once, carried in the OpenTelemetry context:
 * within a request, the order and gaps of stage spans are the true ones.
 */
import { type Context, context, createContextKey, type HrTime } from "@opentelemetry/api";

/** Converts `performance.now()` readings to absolute span times on one anchor. */
export interface SpanClock {
  /** The absolute time (`[seconds, nanoseconds]` since the epoch) of a `performance.now()` reading. */
  time(performanceNow: number): HrTime;
}

const clockKey = createContextKey("docqa span clock");

/**
 * A clock anchored now: the wall-clock time of `performanceNow` is `Date.now()` read at this call.
 *
 * @param performanceNow - the `performance.now()` reading that corresponds to now; default read now.
 */
export function startSpanClock(performanceNow: number = performance.now()): SpanClock {
  const epochMilliseconds = Date.now();
  return {
    time(reading) {
      const milliseconds = epochMilliseconds + (reading - performanceNow);
      const seconds = Math.floor(milliseconds / 1000);
      const nanoseconds = Math.min(999_999_999, Math.round((milliseconds - seconds * 1000) * 1e6));
      return [seconds, nanoseconds];
    },
  };
}

/** `parent` with `clock` as the request's clock. */
export function withSpanClockIn(parent: Context, clock: SpanClock): Context {
  return parent.setValue(clockKey, clock);
}

/** The clock of the active request, if any. */
export function activeSpanClock(): SpanClock | undefined {
  return context.active().getValue(clockKey) as SpanClock | undefined;
}
