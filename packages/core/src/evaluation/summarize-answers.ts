/**
 * The figures of an answer evaluation, computed from its records alone (so a results file can be
 * resumed and reported from the file): the outcome of each record ({@link outcomeOf}) and their
 * aggregates ({@link summarizeAnswers}). What each figure means is listed in
 * `evaluate-answers.ts`.
 */
import { stripCitations } from "../answering/citations.js";
import type { AnswerabilitySignals } from "../answering/decide-answerable.js";
import { containsAnswer, exactMatch, tokenF1 } from "./answer-metrics.js";
import type { GenerationUsage } from "./generation-usage.js";
import { containsAllItems, tableExactMatch, tableTokenF1 } from "./table-answer-metrics.js";

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

/**
 * Fallback reasons that mean the model's output was not Answer JSON (`answering/repair-answer.ts`):
 * no JSON object in it, or nothing at all.
 */
export const invalidJsonFallbackReasons: readonly string[] = ["unparseable_output", "empty_output"];

/** Answer modes in which a model wrote the output. */
const modelAnswerModes: readonly string[] = ["model", "extractive-fallback"];

/** Abstention reasons always listed (zero when none), in this order. */
const standardAbstentionReasons = ["no_documents", "low_relevance", "not_answerable"] as const;

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
