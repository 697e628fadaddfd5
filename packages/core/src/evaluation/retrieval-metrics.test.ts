import { describe, expect, it } from "vitest";
import { normalizeAnswer } from "./evaluate-answers.js";
import { meanMetrics, ndcgAtK, recallAtK, reciprocalRankAtK } from "./retrieval-metrics.js";

describe("retrieval metrics (trec_eval definitions)", () => {
  // Graded judgements: d1 highly relevant (2), d2 and d3 relevant (1), d9 judged not relevant (0).
  const judgements = new Map([
    ["d1", 2],
    ["d2", 1],
    ["d3", 1],
    ["d9", 0],
  ]);
  const ranking = ["d2", "d9", "d1", "d7", "d3"];

  it("nDCG@k uses graded gains and the ideal ranking of all judged documents", () => {
    // DCG@5 = 1/log2(2) + 0 + 2/log2(4) + 0 + 1/log2(6) = 1 + 1 + 0.386853 = 2.386853
    // IDCG@5 = 2/log2(2) + 1/log2(3) + 1/log2(4) = 2 + 0.630930 + 0.5 = 3.130930
    expect(ndcgAtK(ranking, judgements, 5)).toBeCloseTo(2.386853 / 3.13093, 6);
    // nDCG@1 = gain of d2 (1) / ideal gain (2) = 0.5
    expect(ndcgAtK(ranking, judgements, 1)).toBeCloseTo(0.5, 12);
    expect(ndcgAtK(["d1", "d2", "d3"], judgements, 10)).toBeCloseTo(1, 12);
    expect(ndcgAtK(["x"], new Map([["d1", 0]]), 10)).toBe(0);
  });

  it("recall@k counts relevant documents (grade > 0) in the top k", () => {
    expect(recallAtK(ranking, judgements, 1)).toBeCloseTo(1 / 3, 12);
    expect(recallAtK(ranking, judgements, 3)).toBeCloseTo(2 / 3, 12);
    expect(recallAtK(ranking, judgements, 5)).toBe(1);
  });

  it("MRR@k is the reciprocal rank of the first relevant document", () => {
    expect(reciprocalRankAtK(["d9", "d7", "d3"], judgements, 10)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAtK(["d9", "d7", "d3"], judgements, 2)).toBe(0);
  });

  it("averages over queries that have a relevant document", () => {
    const metrics = meanMetrics([
      { ranking: ["d1"], judgements: new Map([["d1", 1]]) },
      { ranking: ["x", "d2"], judgements: new Map([["d2", 1]]) },
      { ranking: ["x"], judgements: new Map([["d3", 0]]) },
    ]);
    expect(metrics.queries).toBe(2);
    expect(metrics.mrrAt10).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(metrics.ndcgAt10).toBeCloseTo((1 + 1 / Math.log2(3)) / 2, 12);
    expect(metrics.recallAt10).toBe(1);
  });
});

describe("normalizeAnswer (SQuAD evaluation script)", () => {
  it("lower-cases and removes punctuation, articles and extra whitespace", () => {
    expect(normalizeAnswer("The  Normans, in 911!")).toBe("normans in 911");
    expect(normalizeAnswer("an apple a day")).toBe("apple day");
  });
});
