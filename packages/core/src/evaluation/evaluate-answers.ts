/**
 * Answer evaluation: every question is answered through `predict` and recorded as an
 * {@link AnswerRecord} (what was answered, cited and how long it took); the figures are computed
 * from the records ({@link summarizeAnswers}), so a run written to a results file can be resumed
 * and reported from the file. Per question:
 *
 * - exact match and token F1 of the callout (citations removed) against the references, with
 *   SQuAD's normalisation (`answer-metrics.ts`): best over the references for sets whose answers
 *   are alternatives (SQuAD, question sets); against the items joined for a table set, whose
 *   answer is one list of items all needed (`table-answer-metrics.ts`). Over answerable questions
 *   ("HasAns"), and over all questions with SQuAD 2.0's rule (an abstention on an unanswerable
 *   question scores 1);
 * - gold answer in the callout (normalised containment; a table answer needs every item, numbers
 *   compared by value) and anywhere in the answer;
 * - retrieved: a gold document is among the chunks `search` returns (a RAPTOR summary counts for
 *   the documents it summarises); cited: a gold document is a cited source (for SQuAD, the gold
 *   paragraph); both only for questions that name gold documents;
 * - citation precision: the share of cited passages (over answered answerable questions) whose
 *   text holds a gold answer (for a table answer, at least one of its items, since the items of a
 *   list answer sit in different rows);
 * - cited callouts: the share of answered questions whose callout carries a citation marker that
 *   names a source;
 * - abstention precision (share of abstentions that were on unanswerable questions) and recall
 *   (share of unanswerable questions abstained on), with the reasons;
 * - valid JSON: the share of model outputs (`answerMode` `model` or `extractive-fallback`) that
 *   were Answer JSON: a fallback for `unparseable_output` or `empty_output` counts as invalid;
 * - latency of `predict` (p50/p95, nearest rank) and, when the service reports token counts,
 *   generation tokens per second (`generation-usage.ts`);
 * - cited summary nodes (a user cannot open them; target 0) and unsupported citations.
 *
 * A question whose `predict` throws is recorded with its error, left out of every figure and
 * counted as failed; resuming asks it again.
 */
import { basename } from "node:path";
import { citedKeys, stripCitations } from "../answering/citations.js";
import type { PredictResult, RagService } from "../service/rag-service.js";
import { containsAnswer } from "./answer-metrics.js";
import { generationUsage } from "./generation-usage.js";
import type { EvaluationQuestion } from "./question-set.js";
import type { SquadDataset } from "./squad-dataset.js";
import { type AnswerEvaluation, type AnswerRecord, type AnswerScorer, summarizeAnswers } from "./summarize-answers.js";
import { containsAnyItem } from "./table-answer-metrics.js";

export { normalizeAnswer } from "./answer-metrics.js";
export {
  type AnswerEvaluation,
  type AnswerOutcome,
  type AnswerRecord,
  type AnswerScorer,
  type GenerationSummary,
  invalidJsonFallbackReasons,
  type LatencySummary,
  nearestRankPercentile,
  outcomeOf,
  type RecordedCitation,
  summarizeAnswers,
} from "./summarize-answers.js";

/** Options of {@link evaluateAnswers} and {@link evaluateQuestions}. */
export interface EvaluateAnswersOptions {
  /** Organisation of the documents; default `squad-eval` (SQuAD) or `answer-eval`. */
  orgId?: string;
  /** Evaluate the first `limit` questions only. */
  limit?: number;
  /** SQuAD: the paragraphs are already ingested. */
  skipIngestion?: boolean;
  onProgress?: (phase: "ingest" | "query", done: number, total: number) => void;
}

/** Options of {@link answerQuestions}. */
export interface AnswerQuestionsOptions {
  scorer?: AnswerScorer | undefined;
  /** Organisation of the documents (default `answer-eval`), or one per question. */
  orgId?: string | ((question: EvaluationQuestion) => string) | undefined;
  /** Runs before a question is asked (a table set ingests its table). A throw is recorded as the question's error. */
  prepare?: ((question: EvaluationQuestion) => Promise<void>) | undefined;
  /** Receives each record as soon as it is made (a results file appends it). */
  onRecord?: ((record: AnswerRecord) => Promise<void> | void) | undefined;
  onProgress?: ((phase: "query", done: number, total: number) => void) | undefined;
}

/** The principal evaluations ask as: the documents are ingested readable by everyone. */
export const evaluationPrincipal = { userName: "evaluator@docqa.invalid", roles: [], groups: [] };

/** Upserts the paragraphs of a SQuAD-layout set into `orgId`, readable by everyone, 200 a batch. */
export async function ingestSquadContexts(
  service: RagService,
  dataset: SquadDataset,
  orgId: string,
  onProgress?: (phase: "ingest", done: number, total: number) => void,
): Promise<void> {
  const batch = 200;
  onProgress?.("ingest", 0, dataset.contexts.length);
  for (let start = 0; start < dataset.contexts.length; start += batch) {
    const documents = Object.fromEntries(
      dataset.contexts
        .slice(start, start + batch)
        .map((context) => [context.id, { title: context.title, content: context.text, metadata: { acl: "|user:_all_|" } }]),
    );
    await service.upsert({ orgId, principal: evaluationPrincipal, uploader: evaluationPrincipal.userName, documents });
    onProgress?.("ingest", Math.min(start + batch, dataset.contexts.length), dataset.contexts.length);
  }
}

/** The questions of a SQuAD-layout set, each with its paragraph as gold document. */
export function squadQuestions(dataset: SquadDataset): EvaluationQuestion[] {
  return dataset.questions.map((question) => ({
    id: question.id,
    question: question.question,
    answers: question.impossible ? [] : question.answers,
    answerable: !question.impossible,
    goldDocuments: [question.contextId],
  }));
}

/** Ingests the paragraphs of a SQuAD-layout set (unless skipped) and evaluates its questions. */
export async function evaluateAnswers(
  service: RagService,
  dataset: SquadDataset,
  options: EvaluateAnswersOptions = {},
): Promise<AnswerEvaluation> {
  const orgId = options.orgId ?? "squad-eval";
  if (!options.skipIngestion) await ingestSquadContexts(service, dataset, orgId, options.onProgress);
  return evaluateQuestions(service, squadQuestions(dataset), { ...options, orgId });
}

/** Answers every question against the documents of the organisation and aggregates the outcomes. */
export async function evaluateQuestions(
  service: RagService,
  questions: readonly EvaluationQuestion[],
  options: EvaluateAnswersOptions = {},
): Promise<AnswerEvaluation> {
  const asked = options.limit === undefined ? questions : questions.slice(0, options.limit);
  const started = performance.now();
  const records = await answerQuestions(service, asked, { orgId: options.orgId, onProgress: options.onProgress });
  return summarizeAnswers(records, "alternatives", performance.now() - started);
}

/**
 * Asks every question in turn and records what came back ({@link AnswerRecord}); `search` is
 * called too (after `predict`, so it does not share its latency) for questions that name gold
 * documents.
 */
export async function answerQuestions(
  service: RagService,
  questions: readonly EvaluationQuestion[],
  options: AnswerQuestionsOptions = {},
): Promise<AnswerRecord[]> {
  const scorer = options.scorer ?? "alternatives";
  const orgOf = (question: EvaluationQuestion) =>
    typeof options.orgId === "function" ? options.orgId(question) : (options.orgId ?? "answer-eval");
  const records: AnswerRecord[] = [];
  options.onProgress?.("query", 0, questions.length);
  for (const [index, question] of questions.entries()) {
    const record = await answerQuestion(service, question, orgOf(question), scorer, options.prepare);
    records.push(record);
    await options.onRecord?.(record);
    options.onProgress?.("query", index + 1, questions.length);
  }
  return records;
}

async function answerQuestion(
  service: RagService,
  question: EvaluationQuestion,
  orgId: string,
  scorer: AnswerScorer,
  prepare: AnswerQuestionsOptions["prepare"],
): Promise<AnswerRecord> {
  let answer: PredictResult;
  let latencyMs = 0;
  try {
    await prepare?.(question);
    const started = performance.now();
    answer = await service.predict({ orgId, principal: evaluationPrincipal, query: question.question, memory: false });
    latencyMs = performance.now() - started;
  } catch (error) {
    return failedRecord(question, error);
  }
  const retrieved =
    question.goldDocuments.length === 0
      ? null
      : (await service.search({ orgId, principal: evaluationPrincipal, query: question.question })).results.some((result) =>
          isGoldDocument(question, result.chunk.docId, result.chunk.metadata),
        );
  const references = question.answerable ? question.answers : [];
  const holdsAnswer = (text: string) => (scorer === "all-items" ? containsAnyItem(text, references) : containsAnswer(text, references));
  const citations = Object.entries(answer.sources).map(([key, source]) => ({
    key,
    docId: String(source.metadata.doc_id ?? ""),
    holdsAnswer: holdsAnswer(`${source.title}\n${source.page_content}`),
    goldDocument: isGoldDocument(question, source.metadata.doc_id, source.metadata),
    summary: typeof source.metadata.raptor_level === "number",
  }));
  const callout = answer.answer.callout_answer;
  return {
    type: "answer",
    id: question.id,
    question: question.question,
    answerable: question.answerable,
    answers: references,
    hasGoldDocuments: question.goldDocuments.length > 0,
    callout,
    lists: [...answer.answer.positive_list, ...answer.answer.negative_list, ...answer.answer.info_list].map(stripCitations).join(" "),
    abstained: answer.abstained,
    abstentionReason: answer.abstentionReason,
    abstentionCheck: answer.abstained ? (answer.answerability?.check ?? "answerer") : null,
    signals: answer.answerability?.signals,
    answerMode: answer.answerMode,
    fallbackReason: answer.generation.fallbackReason,
    model: answer.generation.model,
    citations,
    calloutCitations: citedKeys(callout).filter((key) => key in answer.sources).length,
    retrieved,
    unsupportedCitations: answer.unsupportedCitations.length,
    latencyMs: Math.round(latencyMs * 10) / 10,
    generation: generationUsage(answer),
    error: null,
  };
}

function failedRecord(question: EvaluationQuestion, error: unknown): AnswerRecord {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "error";
  return {
    type: "answer",
    id: question.id,
    question: question.question,
    answerable: question.answerable,
    answers: question.answerable ? question.answers : [],
    hasGoldDocuments: question.goldDocuments.length > 0,
    callout: "",
    lists: "",
    abstained: false,
    abstentionReason: null,
    abstentionCheck: null,
    answerMode: null,
    fallbackReason: null,
    model: null,
    citations: [],
    calloutCitations: 0,
    retrieved: null,
    unsupportedCitations: 0,
    latencyMs: 0,
    generation: null,
    error: { code, message: error instanceof Error ? error.message : String(error) },
  };
}

function isGoldDocument(question: EvaluationQuestion, docId: unknown, metadata: Record<string, unknown>): boolean {
  return (
    question.goldDocuments.some((gold) => matchesDocument(gold, docId, metadata.filename)) ||
    (Array.isArray(metadata.raptor_documents) &&
      metadata.raptor_documents.some((document) =>
        question.goldDocuments.some((gold) => matchesDocument(gold, (document as { doc_id?: unknown }).doc_id, undefined)),
      ))
  );
}

/**
 * Whether a gold document (an id or a file name) names the document `docId` (also a record
 * `<id>#<n>` of a file split into records) or its file.
 */
function matchesDocument(gold: string, docId: unknown, filename: unknown): boolean {
  if (typeof docId !== "string") return false;
  const base = docId.replace(/#\d+$/, "");
  return docId === gold || base === gold || basename(base) === gold || filename === gold;
}
