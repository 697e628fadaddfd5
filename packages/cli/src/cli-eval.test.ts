/**
 * End-to-end tests of the built `docqa eval`: BEIR metrics for BM25 on 20 SciFact queries (a
 * deterministic slice of ../shared/data) with an HTML report; and the answer evaluation on small
 * sets written for the test (a SQuAD-layout folder and a table set): a seeded sample, the results
 * file and `--resume`, the split and role in the report header. Answer figures are not pinned:
 * they belong to the answerer, not to `docqa eval`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { bm25Only, built, runDocqa, runDocqaOk } from "./testing/run-docqa.js";

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
});

const directory = mkdtempSync(join(tmpdir(), "docqa-eval-sets-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;

/** A SQuAD-layout folder written for the test: three paragraphs, four answerable and two unanswerable questions. */
function writeSquadSet(): string {
  const folder = join(directory, "squad-tiny");
  mkdirSync(folder, { recursive: true });
  const contexts = [
    { _id: "p1", title: "Harbour", text: "The old harbour of Velmora was rebuilt in 1872 after a storm destroyed the piers." },
    { _id: "p2", title: "Lighthouse", text: "The Velmora lighthouse is 41 metres tall and its lamp was first lit by Anna Brek." },
    { _id: "p3", title: "Market", text: "The fish market of Velmora opens at five in the morning every day except Sunday." },
  ];
  const questions = [
    { _id: "q1", question: "When was the harbour of Velmora rebuilt?", answers: ["1872"], context_id: "p1", is_impossible: false },
    { _id: "q2", question: "How tall is the Velmora lighthouse?", answers: ["41 metres"], context_id: "p2", is_impossible: false },
    { _id: "q3", question: "Who first lit the lamp of the lighthouse?", answers: ["Anna Brek"], context_id: "p2", is_impossible: false },
    { _id: "q4", question: "When does the fish market open?", answers: ["at five in the morning"], context_id: "p3", is_impossible: false },
    { _id: "q5", question: "How many ships sank in the storm?", answers: [], context_id: "p1", is_impossible: true },
    { _id: "q6", question: "What is the price of a kilo of cod?", answers: [], context_id: "p3", is_impossible: true },
  ];
  writeFileSync(join(folder, "contexts.jsonl"), contexts.map(jsonLine).join(""));
  writeFileSync(join(folder, "questions.jsonl"), questions.map(jsonLine).join(""));
  return folder;
}

/** A table set written for the test, named like the shared one so its halves get their roles. */
function writeTableSet(): string {
  const folder = join(directory, "wikitablequestions-150");
  mkdirSync(join(folder, "tables"), { recursive: true });
  writeFileSync(join(folder, "tables", "1-1.csv"), '"Planet","Moons"\n"Mars","2"\n"Jupiter","95"\n');
  writeFileSync(join(folder, "tables", "1-2.csv"), '"River","Length (km)"\n"Danube","2,850"\n"Rhine","1,233"\n');
  const questions = [
    { _id: "t1", question: "How many moons does Mars have?", answers: ["2"], table_file: "tables/1-1.csv" },
    { _id: "t2", question: "How long is the Danube?", answers: ["2850"], table_file: "tables/1-2.csv" },
    { _id: "t3", question: "How long is the Rhine?", answers: ["1,233"], table_file: "tables/1-2.csv" },
  ];
  writeFileSync(join(folder, "questions.jsonl"), questions.map(jsonLine).join(""));
  return folder;
}

interface AnswerReport {
  details: Record<string, string>;
  selection: {
    split: string;
    role: string;
    sample: number | null;
    seed: number | null;
    selected: number;
    askedThisRun: number;
    fromResultsFile: number;
  };
  questions: number;
  answerable: number;
  unanswerable: number;
  citationPrecision: number | null;
  latency: { p50Ms: number | null };
  outcomes: { id: string }[];
}

describe.skipIf(!built && !isContinuousIntegration())("docqa eval on answer sets written for the test", () => {
  it("answers a seeded sample into a results file, resumes it, and reports from the file", async () => {
    const squad = writeSquadSet();
    const results = join(directory, "squad-results.jsonl");
    const first = JSON.parse(
      (await runDocqaOk(["eval", squad, "--sample", "4", "--seed", "7", "--results", results, "--json", "--no-progress"], bm25Only)).stdout,
    ) as AnswerReport;
    expect(first.selection).toMatchObject({
      split: "all",
      role: "unlisted",
      sample: 4,
      seed: 7,
      selected: 4,
      askedThisRun: 4,
      fromResultsFile: 0,
    });
    expect(first.questions).toBe(4);
    expect(first.details["data set"]).toBe(squad);
    expect(first.latency.p50Ms).toBeGreaterThan(0);
    expect(readFileSync(results, "utf8").trimEnd().split("\n")).toHaveLength(5);

    // Without --resume the file is not touched.
    const refused = await runDocqa(["eval", squad, "--sample", "5", "--seed", "7", "--results", results, "--no-progress"], bm25Only);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("pass --resume");

    const second = JSON.parse(
      (
        await runDocqaOk(
          ["eval", squad, "--sample", "5", "--seed", "7", "--results", results, "--resume", "--json", "--no-progress"],
          bm25Only,
        )
      ).stdout,
    ) as AnswerReport;
    expect(second.selection).toMatchObject({ selected: 5, askedThisRun: 1, fromResultsFile: 4 });
    expect(second.questions).toBe(5);
    expect(second.answerable + second.unanswerable).toBe(5);
    // The larger sample holds the smaller one.
    expect(second.outcomes.map((outcome) => outcome.id)).toEqual(expect.arrayContaining(first.outcomes.map((outcome) => outcome.id)));
    expect(readFileSync(results, "utf8").trimEnd().split("\n")).toHaveLength(6);
  }, 120_000);

  it("runs one half of a table set, one organisation per table, with the split and its role in the report header", async () => {
    const tables = writeTableSet();
    const { stdout } = await runDocqaOk(["eval", tables, "--split", "report", "--no-progress"], bm25Only);
    expect(stdout).toContain(`data set: ${tables}`);
    expect(stdout).toContain("split: report");
    expect(stdout).toContain("role: reporting: the other 75 tables");
    expect(stdout).toContain("questions: 3 in the set, 2 in the split");
    expect(stdout).toContain("| questions scored (failed, left out) | 2 (0) |");
    expect(stdout).toContain("| gold answer in the callout (every item of the answer) |");

    const squad = writeSquadSet();
    const wrongSplit = await runDocqa(["eval", squad, "--split", "report", "--no-progress"], bm25Only);
    expect(wrongSplit.code).toBe(1);
    expect(wrongSplit.stderr).toContain("--split is for table sets");
  }, 120_000);
});
