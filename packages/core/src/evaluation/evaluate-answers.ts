/**
 * Answer evaluation: every question is answered through `predict` and checked:
 *
 * - exact match and token F1 of the callout (citations removed) against the reference answers,
 *   best over the references, with SQuAD's normalisation (`answer-metrics.ts`); over answerable
 *   questions ("HasAns"), and over all questions with SQuAD 2.0's rule (an unanswerable question
 *   scores 1 when the service abstained);
 * - callout contains answer: a reference answer appears in the callout; answer contains answer:
 *   in the callout or any list;
 * - retrieved: the gold document is among the `RETRIEVER_TOP_K` chunks retrieved (a RAPTOR
 *   summary counts for the documents it summarises);
 * - cited: the gold document is a cited source of the answer;
 * - abstained: the service answered with the empty-context answer (`abstained: true`), with its
 *   reason; abstention precision is the share of abstentions that were on unanswerable questions,
 *   recall the share of unanswerable questions abstained on;
 * - summary sources and unsupported citations: cited sources that are RAPTOR summary nodes (a
 *   user cannot open them; the target is 0) and cited statements their source does not support.
 *
 * SQuAD-layout sets (`evaluateAnswers`) ingest their paragraphs as documents first; a plain
 * question set (`evaluateQuestions`) runs against documents already in the organisation.
 */
import { basename } from "node:path";
import { stripCitations } from "../answering/citations.js";
import type { AbstentionCheck, AbstentionReason, AnswerabilitySignals } from "../answering/decide-answerable.js";
import type { PredictResult, RagService } from "../service/rag-service.js";
import { containsAnswer, exactMatch, tokenF1 } from "./answer-metrics.js";
import type { EvaluationQuestion } from "./question-set.js";
import type { SquadDataset } from "./squad-dataset.js";

export { normalizeAnswer } from "./answer-metrics.js";

/** The outcome for one question. */
export interface AnswerOutcome {
  id: string;
  question: string;
  /** False for a question the documents cannot answer. */
  answerable: boolean;
  /** The callout without its citations ("" when the service abstained). */
  callout: string;
  exactMatch: number;
  f1: number;
  calloutContainsAnswer: boolean;
  containsAnswer: boolean;
  retrieved: boolean;
  cited: boolean;
  abstained: boolean;
  abstentionReason: AbstentionReason | null;
  abstentionCheck: AbstentionCheck | null;
  /** The signals of the abstention decision (absent when the `decide-answerable` stage was removed). */
  signals?: AnswerabilitySignals | undefined;
  /** Cited sources that are RAPTOR summary nodes. */
  summarySources: number;
  unsupportedCitations: number;
}

/** Aggregates of {@link evaluateAnswers} and {@link evaluateQuestions}. Shares are in [0, 1]; NaN when undefined. */
export interface AnswerEvaluation {
  answerable: number;
  unanswerable: number;
  /** Exact match and token F1 of the callout over answerable questions (SQuAD 2.0 "HasAns"). */
  exactMatch: number;
  f1: number;
  /** Exact match and F1 over all questions, an abstention scoring 1 on an unanswerable one (SQuAD 2.0 "total"). */
  overallExactMatch: number;
  overallF1: number;
  /** Shares of answerable questions. */
  retrievedRate: number;
  citedRate: number;
  calloutContainsAnswerRate: number;
  containsAnswerRate: number;
  /** Share of answerable questions abstained on. */
  falseAbstentionRate: number;
  abstentionPrecision: number;
  abstentionRecall: number;
  /** Abstentions per reason. */
  abstentionReasons: Record<AbstentionReason, number>;
  /** Cited sources that are summary nodes, over all answers (target 0). */
  summarySources: number;
  /** Unsupported cited statements, over all answers. */
  unsupportedCitations: number;
  outcomes: AnswerOutcome[];
  queryMs: number;
}

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

/** The principal evaluations ask as: the documents are ingested readable by everyone. */
export const evaluationPrincipal = { userName: "evaluator@docqa.invalid", roles: [], groups: [] };

/** Ingests the paragraphs of a SQuAD-layout set (unless skipped) and evaluates its questions. */
export async function evaluateAnswers(
  service: RagService,
  dataset: SquadDataset,
  options: EvaluateAnswersOptions = {},
): Promise<AnswerEvaluation> {
  const orgId = options.orgId ?? "squad-eval";
  if (!options.skipIngestion) {
    const batch = 200;
    options.onProgress?.("ingest", 0, dataset.contexts.length);
    for (let start = 0; start < dataset.contexts.length; start += batch) {
      const documents = Object.fromEntries(
        dataset.contexts
          .slice(start, start + batch)
          .map((context) => [context.id, { title: context.title, content: context.text, metadata: { acl: "|user:_all_|" } }]),
      );
      await service.upsert({ orgId, principal: evaluationPrincipal, uploader: evaluationPrincipal.userName, documents });
      options.onProgress?.("ingest", Math.min(start + batch, dataset.contexts.length), dataset.contexts.length);
    }
  }
  const questions: EvaluationQuestion[] = dataset.questions.map((question) => ({
    id: question.id,
    question: question.question,
    answers: question.impossible ? [] : question.answers,
    answerable: !question.impossible,
    goldDocuments: [question.contextId],
  }));
  return evaluateQuestions(service, questions, { ...options, orgId });
}

/** Answers every question against the documents of the organisation and aggregates the outcomes. */
export async function evaluateQuestions(
  service: RagService,
  questions: readonly EvaluationQuestion[],
  options: EvaluateAnswersOptions = {},
): Promise<AnswerEvaluation> {
  const orgId = options.orgId ?? "answer-eval";
  const asked = options.limit === undefined ? questions : questions.slice(0, options.limit);
  const outcomes: AnswerOutcome[] = [];
  const started = performance.now();
  options.onProgress?.("query", 0, asked.length);
  for (const [index, question] of asked.entries()) {
    const [answer, retrieval] = await Promise.all([
      service.predict({ orgId, principal: evaluationPrincipal, query: question.question }),
      service.search({ orgId, principal: evaluationPrincipal, query: question.question }),
    ]);
    outcomes.push(outcomeOf(question, answer, retrieval.results));
    options.onProgress?.("query", index + 1, asked.length);
  }
  return aggregate(outcomes, performance.now() - started);
}

function outcomeOf(
  question: EvaluationQuestion,
  answer: PredictResult,
  retrieved: readonly { chunk: { docId: string; metadata: Record<string, unknown> } }[],
): AnswerOutcome {
  const isGold = (docId: unknown, metadata: Record<string, unknown>) =>
    question.goldDocuments.some((gold) => matchesDocument(gold, docId, metadata.filename)) ||
    (Array.isArray(metadata.raptor_documents) &&
      metadata.raptor_documents.some((document) =>
        question.goldDocuments.some((gold) => matchesDocument(gold, (document as { doc_id?: unknown }).doc_id, undefined)),
      ));
  const callout = answer.abstained ? "" : stripCitations(answer.answer.callout_answer);
  const everything = [
    answer.answer.callout_answer,
    ...answer.answer.positive_list,
    ...answer.answer.negative_list,
    ...answer.answer.info_list,
  ]
    .map(stripCitations)
    .join(" ");
  const references = question.answerable ? question.answers : [];
  return {
    id: question.id,
    question: question.question,
    answerable: question.answerable,
    callout,
    exactMatch: exactMatch(callout, references),
    f1: tokenF1(callout, references),
    calloutContainsAnswer: !answer.abstained && containsAnswer(callout, references),
    containsAnswer: !answer.abstained && containsAnswer(everything, references),
    retrieved: retrieved.some((result) => isGold(result.chunk.docId, result.chunk.metadata)),
    cited: Object.values(answer.sources).some((source) => isGold(source.metadata.doc_id, source.metadata)),
    abstained: answer.abstained,
    abstentionReason: answer.abstentionReason,
    abstentionCheck: answer.abstained ? (answer.answerability?.check ?? "answerer") : null,
    signals: answer.answerability?.signals,
    summarySources: Object.values(answer.sources).filter((source) => typeof source.metadata.raptor_level === "number").length,
    unsupportedCitations: answer.unsupportedCitations.length,
  };
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

function aggregate(outcomes: AnswerOutcome[], queryMs: number): AnswerEvaluation {
  const answerable = outcomes.filter((outcome) => outcome.answerable);
  const unanswerable = outcomes.filter((outcome) => !outcome.answerable);
  const share = (items: AnswerOutcome[], test: (outcome: AnswerOutcome) => boolean) =>
    items.length === 0 ? Number.NaN : items.filter(test).length / items.length;
  const mean = (items: AnswerOutcome[], value: (outcome: AnswerOutcome) => number) =>
    items.length === 0 ? Number.NaN : items.reduce((sum, outcome) => sum + value(outcome), 0) / items.length;
  const abstentions = outcomes.filter((outcome) => outcome.abstained);
  const abstentionReasons: Record<AbstentionReason, number> = { no_documents: 0, low_relevance: 0, not_answerable: 0 };
  for (const outcome of abstentions) if (outcome.abstentionReason) abstentionReasons[outcome.abstentionReason]++;
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    exactMatch: mean(answerable, (outcome) => outcome.exactMatch),
    f1: mean(answerable, (outcome) => outcome.f1),
    overallExactMatch: mean(outcomes, (outcome) => outcome.exactMatch),
    overallF1: mean(outcomes, (outcome) => outcome.f1),
    retrievedRate: share(answerable, (outcome) => outcome.retrieved),
    citedRate: share(answerable, (outcome) => outcome.cited),
    calloutContainsAnswerRate: share(answerable, (outcome) => outcome.calloutContainsAnswer),
    containsAnswerRate: share(answerable, (outcome) => outcome.containsAnswer),
    falseAbstentionRate: share(answerable, (outcome) => outcome.abstained),
    abstentionPrecision: share(abstentions, (outcome) => !outcome.answerable),
    abstentionRecall: share(unanswerable, (outcome) => outcome.abstained),
    abstentionReasons,
    summarySources: outcomes.reduce((sum, outcome) => sum + outcome.summarySources, 0),
    unsupportedCitations: outcomes.reduce((sum, outcome) => sum + outcome.unsupportedCitations, 0),
    outcomes,
    queryMs,
  };
}
