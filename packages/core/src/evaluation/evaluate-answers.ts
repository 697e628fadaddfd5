/**
 * Answer evaluation on a SQuAD-layout data set: the contexts are ingested as documents, every
 * question is answered through `predict`, and each answer is checked:
 *
 * - retrieved: the gold paragraph is among the `RETRIEVER_TOP_K` chunks retrieved;
 * - cited: the gold paragraph is a cited source of the answer (directly, or through a RAPTOR
 *   summary that covers it);
 * - contains answer: a reference answer appears in the answer text (callout and lists), after
 *   SQuAD's answer normalisation (lower case, no punctuation, no articles, single spaces);
 * - abstained: the service gave the empty-context answer.
 *
 * For unanswerable questions (SQuAD 2.0), abstention is the right outcome. Abstention precision
 * is the share of abstentions that were on unanswerable questions; abstention recall the share of
 * unanswerable questions abstained on.
 */
import { noInformationSentence } from "../answering/answer.js";
import type { RagService } from "../service/rag-service.js";
import type { SquadDataset } from "./squad-dataset.js";

/** The outcome for one question. */
export interface AnswerOutcome {
  id: string;
  question: string;
  impossible: boolean;
  retrieved: boolean;
  cited: boolean;
  containsAnswer: boolean;
  abstained: boolean;
}

/** Aggregates of {@link evaluateAnswers}. */
export interface AnswerEvaluation {
  answerable: number;
  unanswerable: number;
  /** Shares of answerable questions, in [0, 1]. */
  retrievedRate: number;
  citedRate: number;
  containsAnswerRate: number;
  /** Abstention precision and recall over unanswerable questions; NaN when undefined. */
  abstentionPrecision: number;
  abstentionRecall: number;
  outcomes: AnswerOutcome[];
  queryMs: number;
}

/** Options of {@link evaluateAnswers}. */
export interface EvaluateAnswersOptions {
  orgId?: string;
  limit?: number;
  skipIngestion?: boolean;
  onProgress?: (phase: "ingest" | "query", done: number, total: number) => void;
}

const evaluator = { userName: "evaluator@docqa.invalid", roles: [], groups: [] };

/** SQuAD's answer normalisation (the official evaluation script's `normalize_answer`). */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, " ")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Ingests the contexts (unless skipped) and answers every question. */
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
      await service.upsert({ orgId, principal: evaluator, uploader: evaluator.userName, documents });
      options.onProgress?.("ingest", Math.min(start + batch, dataset.contexts.length), dataset.contexts.length);
    }
  }
  const questions = options.limit === undefined ? dataset.questions : dataset.questions.slice(0, options.limit);
  const outcomes: AnswerOutcome[] = [];
  const started = performance.now();
  options.onProgress?.("query", 0, questions.length);
  for (const [index, question] of questions.entries()) {
    const [answer, retrieval] = await Promise.all([
      service.predict({ orgId, principal: evaluator, query: question.question }),
      service.search({ orgId, principal: evaluator, query: question.question }),
    ]);
    const coversGold = (docId: unknown, summarised: unknown) =>
      docId === question.contextId ||
      (Array.isArray(summarised) && summarised.some((document) => (document as { doc_id?: string }).doc_id === question.contextId));
    const text = normalizeAnswer(
      [answer.answer.callout_answer, ...answer.answer.positive_list, ...answer.answer.negative_list, ...answer.answer.info_list].join(" "),
    );
    outcomes.push({
      id: question.id,
      question: question.question,
      impossible: question.impossible,
      retrieved: retrieval.results.some((result) => coversGold(result.chunk.docId, result.chunk.metadata.raptor_documents)),
      cited: Object.values(answer.sources).some((source) => coversGold(source.metadata.doc_id, source.metadata.raptor_documents)),
      containsAnswer: question.answers.some(
        (reference) => normalizeAnswer(reference) !== "" && ` ${text} `.includes(` ${normalizeAnswer(reference)} `),
      ),
      abstained: answer.answerMode === "empty-context" || answer.answer.callout_answer === noInformationSentence,
    });
    options.onProgress?.("query", index + 1, questions.length);
  }
  const answerable = outcomes.filter((outcome) => !outcome.impossible);
  const unanswerable = outcomes.filter((outcome) => outcome.impossible);
  const share = (items: AnswerOutcome[], test: (outcome: AnswerOutcome) => boolean) =>
    items.length === 0 ? Number.NaN : items.filter(test).length / items.length;
  const abstentions = outcomes.filter((outcome) => outcome.abstained);
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    retrievedRate: share(answerable, (outcome) => outcome.retrieved),
    citedRate: share(answerable, (outcome) => outcome.cited),
    containsAnswerRate: share(answerable, (outcome) => outcome.containsAnswer),
    abstentionPrecision: share(abstentions, (outcome) => outcome.impossible),
    abstentionRecall: share(unanswerable, (outcome) => outcome.abstained),
    outcomes,
    queryMs: performance.now() - started,
  };
}
