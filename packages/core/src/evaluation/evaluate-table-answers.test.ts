import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { answerQuestions, evaluationPrincipal } from "./evaluate-answers.js";
import { createTableIngestion, tableEvaluationQuestions, tableOrganisation } from "./evaluate-table-answers.js";
import { loadTableQuestionSet } from "./table-question-set.js";

const directory = mkdtempSync(join(tmpdir(), "docqa-table-eval-"));
const dataDir = join(directory, "index");
const folder = join(directory, "set");
let service: RagService;

beforeAll(() => {
  mkdirSync(join(folder, "tables"), { recursive: true });
  // Tables written for the test, in the set's dialect (backslash escapes).
  writeFileSync(
    join(folder, "tables", "1-1.csv"),
    '"Planet","Moons","Nickname"\n"Mars","2","\\"the red planet\\""\n"Jupiter","95","gas giant"\n',
  );
  writeFileSync(join(folder, "tables", "1-2.csv"), '"River","Length (km)"\n"Danube","2,850"\n"Rhine","1,233"\n');
  writeFileSync(join(folder, "tables", "1-3.csv"), '"broken\n');
  const questions = [
    { _id: "t1", question: "How many moons does Mars have?", answers: ["2"], table_file: "tables/1-1.csv" },
    { _id: "t2", question: "How long is the Danube?", answers: ["2850"], table_file: "tables/1-2.csv" },
    { _id: "t3", question: "How many moons does Jupiter have?", answers: ["95"], table_file: "tables/1-1.csv" },
    { _id: "t4", question: "What is broken?", answers: ["x"], table_file: "tables/1-3.csv" },
  ];
  writeFileSync(join(folder, "questions.jsonl"), `${questions.map((question) => JSON.stringify(question)).join("\n")}\n`);
  service = createRagService({
    config: { stores: { dataDir }, embeddings: { provider: "none" }, logging: { level: "silent" }, ingestion: { useRaptor: false } },
  });
});
afterAll(async () => {
  await service.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("table set evaluation", () => {
  it("ingests each table once, as a standard CSV, into its own organisation, and records a table that fails", async () => {
    const set = await loadTableQuestionSet(folder);
    const questions = tableEvaluationQuestions(set, "all");
    expect(questions[0]).toMatchObject({ answerable: true, goldDocuments: [], tableFile: "tables/1-1.csv" });
    const ingestion = createTableIngestion(service, set);
    const records = await answerQuestions(service, questions, {
      scorer: "all-items",
      orgId: (question) => ingestion.orgId(question),
      prepare: (question) => ingestion.prepare(question),
    });
    expect(ingestion.ingested).toBe(3);
    expect(records.map((record) => record.error?.code ?? null)).toEqual([null, null, null, "invalid_request"]);
    expect(records[3]?.error?.message).toContain("tables/1-3.csv is not a backslash-escaped CSV table");
    expect(records.every((record) => record.retrieved === null && !record.hasGoldDocuments)).toBe(true);

    // The planets table is searchable in its organisation only, with its cells unescaped.
    const search = (orgId: string, query: string) => service.search({ orgId, principal: evaluationPrincipal, query });
    const planets = await search(tableOrganisation("tables/1-1.csv"), "Mars red planet moons");
    expect(planets.results[0]?.chunk.docId).toMatch(/^1-1\.csv/);
    expect(planets.results.map((result) => result.chunk.text).join("\n")).toContain('"the red planet"');
    expect(planets.results.map((result) => result.chunk.text).join("\n")).not.toContain("\\");
    expect((await search(tableOrganisation("tables/1-2.csv"), "Mars red planet moons")).results).toEqual([]);
  });
});
