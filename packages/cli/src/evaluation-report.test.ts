import type { AnswerEvaluation } from "@docqa/core/evaluation";
import { describe, expect, it } from "vitest";
import { answerChart, answerTable, htmlReport } from "./evaluation-report.js";

const evaluation: AnswerEvaluation = {
  answerable: 4,
  unanswerable: 2,
  exactMatch: 0.25,
  f1: 0.5,
  overallExactMatch: 0.5,
  overallF1: 0.6,
  retrievedRate: 1,
  citedRate: 0.75,
  calloutContainsAnswerRate: 0.75,
  containsAnswerRate: 1,
  falseAbstentionRate: 0,
  abstentionPrecision: 1,
  abstentionRecall: 0.5,
  abstentionReasons: { no_documents: 0, low_relevance: 1, not_answerable: 0 },
  summarySources: 0,
  unsupportedCitations: 0,
  outcomes: [],
  queryMs: 10,
};

describe("answer report", () => {
  it("tables every answer measure", () => {
    const table = answerTable(evaluation);
    expect(table).toContain("| gold answer in the callout | 75.0 % |");
    expect(table).toContain("| token F1 (callout, answerable) | 50.0 % |");
    expect(table).toContain("| abstention recall | 50.0 % |");
    expect(table).toContain("| abstentions by reason | no_documents 0, low_relevance 1, not_answerable 0 |");
    expect(answerTable({ ...evaluation, abstentionPrecision: Number.NaN })).toContain("| abstention precision | n/a |");
  });

  it("charts the shares as bars scaled to 320 pixels, and puts the chart in the HTML report", () => {
    const chart = answerChart(evaluation);
    expect(chart).toContain('width="240"'); // gold answer in the callout: 0.75 × 320
    expect(chart).toContain("abstention recall");
    expect(htmlReport("answers", { "data set": "x" }, [], evaluation)).toContain(chart);
  });
});
