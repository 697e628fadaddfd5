/**
 * The result of `predict`, written once: {@link predictResultSchema} is the one source of truth,
 * {@link PredictResult} is inferred from it, and each endpoint set maps it to its wire shape
 * (set A's `predictResponse`, set B's chat response, the web page's `uiAnswer`).
 *
 * Adding an answer field is two files: the stage that computes it, and here its schema in
 * {@link predictStateFields} with its initial value in {@link initialPredictStateFields}.
 * `PredictState` extends {@link PredictStateFields}, `createPredictState` starts from the initial
 * values and `runPredict` copies the fields into the result ({@link predictStateFieldsOf}). An
 * endpoint set that shows the field adds it to its wire schema.
 */
import { z } from "zod";
import type { AbstentionReason, AnswerabilityDecision } from "../answering/abstention.js";
import { type Answer, answerSchema, type Source, type UnsupportedCitation } from "../answering/answer.js";
import type { AnswerMode } from "../answering/answerer.js";
import type { StageTiming } from "../pipeline/stage.js";

/** Every `AnswerMode`, in the order the wire schemas list them. */
const answerModes = ["model", "extractive", "extractive-fallback", "empty-context"] as const satisfies readonly AnswerMode[];

/** Every `AbstentionReason`, in the order the wire schemas list them. */
const abstentionReasons = ["no_documents", "not_answerable", "low_relevance"] as const satisfies readonly AbstentionReason[];

/** A value whose type lives with the code that computes it: checked to be an object, not restated. */
const computed = <T>() => z.custom<T>((value) => typeof value === "object" && value !== null);

/**
 * The result fields a stage writes on the request state under the same name (the stage that
 * writes each is named in parentheses): `PredictState` extends {@link PredictStateFields}, and
 * `runPredict` copies them into the result as they are.
 */
export const predictStateFields = z.object({
  /** Cited sources only, keyed `doc_<n>` (`resolve-citations`). */
  sources: z.record(z.string(), computed<Source>()),
  /** Keys the model cited that were not in the context, dropped from the answer (`resolve-citations`). */
  droppedCitations: z.array(z.string()),
  /** Cited statements that the chunk they cite does not support (`CITATION_MIN_OVERLAP`); empty when all are supported (`check-citations`). */
  unsupportedCitations: z.array(computed<UnsupportedCitation>()),
  /**
   * The abstention decision of the `decide-answerable` stage with the signals it read (context
   * and sentence coverage, dense similarity), for evaluation and logs; absent only when a custom
   * stage list leaves that stage out.
   */
  answerability: computed<AnswerabilityDecision>().optional(),
  /**
   * Sub-queries retrieved besides the question (`USE_QUERY_DECOMPOSITION`; spec: "The context
   * also carries `subqueries`"); empty when the question is a single clause or decomposition is off (`plan`).
   */
  subqueries: z.array(z.string()),
});

/** The result fields the stages write on `PredictState`; see {@link predictStateFields}. */
export type PredictStateFields = z.infer<typeof predictStateFields>;

/** The initial values of {@link PredictStateFields} for a new request (fresh lists, so requests share nothing). */
export function initialPredictStateFields(): PredictStateFields {
  return { sources: {}, droppedCitations: [], unsupportedCitations: [], answerability: undefined, subqueries: [] };
}

/** The {@link PredictStateFields} of `state`, as they are, for the result. */
export function predictStateFieldsOf(state: PredictStateFields): PredictStateFields {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(predictStateFields.shape) as (keyof PredictStateFields)[]) fields[key] = state[key];
  return fields as PredictStateFields;
}

/**
 * Schema of {@link PredictResult}: {@link predictStateFields} and the fields `runPredict` computes
 * from the state (the answer, its mode and abstention, timings, generation). Fields whose types
 * live with the code that computes them (sources, unsupported citations, the answerability
 * decision, stage timings) are checked as present, not restated; `answer` is `answerSchema`.
 */
export const predictResultSchema = z.object({
  /** The answer, citations resolved. */
  answer: answerSchema as z.ZodType<Answer>,
  ...predictStateFields.shape,
  /** The query as used for retrieval (normalised; rewritten for follow-ups). */
  query: z.string(),
  /** The query as received (set A also reports it as `input`). */
  originalQuery: z.string(),
  /** The thread continued, or the one created for this turn (UUID). */
  threadId: z.string(),
  /** How the answer was produced. */
  answerMode: z.enum(answerModes),
  /**
   * True when the answer is the spec's empty-context answer because the service decided that the
   * readable documents do not answer the question (or there are none); `sources` is then `{}`.
   */
  abstained: z.boolean(),
  /**
   * Why it abstained: `no_documents` (no readable chunk was retrieved), `low_relevance` (what was
   * retrieved is not about the question), `not_answerable` (it is about the subject but does not
   * answer; also when a model abstains); null when it answered.
   */
  abstentionReason: z.enum(abstentionReasons).nullable(),
  /** Milliseconds spent per phase (integers, from the stage timings; `totalMs` from the request's start). */
  timings: z.object({
    retrievalMs: z.number(),
    contextMs: z.number(),
    llmMs: z.number(),
    postMs: z.number(),
    totalMs: z.number(),
  }),
  /** Each stage's name, PERF phase and milliseconds, in the order they ran. */
  stages: z.array(computed<StageTiming>()),
  /** How the answer was generated (also in the PERF `rag_end` line). */
  generation: z.object({
    /** Model name (`RAG_GENERATOR_MODEL`, `LOCALLLM_MODEL`), or `extractive`. */
    model: z.string(),
    /** `LOCALLLM_NUM_PREDICT` sent to the model; null when not applicable. */
    numPredict: z.number().int().nullable(),
    /** `LOCALLLM_NUM_CTX` sent to the model; null when not applicable. */
    numCtx: z.number().int().nullable(),
    /**
     * Why the extractive answer replaced the model's (`answerMode: "extractive-fallback"`):
     * `empty_output`, `unparseable_output`, `empty_answer`, `no_valid_citation` or
     * `stream_interrupted`; null otherwise.
     */
    fallbackReason: z.string().nullable(),
    /** `PROMPT_VERSION` of the answer prompt; null when no model was called. */
    promptVersion: z.string().nullable(),
  }),
});

/** Output of `RagService.predict`; adapters map it to their wire fields. See {@link predictResultSchema}. */
export type PredictResult = z.infer<typeof predictResultSchema>;
