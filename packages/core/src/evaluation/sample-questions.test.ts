import { describe, expect, it } from "vitest";
import { defaultSampleSeed, sampleQuestions } from "./sample-questions.js";

const twenty = Array.from({ length: 20 }, (_, index) => index);

describe("sampleQuestions", () => {
  it("draws the same questions for the same seed, in file order (pinned: the draws are part of the documented method)", () => {
    expect(sampleQuestions(twenty, 5, 42)).toEqual([4, 5, 6, 16, 19]);
    expect(sampleQuestions(twenty, 5, 42)).toEqual(sampleQuestions([...twenty], 5, 42));
    expect(sampleQuestions(twenty, 5, 43)).toEqual([3, 4, 11, 16, 17]);
  });

  it("keeps a smaller sample inside a larger one with the same seed", () => {
    const small = sampleQuestions(twenty, 5, 42);
    const large = sampleQuestions(twenty, 7, 42);
    expect(large).toHaveLength(7);
    for (const item of small) expect(large).toContain(item);
  });

  it("returns distinct items of the input, and all of them in order when the sample is not smaller", () => {
    const drawn = sampleQuestions(twenty, 12, defaultSampleSeed);
    expect(new Set(drawn).size).toBe(12);
    expect(drawn).toEqual([...drawn].sort((left, right) => left - right));
    expect(sampleQuestions(["a", "b"], 5, 1)).toEqual(["a", "b"]);
    expect(sampleQuestions(["a", "b"], 0, 1)).toEqual([]);
  });

  it("gives every item the same chance: over 2,000 seeds each of 10 items is drawn about 2,000 × 3/10 times", () => {
    const counts = new Array<number>(10).fill(0);
    for (let seed = 0; seed < 2000; seed += 1)
      for (const item of sampleQuestions(twenty.slice(0, 10), 3, seed)) counts[item] = (counts[item] ?? 0) + 1;
    // Binomial(2000, 0.3): standard deviation 20.5; the bounds are about ±4.4 of them.
    for (const count of counts) expect(Math.abs(count - 600)).toBeLessThan(90);
  });

  it("rejects a negative or fractional size and a seed outside 32 bits", () => {
    expect(() => sampleQuestions(twenty, -1, 1)).toThrow(/non-negative integer/);
    expect(() => sampleQuestions(twenty, 1.5, 1)).toThrow(/non-negative integer/);
    expect(() => sampleQuestions(twenty, 3, 2 ** 32)).toThrow(/seed/);
    expect(() => sampleQuestions(twenty, 3, 0.5)).toThrow(/seed/);
  });
});
