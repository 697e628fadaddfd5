/**
 * The results file of `docqa eval --results <file.jsonl>`: a resumable record of an answer
 * evaluation, JSON Lines, appended one line at a time:
 *
 * - first a {@link RunHeader} (`"type": "run"`): the set, the answerer, the embedding model and a
 *   digest of the settings that shape answers;
 * - then one {@link AnswerRecord} (`"type": "answer"`) per question as soon as it is answered.
 *
 * `--resume` reads the file back, checks that it was written by the same set and settings, and
 * skips the questions already recorded without an error (failed ones are asked again; a later line
 * for a question replaces an earlier one). A line cut short by a killed run is ignored and its
 * question asked again. The report is computed from the file, so an interrupted run continues
 * where it stopped and reports every question. Records are keyed by question id: a sample, a
 * `--limit` or another split of the same set reuses the records of the questions it selects.
 */
import { createHash } from "node:crypto";
import { appendFile, readFile } from "node:fs/promises";
import { DocqaError } from "../errors/docqa-error.js";
import type { AnswerRecord, AnswerScorer } from "./evaluate-answers.js";

/** The first line of a results file. */
export interface RunHeader {
  type: "run";
  /** The set's folder or file name (`squad-v2-dev-test`). */
  dataset: string;
  scorer: AnswerScorer;
  /** The answerer (`extractive`, or the chat model). */
  answerer: string;
  /** The embedding model, or `none (BM25 only)`. */
  embeddingModel: string;
  /** {@link configurationDigest} of the service's settings. */
  configuration: string;
  /** ISO 8601 time the file was started. */
  startedAt: string;
}

/** What a results file already holds. */
export interface ResultsFileContent {
  header: RunHeader | undefined;
  /** The last record of each question, by id. */
  records: Map<string, AnswerRecord>;
}

/** Header fields that must agree for `--resume`. */
const resumeFields = ["dataset", "scorer", "answerer", "embeddingModel", "configuration"] as const;

/**
 * A digest (SHA-256, first 16 hex digits) of the settings that shape answers: the `embeddings`,
 * `models` (without the API key), `retrieval`, `answering` and `ingestion` sections of a resolved
 * configuration. Stores, logging and access are left out (a fresh temporary index each run).
 */
export function configurationDigest(config: {
  embeddings: unknown;
  models: Record<string, unknown>;
  retrieval: unknown;
  answering: unknown;
  ingestion: unknown;
}): string {
  const { hostedApiKey: _secret, ...models } = config.models;
  const shaping = {
    embeddings: config.embeddings,
    models,
    retrieval: config.retrieval,
    answering: config.answering,
    ingestion: config.ingestion,
  };
  return createHash("sha256").update(stableJson(shaping)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted, so the digest does not depend on the order settings were resolved in. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** Reads a results file; an absent file is empty. Lines that are not records are ignored. */
export async function readResultsFile(path: string): Promise<ResultsFileContent> {
  return parseResults(await readText(path));
}

async function readText(path: string): Promise<string> {
  return readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
}

function parseResults(content: string): ResultsFileContent {
  let header: RunHeader | undefined;
  const records = new Map<string, AnswerRecord>();
  for (const line of content.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // a line cut short by an interrupted run: its question is asked again
    }
    const type = (parsed as { type?: unknown })?.type;
    if (type === "run" && header === undefined) header = parsed as RunHeader;
    else if (type === "answer" && typeof (parsed as { id?: unknown }).id === "string")
      records.set((parsed as AnswerRecord).id, parsed as AnswerRecord);
  }
  return { header, records };
}

/** An open results file. */
export interface ResultsFile {
  /** Records already in the file when it was opened (empty for a new file). */
  readonly existing: ReadonlyMap<string, AnswerRecord>;
  /** Ids to skip: recorded without an error. */
  readonly done: ReadonlySet<string>;
  /** Appends one record as one line. */
  append(record: AnswerRecord): Promise<void>;
  /** Every record now in the file, the last per question. */
  read(): Promise<Map<string, AnswerRecord>>;
}

/**
 * Opens `path` for a run described by `header`. Without `resume`, the file must not exist or be
 * empty; with it, an existing file must have been written for the same set and settings.
 *
 * @throws {DocqaError} `invalid_request` when the file exists without `resume`, or when its header
 *   names another set, answerer, embedding model or configuration.
 */
export async function openResultsFile(path: string, header: RunHeader, options: { resume: boolean }): Promise<ResultsFile> {
  const raw = await readText(path);
  const content = parseResults(raw);
  if (raw.trim() !== "" && !options.resume)
    throw new DocqaError(
      "invalid_request",
      `${path} already holds results: pass --resume to continue that run, or name another file with --results`,
      { component: "evaluation" },
    );
  if (content.header) {
    const differing = resumeFields.filter((field) => content.header?.[field] !== header[field]);
    if (differing.length > 0)
      throw new DocqaError(
        "invalid_request",
        `${path} was written by another run (${differing.map((field) => `${field}: ${String(content.header?.[field])} there, ${header[field]} now`).join("; ")}): resume with the same set and settings, or name another file with --results`,
        { component: "evaluation" },
      );
  } else if (content.records.size > 0) {
    throw new DocqaError("invalid_request", `${path} has answer records but no run header: it is not a docqa eval results file`, {
      component: "evaluation",
    });
  }
  // A run killed mid-line left no newline: start on a fresh line.
  if (raw !== "" && !raw.endsWith("\n")) await appendFile(path, "\n");
  if (!content.header) await appendFile(path, `${JSON.stringify(header)}\n`);
  const done = new Set([...content.records.values()].filter((record) => record.error === null).map((record) => record.id));
  return {
    existing: content.records,
    done,
    append: (record) => appendFile(path, `${JSON.stringify(record)}\n`),
    read: async () => (await readResultsFile(path)).records,
  };
}
