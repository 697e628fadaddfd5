import { describe, expect, it } from "vitest";
import { normalizeScores, standardNormalCdf } from "./normalize-scores.js";

describe("standardNormalCdf", () => {
  it("gives Φ(0) = 0.5", () => {
    expect(standardNormalCdf(0)).toBeCloseTo(0.5, 8);
  });

  it("gives Φ(1.96) ≈ 0.975 and Φ(−1.96) ≈ 0.025 within 1e-4", () => {
    expect(Math.abs(standardNormalCdf(1.96) - 0.975)).toBeLessThan(1e-4);
    expect(Math.abs(standardNormalCdf(-1.96) - 0.025)).toBeLessThan(1e-4);
  });

  it("matches reference values within the approximation's error", () => {
    // Φ(±1) from tables: 0.8413447, 0.1586553.
    expect(Math.abs(standardNormalCdf(1) - 0.8413447)).toBeLessThan(1e-6);
    expect(Math.abs(standardNormalCdf(-1) - 0.1586553)).toBeLessThan(1e-6);
  });

  it("is symmetric: Φ(−x) = 1 − Φ(x)", () => {
    for (const x of [0.1, 0.5, 1.3, 2.7, 4]) {
      expect(standardNormalCdf(-x)).toBeCloseTo(1 - standardNormalCdf(x), 12);
    }
  });

  it("approaches 0 and 1 in the tails", () => {
    expect(standardNormalCdf(8)).toBeCloseTo(1, 9);
    expect(standardNormalCdf(-8)).toBeCloseTo(0, 9);
  });
});

describe("normalizeScores", () => {
  it("min-max maps the best to 1, the worst to 0 and the rest linearly", () => {
    expect(normalizeScores([2, 4, 6], "min-max")).toEqual([0, 0.5, 1]);
    expect(normalizeScores([10, -10, 0, 5], "min-max")).toEqual([1, 0, 0.5, 0.75]);
  });

  it("min-max keeps the input order, not sorted order", () => {
    expect(normalizeScores([6, 2, 4], "min-max")).toEqual([1, 0, 0.5]);
  });

  it("z-score maps each score to Φ((s − mean) / population standard deviation)", () => {
    // mean 2, σ = √(2/3), so z = ∓√1.5 and 0; Φ(√1.5) = 0.8896643 (reference).
    const normalized = normalizeScores([1, 2, 3], "z-score");
    expect(normalized).toHaveLength(3);
    expect(Math.abs((normalized[0] as number) - 0.1103357)).toBeLessThan(1e-6);
    expect(normalized[1]).toBeCloseTo(0.5, 8);
    expect(Math.abs((normalized[2] as number) - 0.8896643)).toBeLessThan(1e-6);
  });

  it("z-score is unchanged by shifting and scaling the scores", () => {
    const base = normalizeScores([0.2, 0.9, 0.4, 0.5], "z-score");
    const transformed = normalizeScores([12, 82, 32, 42], "z-score");
    transformed.forEach((value, index) => {
      expect(value).toBeCloseTo(base[index] as number, 10);
    });
  });

  it.each(["min-max", "z-score"] as const)("%s gives 1 to every item of an all-equal list", (method) => {
    expect(normalizeScores([3.5, 3.5, 3.5], method)).toEqual([1, 1, 1]);
    expect(normalizeScores([-2, -2], method)).toEqual([-2, -2].map(() => 1));
  });

  it.each(["min-max", "z-score"] as const)("%s gives [1] for a single result", (method) => {
    expect(normalizeScores([0.42], method)).toEqual([1]);
  });

  it.each(["min-max", "z-score"] as const)("%s gives [] for an empty list", (method) => {
    expect(normalizeScores([], method)).toEqual([]);
  });

  it.each(["min-max", "z-score"] as const)("%s maps into [0, 1]", (method) => {
    const normalized = normalizeScores([-30, 1, 2, 3, 100, 7.5], method);
    for (const value of normalized) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
  });
});
