import { describe, expect, it } from "vitest";
import { RepetitionGuard, repetitionMaxOccurrences, repetitionSpanTokens } from "./repetition-guard.js";

/** Token ids 1000, 1001, … of a sentence of `length` distinct tokens, offset by `seed`. */
const sentence = (length: number, seed = 0) => Array.from({ length }, (_, index) => 1000 + seed * 100 + index);

describe("RepetitionGuard", () => {
  it("stops a loop of a long sentence at the 4th occurrence of a span, i.e. after 3 periods and one span", () => {
    const guard = new RepetitionGuard();
    const period = sentence(40);
    let stoppedAt = -1;
    for (let index = 0; index < 10 * period.length && stoppedAt < 0; index++) {
      if (guard.push([period[index % period.length] as number])) stoppedAt = index + 1;
    }
    expect(stoppedAt).toBe((repetitionMaxOccurrences - 1) * period.length + repetitionSpanTokens);
  });

  it("stops a loop of a short list item quickly: its period is shorter than the span", () => {
    const guard = new RepetitionGuard();
    const item = [11, 12, 13];
    let pushed = 0;
    while (!guard.looping && pushed < 1000) {
      guard.push(item);
      pushed += item.length;
    }
    expect(pushed).toBeLessThanOrEqual(repetitionSpanTokens + repetitionMaxOccurrences * item.length);
  });

  it("lets a sentence occur three times (callout and two lists) among other text", () => {
    const guard = new RepetitionGuard();
    const quoted = sentence(30, 1);
    guard.push(quoted);
    guard.push(sentence(20, 2));
    guard.push(quoted);
    guard.push(sentence(20, 3));
    expect(guard.push(quoted)).toBe(false);
    expect(guard.length).toBe(130);
    expect(guard.push(quoted)).toBe(true);
  });

  it("never stops text without a repeated span", () => {
    const guard = new RepetitionGuard();
    expect(guard.push(sentence(2000))).toBe(false);
  });

  it("rejects a span under one token and fewer than two occurrences", () => {
    expect(() => new RepetitionGuard({ spanTokens: 0 })).toThrow(RangeError);
    expect(() => new RepetitionGuard({ maxOccurrences: 1 })).toThrow(RangeError);
  });
});
