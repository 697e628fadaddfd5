import { describe, expect, it } from "vitest";
import { planTokenBatches } from "./plan-token-batches.js";

describe("planTokenBatches", () => {
  it("sorts by length and closes a batch when its padded size would pass the budget", () => {
    expect(planTokenBatches([5, 300, 7, 290], { maxBatchTokens: 600, maxBatchSize: 64 })).toEqual([
      [0, 2],
      [3, 1],
    ]);
    expect(planTokenBatches([5, 300, 7, 290], { maxBatchTokens: 580, maxBatchSize: 64 })).toEqual([[0, 2], [3], [1]]);
  });

  it("caps the rows per batch and keeps every index once, ties in input order", () => {
    const batches = planTokenBatches([10, 10, 10, 10, 10], { maxBatchTokens: 10_000, maxBatchSize: 2 });
    expect(batches).toEqual([[0, 1], [2, 3], [4]]);
  });

  it("gives a text longer than the budget a batch of its own", () => {
    expect(planTokenBatches([512, 3], { maxBatchTokens: 100, maxBatchSize: 8 })).toEqual([[1], [0]]);
  });

  it("plans nothing for no texts", () => {
    expect(planTokenBatches([], { maxBatchTokens: 100, maxBatchSize: 8 })).toEqual([]);
  });
});
