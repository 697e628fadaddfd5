/**
 * The abstention decision: whether the retrieved context answers the question at all. One
 * decision, taken once in the pipeline (`decide-answerable` stage), from question-level features
 * of the ranked evidence ({@link answerabilityFeatures}) and two fitted logistic models
 * (`answer-model.ts`):
 *
 * 1. `no_documents`: no readable chunk was retrieved.
 * 2. `low_relevance`: P(the context is about the question) is below the relevance threshold.
 *    The model is fitted on calibration questions asked with their source in the index against
 *    the same questions asked with it removed (out of corpus), so it learns how much of a
 *    question a passage must share, and how specific the shared words must be, to be about it.
 * 3. `not_answerable`: the context is about the question, but P(the best unit answers it) is
 *    below the answerability threshold. Fitted on SQuAD 2.0's answerable against unanswerable
 *    calibration questions (which are written to resemble answerable ones): the best unit's score,
 *    the question's names and numbers it lacks, a swapped or negated word. Whatever the model
 *    says, a record lookup whose best cell belongs to a record none of whose fields the question
 *    names is declined here too (`EvidenceUnit.unnamedField`): it asks for something the record
 *    does not hold.
 *
 * A chat model reads the text itself and may decline on its own, so before a model only the
 * relevance check runs (`checkAnswer: false`): a table row the lexical scorer doubts still reaches
 * the model.
 */
import type { PredictState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import type { Stage } from "../pipeline/stage.js";
import type { AnswerabilityDecision, AnswerabilitySignals } from "./abstention.js";
import {
  type AnswerabilityFeatures,
  type FittedConfiguration,
  type LogisticModel,
  lexicalModels,
  modelsFor,
  predict,
} from "./answer-model.js";
import type { Evidence } from "./rank-evidence.js";
import type { TableAnswer } from "./table-operations.js";

export type { AbstentionCheck, AbstentionReason, AnswerabilityDecision, AnswerabilitySignals } from "./abstention.js";

/** Settings of {@link decideAnswerable}. */
export interface AbstentionSettings {
  /**
   * `ABSTAIN_MIN_RELEVANCE`: below this P(about the question), `low_relevance`; default the fitted
   * threshold of the configuration's relevance model. 0 turns the check off.
   */
  minRelevance?: number | undefined;
  /**
   * `ABSTAIN_MIN_ANSWERABILITY`: below this P(answers), `not_answerable`; default the fitted
   * threshold of the configuration's answerability model. 0 turns the check off.
   */
  minAnswerability?: number | undefined;
  /** Apply the answerability check (default true); false before a chat model, which decides that itself. */
  checkAnswer?: boolean | undefined;
  /** Models to decide with instead of the fitted ones (calibration). */
  models?: Pick<FittedConfiguration, "relevance" | "answerability"> | undefined;
  /**
   * The answer computed over a whole table (`tableEvidence`), when there is one: its score is a
   * signal of both models, the share of the question it explains ({@link TableAnswer.explained})
   * one of the relevance model (both 0 without one); a table answer that does not merely restate
   * its condition ({@link TableAnswer.restatesCondition}) found its field by the question's answer
   * type or operation ("where…" → the venue, "how many…" → a count), so when it is the answer given
   * (its score above the best unit's) the field check is left to it.
   */
  tableAnswer?: Pick<TableAnswer, "score" | "explained" | "restatesCondition"> | undefined;
}

/**
 * The question-level features of `evidence` ({@link answerabilityFeatureNames}); null for an
 * empty context.
 */
export function answerabilityFeatures(
  evidence: Evidence,
  tableAnswer?: Pick<TableAnswer, "score" | "explained"> | undefined,
): AnswerabilityFeatures | null {
  const [best, second] = evidence.units;
  if (!best) return null;
  const denseValues = evidence.units.map((unit) => unit.dense).filter((value): value is number => value !== null);
  return {
    bestScore: best.score,
    scoreMargin: best.score - (second?.score ?? 0),
    bestCoverage: best.features.coverage,
    bestLocalCoverage: best.features.localCoverage,
    passageCoverage: evidence.passageCoverage,
    contextCoverage: evidence.contextCoverage,
    specificity: Math.min(1, evidence.passageSpecificity / 2),
    constraintsMissing: best.features.constraintsMissing,
    missingLocal: best.features.missingLocal,
    missingPassage: best.features.missingPassage,
    focusKey: best.features.focusKey,
    typeMissing: best.features.typeMissing,
    typeOffered: best.features.typeOffered,
    negationMismatch: evidence.questionNegated && !best.negated ? 1 : 0,
    contradicted: evidence.contradicted ? 1 : 0,
    substituted: evidence.substituted ? 1 : 0,
    bestCell: best.features.cell,
    bestCommand: best.features.command,
    denseMax: denseValues.length > 0 ? Math.max(0, ...denseValues) : 0,
    tableScore: tableAnswer?.score ?? 0,
    tableExplained: tableAnswer?.explained ?? 0,
  };
}

/**
 * Decides whether `evidence` answers its question. The models are those fitted for the
 * configuration that ranked the evidence (with the dense signal: its embedding model's family).
 *
 * @param embeddingModel - the embedding model id when the dense signal was used.
 */
export function decideAnswerable(
  evidence: Evidence,
  settings: AbstentionSettings = {},
  embeddingModel?: string | undefined,
): AnswerabilityDecision {
  const fitted = settings.models ?? (evidence.denseUsed ? modelsFor(embeddingModel) : lexicalModels);
  const features = answerabilityFeatures(evidence, settings.tableAnswer);
  const models = `${fitted.relevance.name}+${fitted.answerability.name}`;
  if (!features) {
    return {
      answerable: false,
      reason: "no_documents",
      check: "no_context",
      signals: { relevance: null, answerability: null, features: null, models },
    };
  }
  const relevance = predict(fitted.relevance, features);
  const answerability = predict(fitted.answerability, features);
  const signals: AnswerabilitySignals = { relevance, answerability, features, models };
  if (relevance < thresholdOf(fitted.relevance, settings.minRelevance)) {
    return { answerable: false, reason: "low_relevance", check: "relevance", signals };
  }
  if (settings.checkAnswer !== false && answerability < thresholdOf(fitted.answerability, settings.minAnswerability)) {
    return { answerable: false, reason: "not_answerable", check: "answerability", signals };
  }
  // A record's cell, when the question names none of the record's fields: the question asks about
  // the record's entity something it does not hold ("How tall was…?" of a record without a height).
  const [best] = evidence.units;
  // Left to a table answer that is the answer given (it outscores the best unit, as the extractive
  // answerer chooses) and does not merely restate its condition.
  const table = settings.tableAnswer;
  const fieldCheck = table === undefined || table.restatesCondition || table.score <= (best?.score ?? 0);
  if (settings.checkAnswer !== false && fieldCheck && best?.unnamedField === true) {
    return { answerable: false, reason: "not_answerable", check: "answerability", signals };
  }
  // A record's cell whose row names none of the question's entity, while another row names it:
  // the field asked for is that row's, and it has none ("the melting point of mendelevium"
  // answered by Curium's).
  if (settings.checkAnswer !== false && fieldCheck && best?.kind === "cell" && evidence.entityElsewhere) {
    return { answerable: false, reason: "not_answerable", check: "answerability", signals };
  }
  return { answerable: true, reason: null, check: null, signals };
}

function thresholdOf(model: LogisticModel, configured: number | undefined): number {
  return configured ?? model.threshold ?? 0.5;
}

/**
 * Stage `decide-answerable` (after `rank-evidence` and `answer-from-table`, before `generate`):
 * decides with the fitted relevance and answerability models whether the context answers the
 * question at all (`decideAnswerable`), reading the ranked units and the answer computed over a
 * table. When it does not, `generate` returns the spec's empty-context answer with
 * `abstained: true` and the reason (`no_documents`, `low_relevance`, `not_answerable`), without
 * calling the answerer. `ABSTENTION_CHECKS` chooses the checks.
 *
 * Writes `answerability`.
 */
export const decideAnswerableStage: Stage<PredictState> = {
  name: "decide-answerable",
  phase: "context",
  run(state, runtime) {
    state.answerability = decideForRequest(state, runtime, effectiveChecks(runtime));
  },
};

/**
 * The decision of {@link decideAnswerable} for a request's ranked evidence with the given checks
 * and the configured thresholds: the stage's own decision, and (with `"all"`) the one an
 * extractive answer given in place of a model's must pass (`AnswerRequest.fallbackDecision`).
 *
 * @throws {Error} when `rank-evidence` has not run.
 */
export function decideForRequest(
  state: Pick<PredictState, "evidence" | "tableAnswer">,
  runtime: Pick<Runtime, "config" | "embeddings">,
  checks: "all" | "relevance" | "off",
): AnswerabilityDecision {
  const config = runtime.config.answering;
  const evidence = state.evidence;
  if (!evidence) throw new Error("decide-answerable runs after rank-evidence");
  return decideAnswerable(
    evidence,
    {
      minRelevance: checks === "off" ? 0 : config.abstainMinRelevance,
      minAnswerability: config.abstainMinAnswerability,
      checkAnswer: checks === "all",
      tableAnswer: state.tableAnswer?.answer,
    },
    runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : undefined,
  );
}

/** `ABSTENTION_CHECKS` resolved: `auto` is `all` for the extractive answerer and `relevance` before a model. */
export function effectiveChecks(runtime: Pick<Runtime, "config" | "answerer">): "all" | "relevance" | "off" {
  const configured = runtime.config.answering.abstentionChecks;
  if (configured !== "auto") return configured;
  return runtime.answerer.name === "extractive" ? "all" : "relevance";
}
