import { describe, expect, it } from "vitest";
import { nearestRankPercentile, summarizeAnswers } from "./summarize-answers.js";
import { answerRecord } from "./test-records.js";

const abstention = { callout: "No information could be found.", abstained: true, citations: [], calloutCitations: 0 };

describe("summarizeAnswers", () => {
  it("scores the callout against the best reference, and the abstentions on unanswerable questions", () => {
    const result = summarizeAnswers(
      [
        answerRecord({ id: "right", answers: ["Paris", "the city of Paris"], callout: "Paris [Source: doc_1]" }),
        // "capital is lyon" against "paris": no common token.
        answerRecord({
          id: "wrong",
          callout: "The capital is Lyon. [Source: doc_1]",
          citations: [{ key: "doc_1", docId: "lyon", holdsAnswer: false, goldDocument: false, summary: false }],
          retrieved: false,
        }),
        answerRecord({ id: "false-abstention", ...abstention, abstentionReason: "low_relevance" }),
        answerRecord({
          id: "declined",
          answerable: false,
          answers: [],
          hasGoldDocuments: false,
          retrieved: null,
          ...abstention,
          abstentionReason: "not_answerable",
        }),
        answerRecord({ id: "answered-unanswerable", answerable: false, answers: [], hasGoldDocuments: false, retrieved: null }),
      ],
      "alternatives",
    );
    expect(result).toMatchObject({ questions: 5, failed: 0, answered: 3, answerable: 3, unanswerable: 2, exactMatch: 1 / 3, f1: 1 / 3 });
    expect(result.calloutContainsAnswerRate).toBeCloseTo(1 / 3, 12);
    expect(result.retrievedRate).toBeCloseTo(2 / 3, 12);
    expect(result.citedRate).toBeCloseTo(1 / 3, 12);
    expect(result.falseAbstentionRate).toBeCloseTo(1 / 3, 12);
    // Two abstentions, one on an unanswerable question; one of the two unanswerable questions abstained on.
    expect(result.abstentionPrecision).toBe(0.5);
    expect(result.abstentionRecall).toBe(0.5);
    expect(result.abstentionReasons).toEqual({ no_documents: 0, low_relevance: 1, not_answerable: 1 });
    // SQuAD 2.0 totals: the declined unanswerable question scores 1.
    expect(result.overallExactMatch).toBe(2 / 5);
    expect(result.outcomes.map((outcome) => outcome.callout)).toEqual(["Paris", "The capital is Lyon.", "", "", "The capital is Paris."]);
  });

  it("counts citation precision over the cited passages of answered answerable questions, and cited callouts over answered ones", () => {
    const result = summarizeAnswers(
      [
        answerRecord({
          id: "two-sources",
          citations: [
            { key: "doc_1", docId: "a", holdsAnswer: true, goldDocument: true, summary: false },
            { key: "doc_2", docId: "b", holdsAnswer: false, goldDocument: false, summary: true },
          ],
        }),
        answerRecord({ id: "uncited-callout", callout: "The capital is Paris.", calloutCitations: 0 }),
        // An unanswerable question answered: its citations cannot hold a gold answer and are not counted.
        answerRecord({
          id: "unanswerable",
          answerable: false,
          answers: [],
          citations: [{ key: "doc_1", docId: "c", holdsAnswer: false, goldDocument: false, summary: false }],
        }),
        answerRecord({ id: "abstained", ...abstention }),
      ],
      "alternatives",
    );
    expect(result.citedPassages).toBe(3);
    expect(result.citationPrecision).toBeCloseTo(2 / 3, 12);
    expect(result.calloutCitationRate).toBeCloseTo(2 / 3, 12);
    expect(result.summarySources).toBe(1);
  });

  it("counts a fallback for unparseable or empty output as invalid JSON, over model outputs only", () => {
    const result = summarizeAnswers(
      [
        answerRecord({ id: "m1", answerMode: "model", model: "qwen" }),
        answerRecord({ id: "m2", answerMode: "model", model: "qwen" }),
        answerRecord({ id: "f1", answerMode: "extractive-fallback", fallbackReason: "unparseable_output" }),
        answerRecord({ id: "f2", answerMode: "extractive-fallback", fallbackReason: "no_valid_citation" }),
        answerRecord({ id: "f3", answerMode: "extractive-fallback", fallbackReason: "empty_output" }),
        answerRecord({ id: "skipped", answerMode: "empty-context", ...abstention }),
      ],
      "alternatives",
    );
    expect(result.modelOutputs).toBe(5);
    expect(result.validJsonRate).toBeCloseTo(3 / 5, 12);
    expect(result.answerModes).toEqual({ model: 2, "extractive-fallback": 3, "empty-context": 1 });
    expect(result.fallbackReasons).toEqual({ unparseable_output: 1, no_valid_citation: 1, empty_output: 1 });
    expect(summarizeAnswers([answerRecord({ id: "e" })], "alternatives").validJsonRate).toBeNaN();
  });

  it("reports latency percentiles and generation tokens/s, leaving failed questions out of every figure", () => {
    const result = summarizeAnswers(
      [
        ...[40, 10, 30, 20].map((latencyMs, index) => answerRecord({ id: `q${index}`, latencyMs })),
        answerRecord({ id: "g1", latencyMs: 1000, generation: { outputTokens: 30, milliseconds: 1000, includesPrompt: false } }),
        answerRecord({ id: "g2", latencyMs: 2000, generation: { outputTokens: 10, milliseconds: 1000, includesPrompt: false } }),
        answerRecord({ id: "failed", latencyMs: 0, callout: "", error: { code: "model_timeout", message: "slow" } }),
      ],
      "alternatives",
    );
    expect(result).toMatchObject({ questions: 6, failed: 1, answerable: 6 });
    // Sorted 10, 20, 30, 40, 1000, 2000: p50 is the 3rd, p95 the 6th (nearest rank).
    expect(result.latency).toEqual({ p50Ms: 30, p95Ms: 2000, meanMs: 3100 / 6 });
    expect(result.generation).toEqual({ answers: 2, outputTokens: 40, milliseconds: 2000, tokensPerSecond: 20, includesPrompt: false });
    expect(summarizeAnswers([answerRecord({ id: "x" })], "alternatives").generation.tokensPerSecond).toBeNull();
  });

  it("scores a table answer: every item needed in the callout, numbers by value", () => {
    const items = ["Chile", "1,200"];
    const result = summarizeAnswers(
      [
        answerRecord({
          id: "both",
          answers: items,
          callout: "Chile: attendance 1200 [Source: doc_1]",
          hasGoldDocuments: false,
          retrieved: null,
        }),
        answerRecord({ id: "one", answers: items, callout: "Chile [Source: doc_1]", hasGoldDocuments: false, retrieved: null }),
      ],
      "all-items",
    );
    expect(result.scorer).toBe("all-items");
    expect(result.calloutContainsAnswerRate).toBe(0.5);
    expect(result.retrievedRate).toBeNaN();
    expect(result.citedRate).toBeNaN();
    // "chile" against "chile 1 200": P 1/1, R 1/3, F1 0.5; "chile attendance 1200": P 1/3, R 1/3.
    expect(result.outcomes.map((outcome) => outcome.f1)).toEqual([expect.closeTo(1 / 3, 12), expect.closeTo(0.5, 12)]);
  });

  it("takes the nearest-rank percentile", () => {
    expect(nearestRankPercentile([], 50)).toBeNull();
    expect(nearestRankPercentile([5], 95)).toBe(5);
    expect(nearestRankPercentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(nearestRankPercentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
  });
});
