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
 * Loads a JSONL question set.
 *
 * @throws {DocqaError} `invalid_request` naming the line of a malformed question.
 */
export async function loadQuestionSet(file: string): Promise<EvaluationQuestion[]> {
  const lines = (await readFile(file, "utf8")).split("\n");
  const questions: EvaluationQuestion[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let parsed: z.infer<typeof lineSchema>;
    try {
      parsed = lineSchema.parse(JSON.parse(line));
    } catch (error) {
      throw new DocqaError(
        "invalid_request",
        `${file} line ${index + 1} is not a question ({question, answers[], answerable}): ${(error as Error).message}`,
        {
          component: "evaluation",
          cause: error,
        },
      );
    }
    const documents = parsed.document === undefined ? [] : Array.isArray(parsed.document) ? parsed.document : [parsed.document];
    questions.push({
      id: parsed.id === undefined ? String(index + 1) : String(parsed.id),
      question: parsed.question,
      answers: parsed.answers,
      answerable: parsed.answerable ?? parsed.answers.length > 0,
      goldDocuments: documents,
    });
  });
  return questions;
}
