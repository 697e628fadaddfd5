/**
 * The answer side of `docqa eval`: loads a SQuAD-layout folder, a question set (`.jsonl` with
 * `--documents`) or a table set (`questions.jsonl` + `tables/`), selects the questions (`--split`
 * of a table set, then `--sample N --seed S`, then `--limit`), ingests what the pending questions
 * need, answers them (appending each to `--results` when given, skipping those already there with
 * `--resume`), and computes the figures from the records of the selected questions (from the
 * results file when there is one).
 */
import { basename, resolve } from "node:path";
import { DocqaError, type RagService } from "@docqa/core";
import {
  type AnswerEvaluation,
  type AnswerRecord,
  type AnswerScorer,
  answerQuestions,
  configurationDigest,
  createTableIngestion,
  dataSetRole,
  defaultSampleSeed,
  type EvaluationQuestion,
  evaluationPrincipal,
  ingestSquadContexts,
  loadQuestionSet,
  loadSquadDataset,
  loadTableQuestionSet,
  openResultsFile,
  type ResultsFile,
  type RunHeader,
  sampleMethod,
  sampleQuestions,
  squadQuestions,
  summarizeAnswers,
  type TableSplit,
  tableEvaluationQuestions,
  tableSplits,
} from "@docqa/core/evaluation";
import { findFiles, supportedExtensions } from "@docqa/core/ingestion";

/** The layouts of answer sets. */
export type AnswerSetLayout = "squad" | "questions" | "tables";

/** Options of {@link runAnswerEvaluation}. */
export interface AnswerEvaluationOptions {
  layout: AnswerSetLayout;
  /** The set's folder or question file, as given. */
  path: string;
  /** Question sets: files and folders to ingest and ask about. */
  documents?: readonly string[] | undefined;
  /** Table sets: `calibration`, `report` or `all` (default). */
  split?: string | undefined;
  /** Draw this many questions (after the split). */
  sample?: number | undefined;
  /** Seed of the sample (default {@link defaultSampleSeed}). */
  seed?: number | undefined;
  /** Then keep the first `limit`. */
  limit?: number | undefined;
  /** The results file (JSON Lines) to append to. */
  results?: string | undefined;
  /** Continue the results file: skip the questions it holds. */
  resume?: boolean | undefined;
  onProgress?: ((phase: "ingest" | "query", done: number, total: number) => void) | undefined;
}

/** What a report prints above its figures (also in `--json` as `details`). */
export interface AnswerRunDetails {
  "data set": string;
  split: string;
  role: string;
  questions: string;
  selection: string;
  answered: string;
  answerer: string;
  "embedding model": string;
  configuration: string;
  "results file"?: string;
  documents?: string;
}

/** The outcome of {@link runAnswerEvaluation}. */
export interface AnswerRun {
  details: AnswerRunDetails;
  /** The selection, as numbers (for `--json`). */
  selection: {
    split: string;
    role: string;
    setQuestions: number;
    splitQuestions: number;
    sample: number | null;
    seed: number | null;
    sampleMethod: string | null;
    limit: number | null;
    selected: number;
    askedThisRun: number;
    fromResultsFile: number;
  };
  evaluation: AnswerEvaluation;
}

const questionSetOrganisation = "answer-eval";
const squadOrganisation = "squad-eval";

/**
 * Runs the answer evaluation of `options.path` on `service`.
 *
 * @throws {DocqaError} `invalid_request` for a split on a set without splits, an unknown split, a
 *   question set without `--documents`, documents that hold no supported file, a malformed set,
 *   or a results file that exists without `--resume` or was written by another set or settings.
 */
export async function runAnswerEvaluation(service: RagService, options: AnswerEvaluationOptions): Promise<AnswerRun> {
  const loaded = await loadAnswerSet(service, options);
  const sampled =
    options.sample === undefined ? loaded.questions : sampleQuestions(loaded.questions, options.sample, options.seed ?? defaultSampleSeed);
  const selected = options.limit === undefined ? sampled : sampled.slice(0, options.limit);

  await service.ready();
  const health = await service.health();
  const answerer =
    health.chatModel?.status === "ready" && health.chatModel.model ? `${health.answerer} (${health.chatModel.model})` : health.answerer;
  const embeddingModel = health.embeddings.status === "ready" ? health.embeddings.model : "none (BM25 only)";
  const header: RunHeader = {
    type: "run",
    dataset: basename(resolve(options.path)),
    scorer: loaded.scorer,
    answerer,
    embeddingModel,
    configuration: configurationDigest(service.config),
    startedAt: new Date().toISOString(),
  };
  const resultsFile: ResultsFile | undefined =
    options.results === undefined ? undefined : await openResultsFile(options.results, header, { resume: options.resume === true });
  const pending = selected.filter((question) => !resultsFile?.done.has(question.id));

  const started = performance.now();
  const asked: AnswerRecord[] = [];
  if (pending.length > 0) {
    await loaded.ingest(options.onProgress);
    asked.push(
      ...(await answerQuestions(service, pending, {
        scorer: loaded.scorer,
        orgId: loaded.orgId,
        prepare: loaded.prepare,
        onRecord: resultsFile ? (record) => resultsFile.append(record) : undefined,
        onProgress: options.onProgress,
      })),
    );
  }
  const queryMs = performance.now() - started;
  const records = resultsFile ? await resultsFile.read() : new Map(asked.map((record) => [record.id, record]));
  const chosen = selected.flatMap((question) => {
    const record = records.get(question.id);
    return record ? [record] : [];
  });
  const evaluation = summarizeAnswers(chosen, loaded.scorer, queryMs);

  const role = dataSetRole(options.path, loaded.split);
  const seed = options.sample === undefined ? null : (options.seed ?? defaultSampleSeed);
  const fromResultsFile = selected.length - pending.length;
  const details: AnswerRunDetails = {
    "data set": resolve(options.path),
    split: loaded.split,
    role: `${role.role}: ${role.note}`,
    questions: `${loaded.setQuestions} in the set, ${loaded.questions.length} in the split`,
    selection:
      (options.sample === undefined
        ? "every question of the split"
        : `a fixed random sample of ${Math.min(options.sample, loaded.questions.length)} (seed ${seed}; ${sampleMethod})`) +
      (options.limit === undefined ? "" : `, the first ${options.limit}`) +
      ` = ${selected.length} questions`,
    answered: `${pending.length} asked in this run, ${fromResultsFile} from the results file; ${evaluation.failed} failed`,
    answerer,
    "embedding model": embeddingModel,
    configuration: header.configuration,
  };
  if (options.results !== undefined) details["results file"] = resolve(options.results);
  if (options.layout === "questions") details.documents = (options.documents ?? []).join(", ");
  return {
    details,
    selection: {
      split: loaded.split,
      role: role.role,
      setQuestions: loaded.setQuestions,
      splitQuestions: loaded.questions.length,
      sample: options.sample ?? null,
      seed,
      sampleMethod: options.sample === undefined ? null : sampleMethod,
      limit: options.limit ?? null,
      selected: selected.length,
      askedThisRun: pending.length,
      fromResultsFile,
    },
    evaluation,
  };
}

/** A loaded answer set: its questions (of the split), how they are scored, and what asking them needs. */
interface LoadedAnswerSet {
  questions: EvaluationQuestion[];
  setQuestions: number;
  split: string;
  scorer: AnswerScorer;
  orgId: string | ((question: EvaluationQuestion) => string);
  /** Ingests what every question needs (SQuAD paragraphs, the question set's documents). */
  ingest(onProgress: AnswerEvaluationOptions["onProgress"]): Promise<void>;
  /** Per question (a table set's table). */
  prepare?: ((question: EvaluationQuestion) => Promise<void>) | undefined;
}

async function loadAnswerSet(service: RagService, options: AnswerEvaluationOptions): Promise<LoadedAnswerSet> {
  if (options.layout !== "tables" && options.split !== undefined && options.split !== "all")
    throw new DocqaError(
      "invalid_request",
      `--split is for table sets (${tableSplits.join(", ")}); a SQuAD folder or a question set is one split (the calibration and test sets are separate folders)`,
      { component: "eval" },
    );
  if (options.layout === "squad") {
    const dataset = await loadSquadDataset(options.path);
    return {
      questions: squadQuestions(dataset),
      setQuestions: dataset.questions.length,
      split: "all",
      scorer: "alternatives",
      orgId: squadOrganisation,
      ingest: (onProgress) => ingestSquadContexts(service, dataset, squadOrganisation, onProgress),
    };
  }
  if (options.layout === "questions") {
    const documents = options.documents ?? [];
    if (documents.length === 0)
      throw new DocqaError(
        "invalid_request",
        `${options.path} is a question set: name the documents to ask about with --documents <paths>`,
        { component: "eval" },
      );
    const questions = await loadQuestionSet(options.path);
    return {
      questions,
      setQuestions: questions.length,
      split: "all",
      scorer: "alternatives",
      orgId: questionSetOrganisation,
      ingest: (onProgress) => ingestDocuments(service, documents, onProgress),
    };
  }
  const split = (options.split ?? "all") as TableSplit;
  if (!tableSplits.includes(split))
    throw new DocqaError("invalid_request", `unknown --split ${options.split}: a table set has ${tableSplits.join(", ")}`, {
      component: "eval",
    });
  const set = await loadTableQuestionSet(options.path);
  // Each table is ingested into its own organisation before its first question.
  const ingestion = createTableIngestion(service, set);
  return {
    questions: tableEvaluationQuestions(set, split),
    setQuestions: set.questions.length,
    split,
    scorer: "all-items",
    orgId: (question) => ingestion.orgId(question),
    ingest: async () => {},
    prepare: (question) => ingestion.prepare(question),
  };
}

/** Ingests the files and folders of a question set into its organisation, readable by the evaluator. */
async function ingestDocuments(
  service: RagService,
  documents: readonly string[],
  onProgress: AnswerEvaluationOptions["onProgress"],
): Promise<void> {
  const { files } = await findFiles([...documents], supportedExtensions);
  if (files.length === 0)
    throw new DocqaError("invalid_request", `no supported document found in ${documents.join(", ")}`, { component: "eval" });
  await service.ingestFiles(
    {
      orgId: questionSetOrganisation,
      principal: evaluationPrincipal,
      uploader: evaluationPrincipal.userName,
      files: files.map((found) => ({ path: found.path, docId: found.relativePath })),
      metadata: { acl: "|user:_all_|", owner_id: evaluationPrincipal.userName },
    },
    { onProgress: (progress) => onProgress?.("ingest", progress.files.processed, files.length) },
  );
}
