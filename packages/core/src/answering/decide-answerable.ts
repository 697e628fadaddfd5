/**
 * The abstention decision: whether the retrieved context answers the question at all, from
 * absolute signals of the evidence ({@link rankEvidence}), never from the scores' ranks alone.
 * Checks, in order; the first that fails decides:
 *
 * 1. `no_documents`: no readable chunk was retrieved.
 * 2. `low_relevance`: the context barely touches the question. With an embedding model: no
 *    sentence's dense signal reaches `minDense` while the best sentence states less than half the
 *    question lexically (so a model that is not a sentence encoder, or a question the words
 *    already answer, never abstains on the dense signal alone). Without one (BM25 only): no
 *    retrieved passage (a chunk's text and title) holds `minPassageCoverage` of the question's
 *    weighted content terms. The lexical passage check is left to BM25-only mode because a
 *    sentence encoder judges relevance across paraphrases, which the words miss. Also without
 *    one: a best passage that shares too little specific information with the question (its
 *    `passageSpecificity`, the question's words it holds weighted by how rare they are in general
 *    English, below `minPassageSpecificity`) and holds less than {@link topicalCoverage} of it
 *    (`passage_specificity`): "How many vacation days do new employees get?" over a passage on the
 *    TV series "Happy Days" shares "days" and "new". And: a question asking for a number whose best passage holds less than
 *    `minTypedPassageCoverage` of it and whose best sentence offers no number (`answer_type`):
 *    a passage that shares a few common words with the question ("days", "new") and states no
 *    count is not about the count asked for.
 * 3. `not_answerable` (the context is on the subject but does not answer):
 *    - a constraint of the question, a name or a number ({@link questionConstraints}), is not
 *      met by the passage that answers: it occurs nowhere in the context, or it is missing from the
 *      best sentence's chunk (text and title) while at most one other chunk mentions it. A name
 *      that several retrieved chunks mention is the subject of the documents and need not be
 *      repeated in the answering passage; a name only another passage mentions is a condition the
 *      answering passage does not meet (`missing_constraint`);
 *    - the best sentence is a record line giving the field the question asks for, but of another
 *      entity: the question's most specific word that no key of the record names occurs nowhere in the
 *      record (`record_subject`; `boiling_point: 3383` for "What is the boiling point of ethanol?");
 *    - the question is negated and the best sentence is not (`negation`; negated sentences rank
 *      higher for a negated question, so one that states the negation comes first);
 *    - the best sentence states the question's proposition (covers at least half its weight) but
 *      with a word of the question replaced by its opposite ({@link contradiction}), or by another
 *      content word in the same slot between the same words ({@link substitution}); not checked
 *      when the best sentence is an instruction (a lead-in to a command), which states no proposition;
 *    - the best sentence covers less than `minSentenceCoverage` of the question (`sentence_coverage`).
 *
 * The thresholds are settings (`ABSTAIN_MIN_PASSAGE_COVERAGE`, `ABSTAIN_MIN_PASSAGE_SPECIFICITY`, `ABSTAIN_TYPED_MIN_PASSAGE_COVERAGE`,
 * `ABSTAIN_MIN_DENSE`, `EXTRACTIVE_MIN_COVERAGE`); docs/answering.md gives the measurement that chose each default.
 */

import type { Analyzer } from "../text/analyzer.js";
import { type AnswerType, constraintsOf, contradiction, substitution } from "./question-cues.js";
import type { Evidence, EvidenceSentence } from "./rank-evidence.js";

/** Why an answer abstained (reported as `abstention_reason`). */
export type AbstentionReason = "no_documents" | "not_answerable" | "low_relevance";

/**
 * The check of {@link decideAnswerable} that decided an abstention, or `answerer` when the answerer
 * (a model, or the extractive answerer called on its own) abstained itself.
 */
export type AbstentionCheck =
  | "no_context"
  | "passage_coverage"
  | "passage_specificity"
  | "dense"
  | "missing_constraint"
  | "record_subject"
  | "negation"
  | "contradiction"
  | "substitution"
  | "answer_type"
  | "sentence_coverage"
  | "answerer";

/** The signals the decision read, for logs, evaluation and calibration. */
export interface AnswerabilitySignals {
  /** Idf-weighted share of the question's content terms anywhere in the context, in [0, 1]. */
  contextCoverage: number;
  /** The highest such share in one chunk (text and title), in [0, 1]. */
  passageCoverage: number;
  /**
   * The specific information that chunk shares with the question: its question words weighted by
   * their rarity in general English, common words 0, a name or number 0.55 (`Evidence.passageSpecificity`).
   */
  passageSpecificity: number;
  /** The answer type the question asks for (`expectedAnswerType`); null when none is recognised. */
  expectedType: AnswerType;
  /** Whether the best sentence offers an answer of that type; null when no type is expected. */
  answerTypeOffered: boolean | null;
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
  /**
   * `ABSTAIN_MIN_PASSAGE_COVERAGE`: without an embedding model, when no chunk holds this share of
   * the question, the answer abstains with `low_relevance`.
   */
  minPassageCoverage: number;
  /**
   * `ABSTAIN_MIN_PASSAGE_SPECIFICITY`: without an embedding model, when the best passage's
   * `passageSpecificity` is below this and it holds less than {@link topicalCoverage} of the
   * question, the answer abstains with `low_relevance` (`passage_specificity`); default 0 (off)
   * here, 0.3 in the configuration.
   */
  minPassageSpecificity?: number | undefined;
  /**
   * `ABSTAIN_TYPED_MIN_PASSAGE_COVERAGE`: without an embedding model, a question that asks for a
   * number ("how many", "how long", "what percentage") whose best passage holds less than this
   * share of it, and whose best sentence offers no number, abstains with `low_relevance`
   * (`answer_type`); default 0 (off) here, 0.45 in the configuration.
   */
  minTypedPassageCoverage?: number | undefined;
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

/**
 * Share of the question's weight from which a passage is about the question even when every word
 * it shares with it is common ("When is the all-hands meeting held?" over "The all-hands meeting is
 * held …"): the `passage_specificity` check applies below it. Measured with the default
 * `ABSTAIN_MIN_PASSAGE_SPECIFICITY` (docs/answering.md): 0.65 keeps every answerable question of
 * the example corpus.
 */
export const topicalCoverage = 0.65;

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
    passageCoverage: evidence.passageCoverage,
    passageSpecificity: evidence.passageSpecificity,
    expectedType: evidence.expectedType,
    answerTypeOffered: best?.offersAnswer ?? null,
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
  if (signals.dense === null && evidence.passageCoverage < settings.minPassageCoverage) return abstain("low_relevance", "passage_coverage");
  if (
    signals.dense === null &&
    evidence.passageSpecificity < (settings.minPassageSpecificity ?? 0) &&
    evidence.passageCoverage < topicalCoverage
  ) {
    return abstain("low_relevance", "passage_specificity");
  }
  if (
    signals.dense === null &&
    evidence.expectedType === "number" &&
    best.offersAnswer === false &&
    evidence.passageCoverage < (settings.minTypedPassageCoverage ?? 0)
  ) {
    return abstain("low_relevance", "answer_type", "number");
  }
  if (signals.dense !== null && signals.dense < settings.minDense && best.coverage < propositionCoverage) {
    return abstain("low_relevance", "dense");
  }
  if (settings.checkAnswer === false) return { answerable: true, reason: null, check: null, signals };

  const missing = missingConstraint(question, evidence.sentences, best, analyzer);
  if (missing !== undefined) return abstain("not_answerable", "missing_constraint", missing);
  if (best.missingSubject !== undefined) return abstain("not_answerable", "record_subject", best.missingSubject);
  if (evidence.questionNegated && !best.negated) return abstain("not_answerable", "negation");
  // An instruction (a lead-in to a command) states no proposition to contradict: "run the following
  // update script" is how to update Rust, not a claim about a script in the place of Rust.
  const statement = best.instruction !== true;
  if (statement && best.coverage >= propositionCoverage) {
    const opposite = contradiction(question, best.text);
    if (opposite !== undefined) return abstain("not_answerable", "contradiction", opposite);
  }
  if (statement && best.coverage >= propositionCoverage) {
    const replaced = substitution(question, best.text, (text) => analyzer.analyze(text));
    if (replaced !== undefined) return abstain("not_answerable", "substitution", replaced);
  }
  if (best.coverage < settings.minSentenceCoverage) return abstain("not_answerable", "sentence_coverage");

  return { answerable: true, reason: null, check: null, signals };
}

/**
 * The first name or number of the question that the answering passage does not meet: absent from
 * the best sentence's chunk (text and title) and mentioned by at most one other chunk.
 */
function missingConstraint(
  question: string,
  sentences: readonly EvidenceSentence[],
  best: EvidenceSentence,
  analyzer: Analyzer,
): string | undefined {
  const chunks = new Map<EvidenceSentence["entry"], { terms: Set<string>; text: string }>();
  for (const sentence of sentences) {
    let chunk = chunks.get(sentence.entry);
    if (!chunk) {
      chunk = {
        terms: new Set(analyzer.analyze(sentence.entry.chunk.title)),
        text: `${sentence.entry.chunk.title}\n${sentence.entry.text}`,
      };
      chunks.set(sentence.entry, chunk);
    }
    for (const term of sentence.terms) chunk.terms.add(term);
  }
  const answering = chunks.get(best.entry) as { terms: Set<string>; text: string };
  for (const constraint of constraintsOf(question, (text) => analyzer.analyze(text))) {
    if (constraint.met(answering.terms, answering.text)) continue;
    const mentions = [...chunks.values()].filter((chunk) => constraint.met(chunk.terms, chunk.text)).length;
    if (mentions < 2) return constraint.word;
  }
  return undefined;
}
