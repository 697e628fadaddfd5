/**
 * The language-model answerer (spec `POST /predict` step 8): the grounded prompt of
 * `prompts.ts`, a structured call through `withStructuredOutput`, the repair path of
 * {@link repairAnswer}, and the extractive answer as the fallback when the model's output
 * cannot be used. Implements the {@link Answerer} interface, plus token streaming.
 *
 * Outcomes:
 * - `mode: "model"`: the model's answer, repaired if needed (`repairs` lists how). When the
 *   model says the sources do not answer the question, the answer is the spec's empty-context
 *   answer and `abstained` is true.
 * - The model's answer is grounded in the context when the request carries the ranked evidence
 *   ({@link groundAnswer}): a decline ("the sources do not say") is a typed abstention
 *   (`abstentionCheck: "model_declined"`), uncited sentences get the citation of the passage that
 *   supports them or are dropped, repeats and restatements leave the lists.
 * - When no sentence of the model's callout is supported by the context (after grounding), the
 *   answer is the empty-context answer with `abstained: true`, `abstentionReason:
 *   "not_answerable"` and `abstentionCheck: "model_unsupported"`.
 * - `mode: "extractive-fallback"` with `fallbackReason`: the model answered but its output was
 *   unusable: `empty_output`, `unparseable_output`, `empty_answer`, `no_valid_citation` (with
 *   `requireCitation`, an answer citing no key of the context: every citation was invented or
 *   missing), `answer_type` (a grounded callout stating no number or date for a question asking
 *   one, while the context's best unit states one: {@link missesAnswerType}), or
 *   `stream_interrupted` (a streamed reply that broke off, by a cut connection or a
 *   timeout, after tokens were sent: it cannot be retried, and the client already has a 200
 *   response). The extractive answerer then answers from the same context; `model` still names
 *   the model that was called. When the request carries the pipeline's decision with every check
 *   (`fallbackDecision`) and it declines, the fallback is that abstention instead (its reason and
 *   check), as the extractive answerer's own answer would have been.
 * - A thrown {@link DocqaError} `model_unavailable` when the model cannot be reached or keeps
 *   failing, `model_timeout` when it times out (see `callWithResilience`).
 *
 * A context key named in a free form ("described in document doc_1", "[doc_1]") is read as a
 * citation of it ({@link markBareCitations}), and the prompt's tags a model echoes
 * (`<sources>[Source: doc_1]>`) are removed, before grounding and the citation check.
 * Citations to keys that were never in the context are left for `resolveCitations` to drop (the
 * service reports them as `droppedCitations`); a source is never invented.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type ResiliencePolicy, resiliencePolicy } from "../chat-models/call-with-resilience.js";
import { defaultStructuredOutputMethod, invokeStructured, type StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import { answerJsonSchema, answerMessages, PROMPT_VERSION, withoutPromptTags } from "../prompts/prompts.js";
import type { Analyzer } from "../text/analyzer.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { type Answer, emptyContextAnswer } from "./answer.js";
import type { Answerer } from "./answerer.js";
import { citedKeys, markBareCitations, stripCitations } from "./citations.js";
import type { AbstentionReason } from "./decide-answerable.js";
import { createExtractiveAnswerer } from "./extractive-answerer.js";
import { groundAnswer, isDecline } from "./ground-answer.js";
import { matchedField } from "./matched-field.js";
import type { ModelAnswerer, ModelAnswerRequest, ModelFallbackReason, ModelGeneratedAnswer } from "./model-answerer.js";
import { expectedAnswerType, offersAnswerType } from "./question-cues.js";
import type { Evidence } from "./rank-evidence.js";
import { type AnswerRepair, repairAnswer } from "./repair-answer.js";
import { streamAnswerEvents } from "./stream-model-answer.js";

/** Settings of {@link createModelAnswerer}. */
export interface ModelAnswererSettings {
  /** A LangChain chat model (`ChatOpenAI`, `ChatOllama`, ...), for example from `chatModelFromConfig`. */
  model: BaseChatModel;
  /** Answerer name for logs and health; default the model's provider type (`openai`, `ollama`). */
  name?: string;
  /** Model name for PERF lines (`model`); default the model's `model` field. */
  modelName?: string;
  /** `LOCALLLM_NUM_PREDICT` for PERF lines (`num_predict`); default null. */
  numPredict?: number | null;
  /** `LOCALLLM_NUM_CTX` for PERF lines (`num_ctx`); default null. */
  numCtx?: number | null;
  /** Structured output method; default `defaultStructuredOutputMethod(model)` (see {@link StructuredOutputMethod}). */
  structuredOutputMethod?: StructuredOutputMethod;
  /** Answerer used when the output is unusable; default the extractive answerer. */
  fallback?: Answerer;
  /** Timeouts and retries; defaults of `defaultResiliencePolicy`. */
  resilience?: Partial<ResiliencePolicy>;
  /** Fall back when a non-abstaining answer cites no key of the context; default true. */
  requireCitation?: boolean;
  /** Analyzer of the grounding's alignment; default {@link createEnglishAnalyzer}. */
  analyzer?: Analyzer;
  logger?: Logger;
}

/**
 * Creates the model answerer.
 *
 * @example
 * ```ts
 * const choice = await chatModelFromConfig(config, { logger });
 * const answerer = choice.status === "ready"
 *   ? createModelAnswerer({ model: choice.model, modelName: choice.modelName, numPredict: choice.numPredict, numCtx: choice.numCtx })
 *   : createExtractiveAnswerer();
 * ```
 */
export function createModelAnswerer(settings: ModelAnswererSettings): ModelAnswerer {
  const { model } = settings;
  const name = settings.name ?? model._llmType();
  const modelName = settings.modelName ?? modelNameOf(model) ?? name;
  const method = settings.structuredOutputMethod ?? defaultStructuredOutputMethod(model);
  const fallback = settings.fallback ?? createExtractiveAnswerer();
  const policy = resiliencePolicy(settings.resilience);
  const requireCitation = settings.requireCitation ?? true;
  const logger = settings.logger ?? silentLogger;
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();

  const base = (
    answer: Answer,
    attempts: number,
    repairs: AnswerRepair[],
    abstained: boolean,
    abstentionReason: AbstentionReason | null = abstained ? "not_answerable" : null,
    grounding: ModelGeneratedAnswer["grounding"] = null,
  ): ModelGeneratedAnswer => ({
    answer,
    mode: "model",
    model: modelName,
    abstained,
    abstentionReason,
    abstentionCheck: null,
    grounding,
    numPredict: settings.numPredict ?? null,
    numCtx: settings.numCtx ?? null,
    fallbackReason: null,
    fallbackDetail: null,
    repairs,
    promptVersion: PROMPT_VERSION,
    attempts,
  });

  const fallBack = async (
    request: ModelAnswerRequest,
    reason: ModelFallbackReason,
    detail: string,
    attempts: number,
    repairs: AnswerRepair[],
  ): Promise<ModelGeneratedAnswer> => {
    logger.warn(`model output unusable; answering extractively: ${detail}`, {
      component: name,
      model: modelName,
      fallback_reason: reason,
      prompt_version: PROMPT_VERSION,
    });
    const decision = request.fallbackDecision;
    if (decision && !decision.answerable) {
      // The extractive answer would not pass the checks its own answers pass: abstain instead.
      return {
        ...base(emptyContextAnswer(), attempts, repairs, true, decision.reason ?? "not_answerable"),
        mode: "extractive-fallback",
        abstentionCheck: decision.check,
        fallbackReason: reason,
        fallbackDetail: detail,
      };
    }
    const extracted = await fallback.answer({
      question: request.question,
      context: request.context,
      evidence: request.evidence,
      signal: request.signal,
    });
    return {
      ...base(extracted.answer, attempts, repairs, extracted.abstained, extracted.abstentionReason ?? null),
      mode: "extractive-fallback",
      fallbackReason: reason,
      fallbackDetail: detail,
    };
  };

  const generate = async (request: ModelAnswerRequest, onToken?: (text: string) => void): Promise<ModelGeneratedAnswer> => {
    let streamed = false;
    const forward = onToken
      ? (text: string) => {
          streamed = true;
          onToken(text);
        }
      : undefined;
    let output: Awaited<ReturnType<typeof invokeStructured>>;
    try {
      output = await invokeStructured({
        model,
        schema: answerJsonSchema,
        name: "answer",
        method,
        messages: answerMessages({
          question: request.question,
          contextText: request.context.text,
          history: request.history,
          subqueries: request.subqueries,
          matchedField: request.evidence ? matchedField(request.evidence, request.context) : undefined,
        }),
        policy,
        component: name,
        modelName,
        signal: request.signal,
        onToken: forward,
        mayRetry: () => !streamed,
      });
    } catch (error) {
      // Tokens already reached the client (an SSE response has begun): end it with an answer.
      const details = DocqaError.isInstance(error) ? (error.details as { reason?: string; attempts?: number } | undefined) : undefined;
      if (streamed && details && !request.signal?.aborted) {
        return fallBack(
          request,
          "stream_interrupted",
          `the model's stream broke off after tokens were sent (${(error as DocqaError).publicMessage})`,
          details.attempts ?? 1,
          [],
        );
      }
      throw error;
    }
    const [first, ...others] = output.candidates;
    if (first === undefined) {
      const detail = output.parseError ? `the provider could not parse the output: ${output.parseError}` : "the model returned no output";
      return fallBack(request, output.parseError ? "unparseable_output" : "empty_output", detail, output.attempts, []);
    }
    let outcome = repairAnswer(first);
    for (const candidate of others) {
      if (outcome.ok) break;
      const next = repairAnswer(candidate);
      if (next.ok) outcome = next;
    }
    if (!outcome.ok) return fallBack(request, outcome.reason, outcome.detail, output.attempts, outcome.repairs);
    const declined = () => ({
      ...base(emptyContextAnswer(), output.attempts, outcome.repairs, true),
      abstentionCheck: "model_declined" as const,
    });
    if (isDecline(outcome.answer.callout_answer)) return declined();
    let answer = tidyModelAnswer(outcome.answer, Object.keys(request.context.sources));
    let grounding: ModelGeneratedAnswer["grounding"] = null;
    if (request.evidence) {
      const grounded = await groundAnswer(answer, request.context, request.evidence, {
        analyzer,
        embedPassages: request.embedPassages,
        question: request.question,
      });
      if (grounded.declined) return declined();
      grounding = { attached: grounded.attached, dropped: grounded.dropped, unsupportedNames: grounded.unsupportedNames };
      if (grounded.answer.callout_answer === "" && grounded.pointerOnly) {
        // "This information is provided in [Source: doc_1].": the model says a source answers but
        // states nothing; the extractive answer states what the evidence holds.
        return fallBack(request, "empty_answer", "the model's answer only pointed at a source", output.attempts, outcome.repairs);
      }
      if (grounded.answer.callout_answer === "") {
        // The model read the context and wrote nothing it supports: its own sign that the context
        // does not answer (an out-of-corpus question, or SQuAD 2.0's unanswerable ones, which a
        // small model answers with an entity of another passage). Abstain rather than guess.
        logger.debug("model answer unsupported by the context", {
          component: name,
          model: modelName,
          callout: answer.callout_answer,
          dropped: grounded.dropped,
          unsupportedNames: grounded.unsupportedNames,
        });
        return {
          ...base(emptyContextAnswer(), output.attempts, outcome.repairs, true, "not_answerable", {
            attached: grounded.attached,
            dropped: grounded.dropped,
            unsupportedNames: grounded.unsupportedNames,
          }),
          abstentionCheck: "model_unsupported" as const,
        };
      }
      answer = grounded.answer;
      if (missesAnswerType(request.question, answer.callout_answer, request.evidence)) {
        return fallBack(
          request,
          "answer_type",
          "the model's answer states no value of the type the question asks for",
          output.attempts,
          outcome.repairs,
        );
      }
    }
    if (requireCitation) {
      const cited = citedKeys(answerText(answer));
      if (!cited.some((key) => Object.hasOwn(request.context.sources, key))) {
        const detail =
          cited.length === 0
            ? "the model's answer cites no source"
            : `the model's answer cites only keys that are not in the context (${cited.join(", ")})`;
        return fallBack(request, "no_valid_citation", detail, output.attempts, outcome.repairs);
      }
    }
    if (outcome.repairs.length > 0) {
      logger.info("model output repaired", { component: name, model: modelName, repairs: outcome.repairs });
    }
    return base(answer, output.attempts, outcome.repairs, false, null, grounding);
  };

  return {
    name,
    answer: (request) => generate(request),
    stream: (request) => streamAnswerEvents(request, generate),
  };
}

/**
 * The answer without the prompt's tags it echoed ({@link withoutPromptTags}) and with the free
 * forms of citation ("document doc_1", "[doc_1]") written as markers ({@link markBareCitations}).
 */
function tidyModelAnswer(answer: Answer, keys: readonly string[]): Answer {
  const mark = (text: string) => withoutPromptTags(markBareCitations(text, keys));
  return {
    ...answer,
    callout_answer: mark(answer.callout_answer),
    positive_list: answer.positive_list.map(mark),
    negative_list: answer.negative_list.map(mark),
    info_list: answer.info_list.map(mark),
  };
}

function answerText(answer: Answer): string {
  return [answer.callout_answer, ...answer.positive_list, ...answer.negative_list, ...answer.info_list].join("\n");
}

function modelNameOf(model: BaseChatModel): string | undefined {
  const candidate = model as unknown as { model?: unknown; modelName?: unknown };
  if (typeof candidate.model === "string") return candidate.model;
  return typeof candidate.modelName === "string" ? candidate.modelName : undefined;
}

/**
 * Whether a grounded callout misses the answer type its question asks for while the context's
 * best unit offers it (`fallbackReason: "answer_type"`): a question asking for a number or a date
 * ("How many…?", "In what year…?", {@link expectedAnswerType}) whose callout states none that the
 * question lacks ({@link offersAnswerType}), as a small model answers "In what year did GAO
 * designate…?" with the report's title. Entities and code are read too loosely for this test.
 */
export function missesAnswerType(question: string, callout: string, evidence: Pick<Evidence, "units">): boolean {
  const type = expectedAnswerType(question);
  if (type !== "number" && type !== "date") return false;
  return offersAnswerType(stripCitations(callout), question, type) === false && evidence.units[0]?.features.typeOffered === 1;
}
