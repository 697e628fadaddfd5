/**
 * What the `decide-answerable` stage (and an answerer that declines) decides: whether to abstain,
 * why, and the signals read. Types only, so the request state and the answerer can name them.
 */
import type { AnswerabilityFeatures } from "./answer-model.js";

/** Why an answer abstained (reported as `abstention_reason`). */
export type AbstentionReason = "no_documents" | "not_answerable" | "low_relevance";

/**
 * What decided an abstention (reported as `abstention_check`): `no_context`, the `relevance` or
 * `answerability` model, `answerer` when the answerer abstained itself, `model_declined` when a
 * chat model answered that the sources hold no answer, `model_unsupported` when no sentence of a
 * chat model's answer is supported by the context (`groundAnswer`).
 */
export type AbstentionCheck = "no_context" | "relevance" | "answerability" | "answerer" | "model_declined" | "model_unsupported";

/** The signals the decision read, for logs, evaluation and calibration. */
export interface AnswerabilitySignals {
  /** P(the context is about the question) under the relevance model; null for an empty context. */
  relevance: number | null;
  /** P(the best unit answers the question) under the answerability model; null for an empty context. */
  answerability: number | null;
  /** The features both models read. */
  features: AnswerabilityFeatures | null;
  /** The models that decided (`lexical`, or the embedding model family). */
  models: string;
}

/** Outcome of `decideAnswerable` (decide-answerable.ts). */
export interface AnswerabilityDecision {
  answerable: boolean;
  /** Null when answerable. */
  reason: AbstentionReason | null;
  /** The check that decided an abstention; null when answerable. */
  check: AbstentionCheck | null;
  signals: AnswerabilitySignals;
}
