/**
 * The abstention decision: whether the retrieved context answers the question at all, from
 * absolute signals of the evidence ({@link rankEvidence}), never from the scores' ranks alone.
 * Checks, in order; the first that fails decides:
 *
 * 1. `no_documents`: no readable chunk was retrieved.
 * 2. `low_relevance`: the context barely touches the question: the idf-weighted share of the
 *    question's content terms found anywhere in the context is below `minContextCoverage`, or,
 *    with an embedding model, no sentence's dense signal reaches `minDense`.
 * 3. `not_answerable` (the context is on the subject but does not answer):
 *    - a constraint of the question, a name or a number ({@link questionConstraints}), occurs
 *      nowhere in the context (`missing_constraint`);
 *    - the best sentence states the question's proposition (covers at least half its weight) but
 *      with the opposite polarity: the question is negated and the sentence is not
 *      (`negation`), or a word of the question is replaced by its opposite ({@link contradiction});
 *    - the best sentence covers less than `minSentenceCoverage` of the question (`sentence_coverage`).
 *
 * The thresholds are settings (`ABSTAIN_MIN_CONTEXT_COVERAGE`, `ABSTAIN_MIN_DENSE`,
 * `EXTRACTIVE_MIN_COVERAGE`); docs/answering.md gives the measurement that chose each default.
 */

import type { Analyzer } from "../text/analyzer.js";
import { contradiction, questionConstraints } from "./question-cues.js";
import type { Evidence, EvidenceSentence } from "./rank-evidence.js";

/** Why an answer abstained (reported as `abstention_reason`). */
export type AbstentionReason = "no_documents" | "not_answerable" | "low_relevance";

/** The check of {@link decideAnswerable} that decided an abstention. */
export type AbstentionCheck =
  | "no_context"
  | "context_coverage"
  | "dense"
  | "missing_constraint"
  | "negation"
  | "contradiction"
  | "sentence_coverage"
  | "model";

/** The signals the decision read, for logs, evaluation and calibration. */
export interface AnswerabilitySignals {
  /** Idf-weighted share of the question's content terms anywhere in the context, in [0, 1]. */
  contextCoverage: number;
  /** The same share for the best sentence, in [0, 1]. */
  sentenceCoverage: number;
  /** The highest dense signal of any sentence; null without an embedding model. */
  dense: number | null;
}

/** Outcome of {@link decideAnswerable}. */
export interface AnswerabilityDecision {
  answerable: boolean;
  /** Null when answerable. */
  reason: AbstentionReason | null;
  /** The check that decided an abstention; null when answerable. */
  check: AbstentionCheck | null;
  /** What the check found (the missing name, the contradicting word); absent otherwise. */
  detail?: string | undefined;
  signals: AnswerabilitySignals;
}

/** Thresholds of {@link decideAnswerable}. */
export interface AbstentionSettings {
  /** `ABSTAIN_MIN_CONTEXT_COVERAGE`: below it the answer abstains with `low_relevance`. */
  minContextCoverage: number;
  /** `ABSTAIN_MIN_DENSE`: with an embedding model, a best dense signal below it abstains with `low_relevance`. */
  minDense: number;
  /** `EXTRACTIVE_MIN_COVERAGE`: a best sentence covering less abstains with `not_answerable`. */
  minSentenceCoverage: number;
  /**
   * Apply the `not_answerable` checks (default true). A model answerer reads the text itself and
   * may abstain on its own, so the pipeline passes false when a model answers.
   */
  checkAnswer?: boolean | undefined;
}

/** Share of the question's weight a sentence must cover to be read as stating its proposition. */
const propositionCoverage = 0.5;

const numberWords: Record<string, string> = {
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  eleven: "11",
  twelve: "12",
  twenty: "20",
  thirty: "30",
  forty: "40",
  fifty: "50",
  hundred: "100",
};

/**
 * Decides whether `evidence` answers `question`.
 *
 * @param question - the question as retrieval used it.
 * @param evidence - the ranked sentences of the context (empty for an empty context).
 */
export function decideAnswerable(
  question: string,
  evidence: Evidence,
  settings: AbstentionSettings,
  analyzer: Analyzer,
): AnswerabilityDecision {
  const best = evidence.sentences[0];
  const denseValues = evidence.sentences.map((sentence) => sentence.dense).filter((value): value is number => value !== null);
  const signals: AnswerabilitySignals = {
    contextCoverage: evidence.contextCoverage,
    sentenceCoverage: best?.coverage ?? 0,
    dense: denseValues.length > 0 ? Math.max(...denseValues) : null,
  };
  const abstain = (reason: AbstentionReason, check: AbstentionCheck, detail?: string): AnswerabilityDecision => ({
    answerable: false,
    reason,
    check,
    ...(detail === undefined ? {} : { detail }),
    signals,
  });
  if (!best) return abstain("no_documents", "no_context");
  if (evidence.contextCoverage < settings.minContextCoverage) return abstain("low_relevance", "context_coverage");
  if (signals.dense !== null && signals.dense < settings.minDense) return abstain("low_relevance", "dense");
  if (settings.checkAnswer === false) return { answerable: true, reason: null, check: null, signals };

  const missing = missingConstraint(question, evidence.sentences, analyzer);
  if (missing !== undefined) return abstain("not_answerable", "missing_constraint", missing);
  if (best.coverage >= propositionCoverage) {
    if (evidence.questionNegated && !best.negated) return abstain("not_answerable", "negation");
    const opposite = contradiction(question, best.text);
    if (opposite !== undefined) return abstain("not_answerable", "contradiction", opposite);
  }
  if (best.coverage < settings.minSentenceCoverage) return abstain("not_answerable", "sentence_coverage");
  return { answerable: true, reason: null, check: null, signals };
}

/** The first name or number of the question that no sentence of the context contains. */
function missingConstraint(question: string, sentences: readonly EvidenceSentence[], analyzer: Analyzer): string | undefined {
  const present = (term: string) => sentences.some((sentence) => sentence.terms.has(term));
  for (const constraint of questionConstraints(question)) {
    const terms = analyzer.analyze(constraint);
    if (terms.length === 0) continue;
    const digits = numberWords[constraint];
    if (digits !== undefined && present(digits)) continue;
    if (!terms.every(present)) return constraint;
  }
  return undefined;
}
