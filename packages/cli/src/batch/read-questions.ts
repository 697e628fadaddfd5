/**
 * Reads the questions of `docqa ask --file`: one question per line, JSON Lines (`id`, `question`,
 * optional `thread_id` and `user`), or CSV with a header row, from a file or standard input (`-`).
 * Every line is checked before any question is asked, so a typo on line 57 stops the batch before
 * it starts rather than half-way through.
 */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { type BatchQuestion, DocqaError } from "@docqa/core";
import Papa from "papaparse";

/** Layout of a questions file. */
export type QuestionFormat = "lines" | "jsonl" | "csv";

/** The layouts, for option validation and help. */
export const questionFormats: readonly QuestionFormat[] = ["lines", "jsonl", "csv"];

/**
 * The layout of a questions file: by extension (`.jsonl`/`.ndjson`: JSON Lines, `.csv`: CSV),
 * else by content (JSON Lines when the first non-blank line starts with `{`, else one question per
 * line). CSV is never guessed from content: a question may hold a comma.
 */
export function detectQuestionFormat(path: string, text: string): QuestionFormat {
  const extension = extname(path).toLowerCase();
  if (extension === ".jsonl" || extension === ".ndjson") return "jsonl";
  if (extension === ".csv") return "csv";
  const first = text.split(/\r?\n/).find((line) => line.trim() !== "");
  return first?.trimStart().startsWith("{") ? "jsonl" : "lines";
}

const invalid = (message: string) => new DocqaError("invalid_request", message, { component: "ask" });

/** A non-blank string or finite number as a string; ids and names are trimmed, a question is kept as written (as `/predict` receives it). */
const text = (value: unknown, trim = true): string | undefined => {
  if (typeof value === "string") return value.trim() === "" ? undefined : trim ? value.trim() : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
};

/** Field names accepted for each part of a question, first match wins (`_id`/`text`: BEIR and SQuAD files). */
const fieldNames = {
  id: ["id", "_id"],
  question: ["question", "query", "text"],
  threadId: ["thread_id"],
  user: ["user", "user_name"],
} as const;

function questionFrom(record: Record<string, unknown>, fallbackId: string, where: string): BatchQuestion {
  const pick = (names: readonly string[], trim = true) => {
    for (const name of names) {
      const value = text(record[name], trim);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const question = pick(fieldNames.question, false);
  if (question === undefined) throw invalid(`${where}: no question (give a non-empty "question" field)`);
  return { id: pick(fieldNames.id) ?? fallbackId, question, threadId: pick(fieldNames.threadId), user: pick(fieldNames.user) };
}

/**
 * Parses questions. Ids default to the line number (1-based; for CSV the header is line 1);
 * blank lines are skipped.
 *
 * @param source - name used in messages, for example the file path.
 * @throws {DocqaError} `invalid_request` naming the line for invalid JSON, a missing question, a
 *   CSV without a `question` column or with broken quoting, and for an id used twice
 *   (`--resume` relies on unique ids).
 */
export function parseQuestions(content: string, format: QuestionFormat, source: string): BatchQuestion[] {
  const body = content.replace(/^\uFEFF/, "");
  const questions: BatchQuestion[] = [];
  if (format === "csv") {
    const parsed = Papa.parse<Record<string, unknown>>(body, {
      header: true,
      skipEmptyLines: "greedy",
      transformHeader: (header) => header.trim().toLowerCase(),
    });
    const error = parsed.errors[0];
    if (error) throw invalid(`${source}: ${error.message}${error.row === undefined ? "" : ` (data row ${error.row + 1})`}`);
    if (!parsed.meta.fields?.some((field) => (fieldNames.question as readonly string[]).includes(field))) {
      throw invalid(`${source}: the CSV header has no "question" column (columns: ${parsed.meta.fields?.join(", ") || "none"})`);
    }
    parsed.data.forEach((row, index) => {
      questions.push(questionFrom(row, String(index + 2), `${source} data row ${index + 1}`));
    });
  } else {
    body.split(/\r?\n/).forEach((line, index) => {
      if (line.trim() === "") return;
      const lineNumber = String(index + 1);
      if (format === "lines") {
        questions.push({ id: lineNumber, question: line.trim() });
        return;
      }
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw invalid(`${source} line ${lineNumber}: not valid JSON (${(error as Error).message})`);
      }
      if (typeof record !== "object" || record === null || Array.isArray(record)) {
        throw invalid(`${source} line ${lineNumber}: expected a JSON object such as {"id": "q1", "question": "..."}`);
      }
      questions.push(questionFrom(record as Record<string, unknown>, lineNumber, `${source} line ${lineNumber}`));
    });
  }
  const seen = new Map<string, number>();
  questions.forEach((question, index) => {
    const earlier = seen.get(question.id);
    if (earlier !== undefined) {
      throw invalid(
        `${source}: question id "${question.id}" is used twice (questions ${earlier + 1} and ${index + 1}); ids must be unique`,
      );
    }
    seen.set(question.id, index);
  });
  return questions;
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads and parses the questions of `path` (`-`: `stdin`, default `process.stdin`).
 *
 * @throws {DocqaError} `not_found` when the file does not exist; `invalid_request` as {@link parseQuestions}.
 */
export async function readQuestions(
  path: string,
  options: { format?: QuestionFormat | undefined; stdin?: NodeJS.ReadableStream | undefined } = {},
): Promise<{ questions: BatchQuestion[]; format: QuestionFormat }> {
  let content: string;
  if (path === "-") content = await readStream(options.stdin ?? process.stdin);
  else {
    try {
      content = await readFile(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new DocqaError(
        code === "ENOENT" ? "not_found" : "invalid_request",
        code === "ENOENT" ? `questions file ${path} does not exist` : `cannot read ${path}: ${(error as Error).message}`,
        { component: "ask", cause: error },
      );
    }
  }
  const format = options.format ?? detectQuestionFormat(path === "-" ? "" : path, content);
  return { questions: parseQuestions(content, format, path === "-" ? "standard input" : path), format };
}
