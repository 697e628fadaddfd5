/**
 * The answerer interface: turns a question and its context into the spec's Answer object.
 * Implemented by the extractive answerer (no model) and by the language-model answerer.
 */

import type { AbstentionCheck, AbstentionReason, AnswerabilityDecision } from "./abstention.js";
import type { Answer } from "./answer.js";
import type { AnswerContext } from "./answer-context.js";
import type { Evidence, TableEvidence } from "./evidence.js";

/** Input of {@link Answerer.answer}. */
export interface AnswerRequest {
  /** The (normalised, possibly rewritten) question. */
  question: string;
  /** The retrieved context with its source keys. */
  context: AnswerContext;
  /**
   * Condensed conversation history (`condenseHistory`), shown to a language model as context
   * only, never as a source; ignored by the extractive answerer. Default none.
   */
  history?: string | undefined;
  /**
   * Sub-queries of a decomposed question, given when `SUBQUERY_REASONING_ENABLED` is true so a
   * language model answers each part; ignored by the extractive answerer. Default none.
   */
  subqueries?: readonly string[] | undefined;
  /**
   * The context's sentences ranked against the question (`rankEvidence`), as the pipeline's
   * `decide-answerable` stage computed them (with the dense signal when a model is loaded). The
   * extractive answerer selects from them; given them, it leaves the abstention decision to the
   * pipeline. Default none: the extractive answerer ranks and decides itself.
   */
  evidence?: Evidence | undefined;
  /**
   * The answer computed over a whole table (`tableEvidence`) when the best units are a table's
   * cells; the extractive answerer answers with it when it is more probably right than the best
   * unit. Default none.
   */
  table?: TableEvidence | undefined;
  /**
   * Embeds texts as passages with the service's embedding model (through its cache), for the
   * dense part of grounding a model's answer (`groundAnswer`); default none (lexical only).
   */
  embedPassages?: ((texts: string[]) => Promise<number[][]>) | undefined;
  /**
   * The pipeline's decision with every check, given when the request's own decision ran fewer
   * because a model answers (`ABSTENTION_CHECKS=auto`; not when the setting names the checks): an extractive answer given in place of the
   * model's (its output unusable) must pass what the extractive answerer's own answers pass, or
   * the request abstains with this decision's reason. Default none.
   */
  fallbackDecision?: AnswerabilityDecision | undefined;
  signal?: AbortSignal | undefined;
}

/** How an answer was produced; reported in PERF lines as `answer_mode`. */
export type AnswerMode = "model" | "extractive" | "extractive-fallback" | "empty-context";

/** Output of {@link Answerer.answer}: the answer before citation resolution. */
export interface GeneratedAnswer {
  answer: Answer;
  mode: AnswerMode;
  /** Model name for PERF lines (`extractive` for the extractive answerer). */
  model: string;
  /** True when the answerer (or the pipeline before it) decided the context does not answer the question. */
  abstained: boolean;
  /**
   * Why it abstained (`no_documents`, `not_answerable`, `low_relevance`); null or absent when it
   * answered. A model that abstains reports `not_answerable`.
   */
  abstentionReason?: AbstentionReason | null | undefined;
  /**
   * The check that decided the answerer's own abstention, when it abstained (`model_declined`: a
   * chat model answered that the sources hold no answer); the pipeline reports it as `abstention_check`.
   */
  abstentionCheck?: AbstentionCheck | null | undefined;
  /** Model generation settings for PERF lines; null when not applicable. */
  numPredict: number | null;
  numCtx: number | null;
  /**
   * Why the extractive answer replaced a model's (`mode: "extractive-fallback"`): `empty_output`,
   * `unparseable_output`, `empty_answer`, `no_valid_citation`, `answer_type` or `stream_interrupted` (see
   * `createModelAnswerer`); null or absent otherwise. Reported as `fallback_reason`.
   */
  fallbackReason?: string | null | undefined;
  /** `PROMPT_VERSION` of the prompt a model was asked with; null or absent when no model was called. */
  promptVersion?: string | null | undefined;
}

/** Produces answers from context. */
export interface Answerer {
  /** Name used in logs, for example `extractive` or `openai`. */
  readonly name: string;
  answer(request: AnswerRequest): Promise<GeneratedAnswer>;
}
