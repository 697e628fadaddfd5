import { describe, expect, it } from "vitest";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { Answer, Source } from "./answer.js";
import { checkCitations } from "./check-citations.js";

const source = (title: string, text: string): Source => ({ title, source: "", page_content: text, metadata: {} });
const sources = {
  doc_1: source("Vacation policy", "New employees receive 20 vacation days in their first year. Unused days expire in March."),
  doc_2: source("Travel", "Meals are reimbursed up to 60 euros per day."),
};
const answer = (callout: string, positive: string[] = []): Answer => ({
  callout_answer: callout,
  positive_list: positive,
  negative_list: [],
  info_list: [],
  keywords: [],
});
const analyzer = createEnglishAnalyzer();

describe("checkCitations", () => {
  it("accepts quoted sentences and close paraphrases of the cited chunk", () => {
    const quoted = answer("New employees receive 20 vacation days in their first year. [Source: doc_1]", [
      "Vacation policy: Unused days expire in March. [Source: doc_1]",
      "Employees new to the company receive 20 days of vacation. [Source: doc_1]",
    ]);
    expect(checkCitations(quoted, sources, { analyzer })).toEqual([]);
  });

  it("reports a statement its cited chunk does not support, with the share of its terms found", () => {
    const wrong = answer("New employees receive 20 vacation days. [Source: doc_2]", ["Meals are reimbursed. [Source: doc_2]"]);
    const unsupported = checkCitations(wrong, sources, { analyzer });
    // Terms new, employe, receiv, 20, vacat, dai: only "dai" is in doc_2.
    expect(unsupported).toEqual([{ key: "doc_2", text: "New employees receive 20 vacation days.", overlap: 1 / 6 }]);
  });

  it("checks every key of a marker and every statement of an item separately", () => {
    const mixed = answer(
      "Meals are reimbursed up to 60 euros per day. [Source: doc_1, doc_2] Unused days expire in March. [Source: doc_1]",
    );
    expect(checkCitations(mixed, sources, { analyzer }).map(({ key, text }) => [key, text])).toEqual([
      ["doc_1", "Meals are reimbursed up to 60 euros per day."],
    ]);
  });

  it("ignores keys that are not sources and honours minimumOverlap", () => {
    expect(checkCitations(answer("Anything at all. [Source: doc_9]"), sources, { analyzer })).toEqual([]);
    const partly = answer("New employees receive vacation in winter. [Source: doc_1]");
    expect(checkCitations(partly, sources, { analyzer, minimumOverlap: 0.9 })).toHaveLength(1);
    expect(checkCitations(partly, sources, { analyzer, minimumOverlap: 0.6 })).toEqual([]);
  });
});
