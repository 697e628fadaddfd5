import type { AnswerEvaluation } from "@docqa/core/evaluation";
import { describe, expect, it } from "vitest";
import { answerChart, answerTable, htmlReport, reportHeader } from "./evaluation-report.js";

const evaluation: AnswerEvaluation = {
  scorer: "alternatives",
  questions: 6,
  failed: 1,
  answered: 4,
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
  citationPrecision: 0.8,
  citedPassages: 5,
  calloutCitationRate: 1,
  answerModes: { model: 3, "extractive-fallback": 1, "empty-context": 2 },
  fallbackReasons: { unparseable_output: 1 },
  modelOutputs: 4,
  validJsonRate: 0.75,
  latency: { p50Ms: 812.4, p95Ms: 2400, meanMs: 1000 },
  generation: { answers: 3, outputTokens: 300, milliseconds: 15_000, tokensPerSecond: 20, includesPrompt: false },
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
    expect(table).toContain("| questions scored (failed, left out) | 6 (1) |");
    expect(table).toContain("| citation precision (cited passages holding a gold answer) | 80.0 % of 5 |");
    expect(table).toContain("| answered callouts carrying a citation | 100.0 % of 4 |");
    expect(table).toContain("| valid Answer JSON (model outputs) | 75.0 % of 4 |");
    expect(table).toContain("| extractive fallbacks by reason | unparseable_output 1 |");
    expect(table).toContain("| latency per question p50 / p95 | 812 ms / 2400 ms |");
    expect(table).toContain("| generation tokens/s | 20.0 (300 tokens over 3 answers) |");
    expect(answerTable({ ...evaluation, abstentionPrecision: Number.NaN })).toContain("| abstention precision | n/a |");
    const withoutCounts = answerTable({
      ...evaluation,
      generation: { ...evaluation.generation, tokensPerSecond: null },
      fallbackReasons: {},
    });
    expect(withoutCounts).toContain("| generation tokens/s | not reported by the service |");
    expect(withoutCounts).toContain("| extractive fallbacks by reason | none |");
    expect(answerTable({ ...evaluation, scorer: "all-items" })).toContain(
      "| gold answer in the callout (every item of the answer) | 75.0 % |",
    );
  });

  it("heads a report with the data set, its split and its role, one line each", () => {
    expect(reportHeader({ "data set": "/data/qa/squad-v2-dev-test", split: "all", role: "reporting: report only" })).toBe(
      "data set: /data/qa/squad-v2-dev-test\nsplit: all\nrole: reporting: report only\n",
    );
  });

  it("charts the shares as bars scaled to 320 pixels, and puts the chart in the HTML report", () => {
    const chart = answerChart(evaluation);
    expect(chart).toContain('width="240"'); // gold answer in the callout: 0.75 × 320
    expect(chart).toContain("abstention recall");
    expect(htmlReport("answers", { "data set": "x" }, [], evaluation)).toContain(chart);
  });
});
