import type { Answer, Source } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { answerConfidence } from "./answer-confidence.js";

const weights = { weightVector: 0.5, weightBm25: 0.5 };
const source = (score: unknown): Source => ({ title: "T", source: "", page_content: "", metadata: { score } });
const answer = (parts: Partial<Answer>): Answer => ({
  callout_answer: "",
  positive_list: [],
  negative_list: [],
  info_list: [],
  keywords: [],
  ...parts,
});

describe("answerConfidence", () => {
  it("is the mean normalised score of the cited sources times the share of cited statements", () => {
    const sources = { doc_1: source(0.9), doc_2: source(0.5), doc_3: source(0.1) };
    const parts = answerConfidence(
      answer({
        callout_answer: "Main claim [Source: doc_1]",
        positive_list: ["Second [Source: doc_2]", "Uncited point", "Third [Source: doc_1, doc_2]"],
        negative_list: ["A caveat without a citation"],
        info_list: ["More [Source: doc_3]"],
      }),
      sources,
      weights,
    );
    // R = (0.9 + 0.5 + 0.1) / 3 = 0.5; C = 3 of 4 statements cite = 0.75.
    expect(parts.retrieval).toBeCloseTo(0.5, 10);
    expect(parts.coverage).toBe(0.75);
    expect(parts.confidence).toBe(0.375);
  });

  it("divides by the sum of the fusion weights and caps at 1", () => {
    const sources = { doc_1: source(0.4), doc_2: source(3) };
    expect(
      answerConfidence(answer({ callout_answer: "x [Source: doc_1]" }), sources, { weightVector: 0, weightBm25: 0.5 }).confidence,
    ).toBe(0.8);
    expect(answerConfidence(answer({ callout_answer: "x [Source: doc_2]" }), sources, weights).confidence).toBe(1);
  });

  it("is 0 without citations, for unknown keys, and treats a missing score as 0", () => {
    expect(answerConfidence(answer({ callout_answer: "No information could be found." }), {}, weights)).toEqual({
      retrieval: 0,
      coverage: 0,
      confidence: 0,
    });
    expect(answerConfidence(answer({ callout_answer: "x [Source: doc_7]" }), { doc_1: source(1) }, weights).confidence).toBe(0);
    expect(answerConfidence(answer({ callout_answer: "x [Source: doc_1]" }), { doc_1: source(undefined) }, weights).confidence).toBe(0);
  });

  it("is 0 whenever the service abstained, whatever the answer cites", () => {
    const sources = { doc_1: source(1) };
    expect(answerConfidence(answer({ callout_answer: "x [Source: doc_1]" }), sources, weights).confidence).toBe(1);
    expect(answerConfidence(answer({ callout_answer: "x [Source: doc_1]" }), sources, weights, true)).toEqual({
      retrieval: 0,
      coverage: 0,
      confidence: 0,
    });
  });
});
