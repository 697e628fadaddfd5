import { describe, expect, it } from "vitest";
import { containsAnswer, exactMatch, normalizeAnswer, tokenF1 } from "./answer-metrics.js";

describe("SQuAD answer metrics", () => {
  it("normalises like the official script: case, punctuation, articles, spaces", () => {
    expect(normalizeAnswer("  The  Normans' conquest, (in 1066)! ")).toBe("normans conquest in 1066");
    expect(normalizeAnswer("An apple a day")).toBe("apple day");
  });

  it("scores exact match as the best over the references", () => {
    expect(exactMatch("the 10th century", ["10th century", "tenth century"])).toBe(1);
    expect(exactMatch("in the 10th century", ["10th century"])).toBe(0);
  });

  it("scores token F1 from the multiset overlap with the best reference", () => {
    // prediction "in 10th century" (3 tokens), reference "10th century" (2): P 2/3, R 1, F1 0.8.
    expect(tokenF1("in the 10th century", ["10th century"])).toBeCloseTo(0.8, 12);
    // Repeated tokens count once per occurrence in the reference: P 1/3, R 1/1.
    expect(tokenF1("paris paris paris", ["Paris"])).toBeCloseTo(0.5, 12);
    expect(tokenF1("london", ["10th century", "london"])).toBe(1);
    expect(tokenF1("rome", ["paris"])).toBe(0);
  });

  it("scores an unanswerable question 1 only for an empty prediction", () => {
    expect(exactMatch("", [])).toBe(1);
    expect(tokenF1("", [])).toBe(1);
    expect(exactMatch("Paris", [])).toBe(0);
    expect(tokenF1("Paris", [])).toBe(0);
  });

  it("finds a reference inside a longer text on word boundaries", () => {
    expect(containsAnswer("They arrived in the 10th century. [Source: doc_1]", ["10th century"])).toBe(true);
    expect(containsAnswer("It costs 600 euros.", ["60 euros"])).toBe(false);
    expect(containsAnswer("anything", [""])).toBe(false);
  });
});
