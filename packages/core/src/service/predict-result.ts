/**
 * The result of `predict`, written once: {@link predictResultSchema} is the one source of truth,
 * {@link PredictResult} is inferred from it, and each endpoint set derives its wire shape from it
 * (`resultWireOf` of `@docqa/http`: set A's `predictResponse`, snake_case; set B's chat response,
 * camelCase); the web page's `uiAnswer` imports its types.
 *
 * Adding an answer field is two files: the stage that computes it, and here its schema in
 * {@link predictStateFields} with its initial value in {@link initialPredictStateFields}, wrapped
 * in `onWire(schema, { sets: ["A", "B"], description })` when the endpoint sets show it.
 * `PredictState` extends {@link PredictStateFields}, `createPredictState` starts from the initial
 * values and `runPredict` copies the fields into the result ({@link predictStateFieldsOf}); each
 * set that the marker names shows the field under its name in the set's case.
 */
import { z } from "zod";
import type { AbstentionReason, AnswerabilityDecision } from "../answering/abstention.js";
import { type Answer, answerSchema, type Source, type UnsupportedCitation } from "../answering/answer.js";
import type { AnswerMode } from "../answering/answerer.js";
import type { StageTiming } from "../pipeline/stage.js";
import { onWire } from "./wire-field.js";

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
  sources: onWire(z.record(z.string(), computed<Source>()), { sets: ["A"] }),
  /** Keys the model cited that were not in the context, dropped from the answer (`resolve-citations`). */
  droppedCitations: onWire(z.array(z.string()), {
    sets: ["A"],
    description: "Source keys the model cited that were not in the context; removed from the answer.",
  }),
  /** Cited statements that the chunk they cite does not support (`CITATION_MIN_OVERLAP`); empty when all are supported (`check-citations`). */
  unsupportedCitations: onWire(z.array(computed<UnsupportedCitation>()), { sets: ["A"] }),
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
  subqueries: onWire(z.array(z.string()), {
    sets: ["A"],
    description: "Sub-queries retrieved besides the question (`USE_QUERY_DECOMPOSITION`); empty for a single-clause question.",
    example: ["How many vacation days do I get", "how do I request them"],
  }),
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
 *
 * The fields wrapped in `onWire` are the ones the endpoint sets show (`sets`), each under its
 * name in the set's case; a set may give a field its own wire schema or OpenAPI prose (set A's
 * `answer`, `sources`, `model`, ...) and adds the wire fields it computes itself (set A's
 * `input`; set B's rendered `response`, `confidence`, ...). The answerability decision and the
 * stage timings are on no wire.
 */
export const predictResultSchema = z.object({
  /** The answer, citations resolved. */
  answer: onWire(answerSchema as z.ZodType<Answer>, { sets: ["A"] }),
  ...predictStateFields.shape,
  /** The query as used for retrieval (normalised; rewritten for follow-ups). */
  query: onWire(z.string(), { sets: ["A"] }),
  /** The query as received (set A also reports it as `input`). */
  originalQuery: onWire(z.string(), { sets: ["A"] }),
  /** The thread continued, or the one created for this turn (UUID). */
  threadId: onWire(z.string(), { sets: ["A"] }),
  /** How the answer was produced. */
  answerMode: onWire(z.enum(answerModes), { sets: ["A"] }),
  /**
   * True when the answer is the spec's empty-context answer because the service decided that the
   * readable documents do not answer the question (or there are none); `sources` is then `{}`.
   */
  abstained: onWire(z.boolean(), {
    sets: ["A", "B"],
    description: "docqa addition: true when the documents the user may read do not answer the question.",
    example: false,
  }),
  /**
   * Why it abstained: `no_documents` (no readable chunk was retrieved), `low_relevance` (what was
   * retrieved is not about the question), `not_answerable` (it is about the subject but does not
   * answer; also when a model abstains); null when it answered.
   */
  abstentionReason: onWire(z.enum(abstentionReasons).nullable(), {
    sets: ["A", "B"],
    description: "docqa addition: why it abstained: `no_documents`, `low_relevance` or `not_answerable`; null when it answered.",
    example: null,
  }),
  /** Milliseconds spent per phase (integers, from the stage timings; `totalMs` from the request's start). */
  timings: z.object({
    retrievalMs: z.number().int(),
    contextMs: z.number().int(),
    llmMs: onWire(z.number().int(), { sets: ["A"], description: "Milliseconds spent generating the answer." }),
    postMs: z.number().int(),
    totalMs: z.number().int(),
  }),
  /** Each stage's name, PERF phase and milliseconds, in the order they ran. */
  stages: z.array(computed<StageTiming>()),
  /** How the answer was generated (also in the PERF `rag_end` line). */
  generation: z.object({
    /** Model name (`RAG_GENERATOR_MODEL`, `LOCALLLM_MODEL`), or `extractive`. */
    model: onWire(z.string(), { sets: ["A"] }),
    /** `LOCALLLM_NUM_PREDICT` sent to the model; null when not applicable. */
    numPredict: onWire(z.number().int().nullable(), { sets: ["A"], description: "`LOCALLLM_NUM_PREDICT` sent to the model, or null." }),
    /** `LOCALLLM_NUM_CTX` sent to the model; null when not applicable. */
    numCtx: onWire(z.number().int().nullable(), { sets: ["A"], description: "`LOCALLLM_NUM_CTX` sent to the model, or null." }),
    /**
     * Why the extractive answer replaced the model's (`answerMode: "extractive-fallback"`):
     * `empty_output`, `unparseable_output`, `empty_answer`, `no_valid_citation`, `answer_type` or
     * `stream_interrupted`; null otherwise.
     */
    fallbackReason: onWire(z.string().nullable(), { sets: ["A"] }),
    /** `PROMPT_VERSION` of the answer prompt; null when no model was called. */
    promptVersion: onWire(z.string().nullable(), {
      sets: ["A"],
      description: "Version of the answer prompt; null when no model was called.",
    }),
  }),
});

/** Output of `RagService.predict`; the endpoint sets derive their wire fields from it. See {@link predictResultSchema}. */
export type PredictResult = z.infer<typeof predictResultSchema>;

/** The fields of {@link predictResultSchema}, by name: the shape an extension of the schema extends (`z.ZodObject<Shape extends PredictResultShape>`). */
export type PredictResultShape = typeof predictResultSchema.shape;
