import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { afterAll, describe, expect, it } from "vitest";
import { loadTableQuestionSet, readTableAsCsv, tableFileToCsv, tableSplitQuestions } from "./table-question-set.js";

const directory = mkdtempSync(join(tmpdir(), "docqa-table-set-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A set of four tables written for the test; "tables/10-1.csv" sorts before "tables/9-1.csv" (code-unit order). */
function writeSet(name: string, lines: string[]): string {
  const folder = join(directory, name);
  mkdirSync(join(folder, "tables"), { recursive: true });
  for (const table of ["10-1", "10-2", "9-1", "9-2"]) writeFileSync(join(folder, "tables", `${table}.csv`), `"a","b"\n"1","2"\n`);
  writeFileSync(join(folder, "questions.jsonl"), `${lines.join("\n")}\n`);
  return folder;
}

const question = (id: string, table: string, answers: string[] = ["x"]) =>
  JSON.stringify({ _id: id, question: `question ${id}?`, answers, table_file: `tables/${table}.csv` });

describe("table question sets", () => {
  it("splits by table: the half of the tables whose file name sorts first is the calibration half", async () => {
    const set = await loadTableQuestionSet(
      writeSet("halves", [
        question("q1", "9-2"),
        question("q2", "10-1", ["Chile", "Ecuador"]),
        question("q3", "9-1"),
        question("q4", "10-2"),
      ]),
    );
    expect(set.tables).toEqual(["tables/10-1.csv", "tables/10-2.csv", "tables/9-1.csv", "tables/9-2.csv"]);
    expect(tableSplitQuestions(set, "calibration").map((item) => item.id)).toEqual(["q2", "q4"]);
    expect(tableSplitQuestions(set, "report").map((item) => item.id)).toEqual(["q1", "q3"]);
    expect(tableSplitQuestions(set, "all").map((item) => item.id)).toEqual(["q1", "q2", "q3", "q4"]);
    expect(set.questions[1]).toEqual({ id: "q2", question: "question q2?", answers: ["Chile", "Ecuador"], tableFile: "tables/10-1.csv" });
  });

  it("names the line of a malformed question", async () => {
    const folder = writeSet("bad", [
      question("q1", "9-1"),
      JSON.stringify({ _id: "q2", question: "no answers", answers: [], table_file: "t.csv" }),
    ]);
    await expect(loadTableQuestionSet(folder)).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("line 2"),
    });
  });

  it("rewrites a backslash-escaped table as a standard CSV with the same cells", () => {
    const source = ['"name","glyph","note"', '"quote","\\"","say \\"hi\\""', '"backslash","\\\\","a, b"', '"short"'].join("\n");
    const csv = tableFileToCsv(source);
    expect(csv).toBe('name,glyph,note\nquote,"""","say ""hi"""\nbackslash,\\,"a, b"\nshort\n');
    expect(Papa.parse<string[]>(csv.trimEnd()).data).toEqual([
      ["name", "glyph", "note"],
      ["quote", '"', 'say "hi"'],
      ["backslash", "\\", "a, b"],
      ["short"],
    ]);
  });

  it("rejects a table that is not CSV, and a table path outside the set", async () => {
    expect(() => tableFileToCsv('"open quote never closed\n', "t.csv")).toThrow(/t\.csv is not a backslash-escaped CSV table/);
    const set = await loadTableQuestionSet(writeSet("outside", [question("q1", "9-1")]));
    await expect(readTableAsCsv(set, "../../etc/passwd")).rejects.toMatchObject({ code: "invalid_request" });
    expect(await readTableAsCsv(set, "tables/9-1.csv")).toBe("a,b\n1,2\n");
  });
});
