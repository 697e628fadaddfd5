/**
 * A plain question set for answer evaluation: a JSONL file, one question a line, as
 * `{"question": "...", "answers": ["..."], "answerable": true, "document": "policy.md"}`.
 * `answers` are the acceptable answers (any one counts; empty for an unanswerable question);
 * `answerable` defaults to whether `answers` is non-empty; `document` (optional) names the
 * document that holds the answer: its id or file name, used for the "gold document cited" measure;
 * `id` is optional (default the line number).
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { DocqaError } from "../errors/docqa-error.js";

/** One question to evaluate. */
export interface EvaluationQuestion {
  id: string;
  question: string;
  /** Acceptable answers; empty for an unanswerable question. */
  answers: string[];
  answerable: boolean;
  /** Ids or file names of the documents that answer it; empty when unknown or unanswerable. */
  goldDocuments: string[];
}

const lineSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  question: z.string().min(1),
  answers: z.array(z.string()).default([]),
  answerable: z.boolean().optional(),
  document: z.union([z.string(), z.array(z.string())]).optional(),
});

/**
 * The lines of a JSON Lines file parsed with `schema`, each with its line number (1-based); blank
 * lines are skipped.
 *
 * @param shape - what a line should be, for the error message (`a question ({question, answers[]})`).
 * @throws {DocqaError} `invalid_request` naming the file and line of the first malformed line.
 */
export async function readJsonLines<Schema extends z.ZodType>(
  file: string,
  schema: Schema,
  shape: string,
): Promise<{ line: number; value: z.infer<Schema> }[]> {
  const parsed: { line: number; value: z.infer<Schema> }[] = [];
  for (const [index, line] of (await readFile(file, "utf8")).split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      parsed.push({ line: index + 1, value: schema.parse(JSON.parse(line)) });
    } catch (error) {
      throw new DocqaError("invalid_request", `${file} line ${index + 1} is not ${shape}: ${(error as Error).message}`, {
        component: "evaluation",
        cause: error,
      });
    }
  }
  return parsed;
}

/**
 * Loads a JSONL question set.
 *
 * @throws {DocqaError} `invalid_request` naming the line of a malformed question.
 */
export async function loadQuestionSet(file: string): Promise<EvaluationQuestion[]> {
  const lines = await readJsonLines(file, lineSchema, "a question ({question, answers[], answerable})");
  return lines.map(({ line, value }) => ({
    id: value.id === undefined ? String(line) : String(value.id),
    question: value.question,
    answers: value.answers,
    answerable: value.answerable ?? value.answers.length > 0,
    goldDocuments: value.document === undefined ? [] : Array.isArray(value.document) ? value.document : [value.document],
  }));
}
