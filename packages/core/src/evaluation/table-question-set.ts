/**
 * A table question set in the layout of `../shared/data/qa/wikitablequestions-150`
 * (WikiTableQuestions, Pasupat and Liang, 2015): `questions.jsonl`, one
 * `{"_id", "question", "answers": [...], "table_file": "tables/203-740.csv"}` a line, where
 * `answers` is one answer whose items are all needed, and the tables as CSV files written with
 * backslash escapes (`\"` for a quote, `\\` for a backslash: Python's
 * `csv.reader(escapechar='\\', doublequote=False)`).
 *
 * Halves (the set's README): the tables whose `table_file` sorts first (code-unit order) make the
 * `calibration` half (for tuning), the rest the `report` half (for reporting only); with an odd
 * number of tables the report half has the extra one.
 */
import { readFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { parse } from "csv-parse/sync";
import Papa from "papaparse";
import { z } from "zod";
import { DocqaError } from "../errors/docqa-error.js";
import { readJsonLines } from "./question-set.js";

/** The splits of a table set: one half, or `all`. */
export const tableSplits = ["calibration", "report", "all"] as const;

/** A split of a table set. */
export type TableSplit = (typeof tableSplits)[number];

/** One table question. */
export interface TableQuestion {
  id: string;
  question: string;
  /** The items of the one answer, all needed. */
  answers: string[];
  /** The table's path relative to the set folder, as in the file (`tables/203-740.csv`). */
  tableFile: string;
}

/** A loaded table set. */
export interface TableQuestionSet {
  folder: string;
  questions: TableQuestion[];
  /** Every table file of the set, sorted. */
  tables: string[];
  /** The tables of the calibration half (a set of `tableFile` values). */
  calibrationTables: ReadonlySet<string>;
}

const lineSchema = z.object({
  _id: z.union([z.string(), z.number()]),
  question: z.string().min(1),
  answers: z.array(z.string()).min(1),
  table_file: z.string().min(1),
});

/**
 * Loads `questions.jsonl` of the table set in `folder` (the tables are read when asked, by
 * {@link readTableAsCsv}).
 *
 * @throws {DocqaError} `invalid_request` naming the line of a malformed question.
 */
export async function loadTableQuestionSet(folder: string): Promise<TableQuestionSet> {
  const lines = await readJsonLines(
    join(folder, "questions.jsonl"),
    lineSchema,
    "a table question ({_id, question, answers[], table_file})",
  );
  const questions = lines.map(({ value }) => ({
    id: String(value._id),
    question: value.question,
    answers: value.answers,
    tableFile: value.table_file,
  }));
  const tables = [...new Set(questions.map((question) => question.tableFile))].sort();
  return { folder, questions, tables, calibrationTables: new Set(tables.slice(0, Math.floor(tables.length / 2))) };
}

/** The questions of `split`, in file order. */
export function tableSplitQuestions(set: TableQuestionSet, split: TableSplit): TableQuestion[] {
  if (split === "all") return [...set.questions];
  const calibration = split === "calibration";
  return set.questions.filter((question) => set.calibrationTables.has(question.tableFile) === calibration);
}

/**
 * A table file of the set rewritten as a standard CSV (RFC 4180: fields quoted where needed, a
 * quote doubled), as a user's spreadsheet export would be: read with `csv-parse` (quote `"`,
 * escape `\`, rows of uneven length kept), written with Papa Parse's `unparse`.
 *
 * @throws {DocqaError} `invalid_request` when the file is not CSV in that dialect.
 */
export function tableFileToCsv(content: string, name = "table"): string {
  let rows: string[][];
  try {
    rows = parse(content, { quote: '"', escape: "\\", relax_column_count: true, bom: true }) as string[][];
  } catch (error) {
    throw new DocqaError("invalid_request", `${name} is not a backslash-escaped CSV table: ${(error as Error).message}`, {
      component: "evaluation",
      cause: error,
    });
  }
  return `${Papa.unparse(rows, { newline: "\n" })}\n`;
}

/**
 * Reads the table `tableFile` (relative to the set folder) and returns it as a standard CSV
 * ({@link tableFileToCsv}).
 *
 * @throws {DocqaError} `invalid_request` when `tableFile` leads outside the set folder or is not CSV.
 */
export async function readTableAsCsv(set: TableQuestionSet, tableFile: string): Promise<string> {
  const folder = resolve(set.folder);
  const path = resolve(folder, tableFile);
  if (!path.startsWith(folder + sep))
    throw new DocqaError("invalid_request", `table_file ${tableFile} is outside the set folder ${set.folder}`, { component: "evaluation" });
  return tableFileToCsv(await readFile(path, "utf8"), tableFile);
}
