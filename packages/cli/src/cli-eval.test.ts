/**
 * End-to-end tests of the built `docqa eval` on deterministic slices of ../shared/data: BEIR
 * metrics for BM25 on 20 SciFact queries with an HTML report, and answer metrics on 40 SQuAD 2.0
 * questions.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { describe, expect, it } from "vitest";
import { bm25Only, built, runDocqaOk } from "./testing/run-docqa.js";

describe.skipIf((!built || !sharedDataPath("ir", "scifact")) && !isContinuousIntegration())("docqa eval on deterministic slices", () => {
  it("reports BEIR metrics for BM25 on the first 20 SciFact queries, with an HTML report", async () => {
    const report = join(mkdtempSync(join(tmpdir(), "docqa-eval-")), "report.html");
    const { stdout } = await runDocqaOk(
      [
        "eval",
        sharedDataPath("ir", "scifact") as string,
        "--configs",
        "bm25",
        "--limit",
        "20",
        "--json",
        "--no-progress",
        "--report",
        report,
      ],
      bm25Only,
    );
    const { results } = JSON.parse(stdout) as { results: { name: string; metrics: Record<string, number> }[] };
    expect(results.map((result) => result.name)).toEqual(["bm25"]);
    const metrics = results[0]?.metrics as Record<string, number>;
    expect(metrics.queries).toBe(20);
    expect(metrics.ndcgAt10).toBeCloseTo(0.686807, 5);
    expect(metrics.recallAt10).toBeCloseTo(0.85, 10);
    expect(metrics.recallAt100).toBeCloseTo(0.9, 10);
    expect(metrics.mrrAt10).toBeCloseTo(0.633333, 5);
    const html = readFileSync(report, "utf8");
    expect(html).toContain("<svg");
    expect(html).toContain("<td>bm25</td>");
  }, 120_000);

  it("reports answer metrics on the first 40 SQuAD 2.0 questions", async () => {
    const { stdout } = await runDocqaOk(
      ["eval", sharedDataPath("qa", "squad-v2-dev-2articles") as string, "--limit", "40", "--json", "--no-progress"],
      bm25Only,
    );
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ answerable: 17, unanswerable: 23, summarySources: 0, unsupportedCitations: 0 });
    expect(result.citedRate).toBeCloseTo(12 / 17, 10);
    expect(result.retrievedRate).toBeCloseTo(12 / 17, 10);
    expect(result.calloutContainsAnswerRate).toBeCloseTo(7 / 17, 10);
    expect(result.falseAbstentionRate).toBe(0);
    // One abstention is a substitution ("modern Europe" asked, "medieval Europe" written).
    expect(result.abstentionRecall).toBeCloseTo(3 / 23, 10);
    expect(result.abstentionPrecision).toBe(1);
    expect(result.abstentionReasons).toEqual({ no_documents: 0, low_relevance: 1, not_answerable: 2 });
  }, 120_000);
});
