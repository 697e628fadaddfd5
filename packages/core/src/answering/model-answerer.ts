/**
 * Types of the model answerer: its requests, its answers with diagnostics, and its stream events.
 */
import type { Answerer, AnswerRequest, GeneratedAnswer } from "./answerer.js";
import type { AnswerRepair, UnrepairableReason } from "./repair-answer.js";
import type { ResolvedCitations } from "./resolve-citations.js";

/** Why a model answer was replaced by the extractive answer; see `createModelAnswerer`. */
export type ModelFallbackReason = UnrepairableReason | "no_valid_citation" | "unsupported_answer" | "answer_type" | "stream_interrupted";

/** A request to the model answerer: the {@link AnswerRequest} plus conversation and sub-queries. */
export interface ModelAnswerRequest extends AnswerRequest {
  /** Condensed conversation history (`condenseHistory`), shown to the model as context only. */
  history?: string | undefined;
  /** Sub-queries of a decomposed question, shown when `SUBQUERY_REASONING_ENABLED` is true. */
  subqueries?: readonly string[] | undefined;
}

/** A {@link GeneratedAnswer} with the model answerer's diagnostics. */
export interface ModelGeneratedAnswer extends GeneratedAnswer {
  /** Why the extractive fallback answered; null when `mode` is `model`. Report as `fallback_reason`. */
  fallbackReason: ModelFallbackReason | null;
  /** A sentence explaining the fallback (no document text); null when `mode` is `model`. */
  fallbackDetail: string | null;
  /** Repairs applied to the model's output (see `repairAnswer`). */
  repairs: AnswerRepair[];
  /** `PROMPT_VERSION` of the prompt used. */
  promptVersion: string;
  /** Model calls made, retries included. */
  attempts: number;
  /** Sentences and list items `groundAnswer` gave a citation by alignment, those it dropped, and those naming what their cited passage lacks (cited again or dropped); null when it did not run. */
  grounding: { attached: number; dropped: number; unsupportedNames: number } | null;
}

/** An event of {@link ModelAnswerer.stream}. */
export type AnswerStreamEvent =
  | {
      type: "token";
      /** Raw text as the model streams it: JSON fragments of the structured answer. */
      text: string;
    }
  | {
      type: "final";
      /** The answer, identical to what `answer()` returns for the same model output. */
      generated: ModelGeneratedAnswer | GeneratedAnswer;
      /** `resolveCitations(generated.answer, context.sources)`: the client-visible answer and cited sources. */
      resolved: ResolvedCitations;
    };

/** The model answerer. */
export interface ModelAnswerer extends Answerer {
  answer(request: ModelAnswerRequest): Promise<ModelGeneratedAnswer>;
  /**
   * Streams the answer: `token` events while the model writes, then one `final` event. The
   * final event is authoritative: tokens are a preview, and after a cut stream the final answer
   * is the extractive fallback.
   */
  stream(request: ModelAnswerRequest): AsyncIterable<AnswerStreamEvent>;
}
