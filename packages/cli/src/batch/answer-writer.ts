/**
 * Writes the answers of `docqa ask --file`, one per question as it comes: JSON Lines (the set A
 * `/predict` body with the question's `id`, `outcome`, `latency_ms` and `error`) or CSV (one row
 * per question, the answer and the cited documents), to a file or standard output; and reads an
 * earlier output back for `--resume`.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import type { BatchAnswer } from "@docqa/core";
import Papa from "papaparse";

/** Layout of the answers. */
export type AnswerFormat = "jsonl" | "csv";

/** The layouts, for option validation and help. */
export const answerFormats: readonly AnswerFormat[] = ["jsonl", "csv"];

/** The part of a `/predict` body the CSV layout reads (the JSON Lines layout writes the whole body). */
export interface PredictBody {
  answer: { callout_answer: string };
  sources: Record<string, { metadata?: Record<string, unknown> }>;
  thread_id?: string | undefined;
  answer_mode?: string | undefined;
  [field: string]: unknown;
}

/** The layout for `--output path`: CSV for a `.csv` file, else JSON Lines. */
export function answerFormatFor(path: string | undefined): AnswerFormat {
  return path !== undefined && extname(path).toLowerCase() === ".csv" ? "csv" : "jsonl";
}

/**
 * The JSON Lines record of an answer: `id`, then the whole `/predict` body, then `outcome`
 * (`answered`, `abstained`, `failed`), `latency_ms` and `error` (null, or `{code, message}`).
 * A failed question has no body; its record carries the question as `input`.
 */
export function answerRecord(answer: BatchAnswer<PredictBody>): Record<string, unknown> {
  const latency = Math.round(answer.latencyMs);
  if (answer.result === undefined) {
    return {
      id: answer.question.id,
      input: answer.question.question,
      thread_id: answer.question.threadId ?? null,
      outcome: answer.outcome,
      latency_ms: latency,
      error: answer.error ?? null,
    };
  }
  return { id: answer.question.id, ...answer.result, outcome: answer.outcome, latency_ms: latency, error: null };
}

/** CSV columns, in order. */
export const csvColumns = [
  "id",
  "question",
  "outcome",
  "answer",
  "sources",
  "thread_id",
  "answer_mode",
  "latency_ms",
  "error_code",
  "error_message",
] as const;

/** The CSV row of an answer; `sources` lists the cited documents as `doc_1=<doc_id>; doc_2=<doc_id>`. */
export function answerRow(answer: BatchAnswer<PredictBody>): Record<(typeof csvColumns)[number], string | number> {
  const result = answer.result;
  return {
    id: answer.question.id,
    question: answer.question.question,
    outcome: answer.outcome,
    answer: result?.answer.callout_answer ?? "",
    sources: Object.entries(result?.sources ?? {})
      .map(([key, source]) => `${key}=${String(source.metadata?.doc_id ?? "")}`)
      .join("; "),
    thread_id: result?.thread_id ?? answer.question.threadId ?? "",
    answer_mode: result?.answer_mode ?? "",
    latency_ms: Math.round(answer.latencyMs),
    error_code: answer.error?.code ?? "",
    error_message: answer.error?.message ?? "",
  };
}

/** Writes answers one at a time, waiting when the stream is full. */
export interface AnswerWriter {
  write(answer: BatchAnswer<PredictBody>): Promise<void>;
  /** Flushes and closes a file (standard output is left open). */
  close(): Promise<void>;
}

/**
 * Opens the output: `path` (created or truncated; appended to with `append`), or standard output
 * when `path` is undefined. In append mode a missing final newline (a run killed mid-line) is
 * added first, and the CSV header is written only to an empty file.
 */
export async function openAnswerWriter(
  path: string | undefined,
  format: AnswerFormat,
  options: { append?: boolean; stdout?: NodeJS.WritableStream } = {},
): Promise<AnswerWriter> {
  let existing = "";
  if (path !== undefined && options.append) existing = await readFile(path, "utf8").catch(() => "");
  const stream = path === undefined ? (options.stdout ?? process.stdout) : createWriteStream(path, { flags: options.append ? "a" : "w" });
  const put = async (text: string) => {
    if (!stream.write(text)) await once(stream, "drain");
  };
  if (existing !== "" && !existing.endsWith("\n")) await put("\n");
  if (format === "csv" && existing.trim() === "") await put(`${Papa.unparse([csvColumns as unknown as string[]])}\n`);
  return {
    async write(answer) {
      if (format === "jsonl") await put(`${JSON.stringify(answerRecord(answer))}\n`);
      else await put(`${Papa.unparse([answerRow(answer)], { header: false, columns: [...csvColumns] })}\n`);
    },
    async close() {
      if (path === undefined) return;
      await new Promise<void>((resolve, reject) =>
        (stream as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/**
 * Ids of questions that already have an answer (a record without error) in an earlier output,
 * for `--resume`; failed questions are asked again. Lines that cannot be read (the last line of a
 * run killed mid-write) are ignored. Empty when the file does not exist.
 */
export async function answeredIds(path: string, format: AnswerFormat): Promise<Set<string>> {
  const content = await readFile(path, "utf8").catch(() => "");
  const ids = new Set<string>();
  if (format === "csv") {
    const parsed = Papa.parse<Record<string, string>>(content, { header: true, skipEmptyLines: "greedy" });
    for (const row of parsed.data) if (row.id && !row.error_code && row.outcome && row.outcome !== "failed") ids.add(row.id);
    return ids;
  }
  for (const line of content.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record = JSON.parse(line) as { id?: unknown; error?: unknown };
      if (typeof record.id === "string" && (record.error === null || record.error === undefined)) ids.add(record.id);
    } catch {
      // A line cut short by an interrupted run: its question is asked again.
    }
  }
  return ids;
}
