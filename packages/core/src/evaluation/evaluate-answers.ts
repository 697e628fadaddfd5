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
import type { AnswerabilitySignals } from "../answering/decide-answerable.js";
import type { PredictResult, RagService } from "../service/rag-service.js";
import { containsAnswer, exactMatch, tokenF1 } from "./answer-metrics.js";
import { type GenerationUsage, generationUsage } from "./generation-usage.js";
import type { EvaluationQuestion } from "./question-set.js";
import type { SquadDataset } from "./squad-dataset.js";
import { containsAllItems, containsAnyItem, tableExactMatch, tableTokenF1 } from "./table-answer-metrics.js";

export { normalizeAnswer } from "./answer-metrics.js";

/**
 * How the references of a set are read: `alternatives` (SQuAD, question sets: any one reference
 * counts) or `all-items` (a table set: the references are the items of one answer, all needed).
 */
export type AnswerScorer = "alternatives" | "all-items";

/** A cited source of an answer, as recorded. */
export interface RecordedCitation {
  /** The citation key (`doc_1`). */
  key: string;
  docId: string;
  /** Whether the passage text holds a gold answer (for `all-items`, at least one item). */
  holdsAnswer: boolean;
  /** Whether it is a chunk of a gold document (or a summary of one). */
  goldDocument: boolean;
  /** Whether it is a RAPTOR summary node. */
  summary: boolean;
}

/** What was observed for one question: one line of a results file. */
export interface AnswerRecord {
  type: "answer";
  id: string;
  question: string;
  answerable: boolean;
  /** The references (alternatives, or the items of one answer); empty for an unanswerable question. */
  answers: string[];
  /** Whether the question names gold documents (retrieval and gold-citation figures count it). */
  hasGoldDocuments: boolean;
  /** The callout as answered, citations kept ("" when it failed). */
  callout: string;
  /** The lists of the answer, citations removed, joined by spaces. */
  lists: string;
  abstained: boolean;
  abstentionReason: string | null;
  /** The check that decided an abstention (`answerer` when the answerer itself abstained). */
  abstentionCheck: string | null;
  /** The signals of the abstention decision (absent when the `decide-answerable` stage was removed). */
  signals?: AnswerabilitySignals | undefined;
  /** `model`, `extractive`, `extractive-fallback` or `empty-context`; null when it failed. */
  answerMode: string | null;
  /** Why the extractive answer replaced the model's, else null. */
  fallbackReason: string | null;
  /** The model that answered (`extractive` without one); null when it failed. */
  model: string | null;
  citations: RecordedCitation[];
  /** Citation markers of the callout that name a source. */
  calloutCitations: number;
  /** Whether a gold document was retrieved; null when the question names none. */
  retrieved: boolean | null;
  unsupportedCitations: number;
  /** Milliseconds `predict` took. */
  latencyMs: number;
  /** Generation tokens and time when the service reports them (`generation-usage.ts`), else null. */
  generation: GenerationUsage | null;
  /** Why `predict` failed (`code` is the `DocqaError` code, else `error`); null when it answered. */
  error: { code: string; message: string } | null;
}

/** The outcome for one question, computed from its record. */
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
  /** Null when the question names no gold document. */
  retrieved: boolean | null;
  /** A gold document is cited; null when the question names none. */
  cited: boolean | null;
  abstained: boolean;
  abstentionReason: string | null;
  abstentionCheck: string | null;
  /** The signals of the abstention decision (absent when the `decide-answerable` stage was removed). */
  signals?: AnswerabilitySignals | undefined;
  answerMode: string | null;
  fallbackReason: string | null;
  /** Cited passages, and those holding a gold answer. */
  citedPassages: number;
  citedPassagesWithAnswer: number;
  /** Whether the callout carries a citation that names a source. */
  calloutCited: boolean;
  latencyMs: number;
  /** Cited sources that are RAPTOR summary nodes. */
  summarySources: number;
  unsupportedCitations: number;
}

/** Latency percentiles of `predict`, milliseconds (nearest rank); null without answers. */
export interface LatencySummary {
  p50Ms: number | null;
  p95Ms: number | null;
  meanMs: number | null;
}

/** Generation speed over the answers whose service reported token counts. */
export interface GenerationSummary {
  /** Answers with token counts. */
  answers: number;
  outputTokens: number;
  milliseconds: number;
  /** Total tokens over total seconds; null when no answer reported counts (see `generation-usage.ts`). */
  tokensPerSecond: number | null;
  /** True when some counts came with the whole model phase as their time (prompt processing included). */
  includesPrompt: boolean;
}

/** Aggregates of {@link summarizeAnswers}. Shares are in [0, 1]; NaN when undefined. */
export interface AnswerEvaluation {
  /** How the references were read. */
  scorer: AnswerScorer;
  /** Questions scored (answered or abstained; failed ones left out). */
  questions: number;
  /** Questions whose `predict` failed (left out of every figure). */
  failed: number;
  /** Questions answered (not abstained). */
  answered: number;
  answerable: number;
  unanswerable: number;
  /** Exact match and token F1 of the callout over answerable questions (SQuAD 2.0 "HasAns"). */
  exactMatch: number;
  f1: number;
  /** Exact match and F1 over all questions, an abstention scoring 1 on an unanswerable one (SQuAD 2.0 "total"). */
  overallExactMatch: number;
  overallF1: number;
  /** Shares of answerable questions naming gold documents: a gold document retrieved / cited. */
  retrievedRate: number;
  citedRate: number;
  /** Shares of answerable questions: the gold answer in the callout / anywhere in the answer. */
  calloutContainsAnswerRate: number;
  containsAnswerRate: number;
  /** Cited passages of answered answerable questions that hold a gold answer, over all of them. */
  citationPrecision: number;
  /** The cited passages citation precision is computed over. */
  citedPassages: number;
  /** Share of answered questions whose callout carries a citation naming a source. */
  calloutCitationRate: number;
  /** Share of answerable questions abstained on. */
  falseAbstentionRate: number;
  abstentionPrecision: number;
  abstentionRecall: number;
  /** Abstentions per reason. */
  abstentionReasons: Record<string, number>;
  /** Answers per `answerMode`. */
  answerModes: Record<string, number>;
  /** Extractive fallbacks per reason. */
  fallbackReasons: Record<string, number>;
  /** Answers that are model outputs (`model` or `extractive-fallback`). */
  modelOutputs: number;
  /** Share of model outputs that were Answer JSON; NaN without a model. */
  validJsonRate: number;
  latency: LatencySummary;
  generation: GenerationSummary;
  /** Cited sources that are summary nodes, over all answers (target 0). */
  summarySources: number;
  /** Unsupported cited statements, over all answers. */
  unsupportedCitations: number;
  outcomes: AnswerOutcome[];
  /** Milliseconds of the questions asked in this run (0 when every record came from a results file). */
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

/**
 * Fallback reasons that mean the model's output was not Answer JSON (`answering/repair-answer.ts`):
 * no JSON object in it, or nothing at all.
 */
export const invalidJsonFallbackReasons: readonly string[] = ["unparseable_output", "empty_output"];

/** Answer modes in which a model wrote the output. */
const modelAnswerModes: readonly string[] = ["model", "extractive-fallback"];

/** Abstention reasons always listed (zero when none), in this order. */
const standardAbstentionReasons = ["no_documents", "low_relevance", "not_answerable"] as const;

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

/** The outcome of one record under `scorer`. */
export function outcomeOf(record: AnswerRecord, scorer: AnswerScorer): AnswerOutcome {
  const callout = record.abstained ? "" : stripCitations(record.callout);
  const everything = record.abstained ? "" : `${callout} ${record.lists}`;
  const references = record.answerable ? record.answers : [];
  const tableScorer = scorer === "all-items";
  return {
    id: record.id,
    question: record.question,
    answerable: record.answerable,
    callout,
    exactMatch: tableScorer ? tableExactMatch(callout, references) : exactMatch(callout, references),
    f1: tableScorer ? tableTokenF1(callout, references) : tokenF1(callout, references),
    calloutContainsAnswer: tableScorer ? containsAllItems(callout, references) : containsAnswer(callout, references),
    containsAnswer: tableScorer ? containsAllItems(everything, references) : containsAnswer(everything, references),
    retrieved: record.retrieved,
    cited: record.hasGoldDocuments ? record.citations.some((citation) => citation.goldDocument) : null,
    abstained: record.abstained,
    abstentionReason: record.abstentionReason,
    abstentionCheck: record.abstentionCheck,
    signals: record.signals,
    answerMode: record.answerMode,
    fallbackReason: record.fallbackReason,
    citedPassages: record.citations.length,
    citedPassagesWithAnswer: record.citations.filter((citation) => citation.holdsAnswer).length,
    calloutCited: record.calloutCitations > 0,
    latencyMs: record.latencyMs,
    summarySources: record.citations.filter((citation) => citation.summary).length,
    unsupportedCitations: record.unsupportedCitations,
  };
}

/** The p-th percentile (0 to 100) of `samples` by the nearest-rank method; null for no samples. */
export function nearestRankPercentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? null;
}

/**
 * The figures of a run from its records (failed ones counted, not scored).
 *
 * @param queryMs - milliseconds the questions of this run took (reported as is).
 */
export function summarizeAnswers(records: readonly AnswerRecord[], scorer: AnswerScorer, queryMs = 0): AnswerEvaluation {
  const scored = records.filter((record) => record.error === null);
  const outcomes = scored.map((record) => outcomeOf(record, scorer));
  const answerable = outcomes.filter((outcome) => outcome.answerable);
  const unanswerable = outcomes.filter((outcome) => !outcome.answerable);
  const answered = outcomes.filter((outcome) => !outcome.abstained);
  const share = (items: readonly AnswerOutcome[], test: (outcome: AnswerOutcome) => boolean) =>
    items.length === 0 ? Number.NaN : items.filter(test).length / items.length;
  const mean = (items: readonly AnswerOutcome[], value: (outcome: AnswerOutcome) => number) =>
    items.length === 0 ? Number.NaN : items.reduce((sum, outcome) => sum + value(outcome), 0) / items.length;
  const sum = (items: readonly AnswerOutcome[], value: (outcome: AnswerOutcome) => number) =>
    items.reduce((total, outcome) => total + value(outcome), 0);
  const tally = (values: readonly (string | null)[], initial: readonly string[] = []) => {
    const counts: Record<string, number> = Object.fromEntries(initial.map((key) => [key, 0]));
    for (const value of values) if (value !== null) counts[value] = (counts[value] ?? 0) + 1;
    return counts;
  };
  const abstentions = outcomes.filter((outcome) => outcome.abstained);
  const answeredAnswerable = answerable.filter((outcome) => !outcome.abstained);
  const citedPassages = sum(answeredAnswerable, (outcome) => outcome.citedPassages);
  const modelOutputs = outcomes.filter((outcome) => outcome.answerMode !== null && modelAnswerModes.includes(outcome.answerMode));
  const latencies = outcomes.map((outcome) => outcome.latencyMs);
  const usages = scored.flatMap((record) => (record.generation ? [record.generation] : []));
  const outputTokens = usages.reduce((total, usage) => total + usage.outputTokens, 0);
  const generationMs = usages.reduce((total, usage) => total + usage.milliseconds, 0);
  return {
    scorer,
    questions: outcomes.length,
    failed: records.length - scored.length,
    answered: answered.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    exactMatch: mean(answerable, (outcome) => outcome.exactMatch),
    f1: mean(answerable, (outcome) => outcome.f1),
    overallExactMatch: mean(outcomes, (outcome) => outcome.exactMatch),
    overallF1: mean(outcomes, (outcome) => outcome.f1),
    retrievedRate: share(
      answerable.filter((outcome) => outcome.retrieved !== null),
      (outcome) => outcome.retrieved === true,
    ),
    citedRate: share(
      answerable.filter((outcome) => outcome.cited !== null),
      (outcome) => outcome.cited === true,
    ),
    calloutContainsAnswerRate: share(answerable, (outcome) => outcome.calloutContainsAnswer),
    containsAnswerRate: share(answerable, (outcome) => outcome.containsAnswer),
    citationPrecision:
      citedPassages === 0 ? Number.NaN : sum(answeredAnswerable, (outcome) => outcome.citedPassagesWithAnswer) / citedPassages,
    citedPassages,
    calloutCitationRate: share(answered, (outcome) => outcome.calloutCited),
    falseAbstentionRate: share(answerable, (outcome) => outcome.abstained),
    abstentionPrecision: share(abstentions, (outcome) => !outcome.answerable),
    abstentionRecall: share(unanswerable, (outcome) => outcome.abstained),
    abstentionReasons: tally(
      abstentions.map((outcome) => outcome.abstentionReason),
      standardAbstentionReasons,
    ),
    answerModes: tally(outcomes.map((outcome) => outcome.answerMode)),
    fallbackReasons: tally(outcomes.map((outcome) => outcome.fallbackReason)),
    modelOutputs: modelOutputs.length,
    validJsonRate: share(
      modelOutputs,
      (outcome) => !(outcome.fallbackReason !== null && invalidJsonFallbackReasons.includes(outcome.fallbackReason)),
    ),
    latency: {
      p50Ms: nearestRankPercentile(latencies, 50),
      p95Ms: nearestRankPercentile(latencies, 95),
      meanMs: latencies.length === 0 ? null : latencies.reduce((total, value) => total + value, 0) / latencies.length,
    },
    generation: {
      answers: usages.length,
      outputTokens,
      milliseconds: generationMs,
      tokensPerSecond: generationMs > 0 ? outputTokens / (generationMs / 1000) : null,
      includesPrompt: usages.some((usage) => usage.includesPrompt),
    },
    summarySources: sum(outcomes, (outcome) => outcome.summarySources),
    unsupportedCitations: sum(outcomes, (outcome) => outcome.unsupportedCitations),
    outcomes,
    queryMs,
  };
}
