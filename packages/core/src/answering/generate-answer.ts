/**
 * Stage `generate` (spec `POST /predict` steps 7 and 8): with an empty context and
 * `SKIP_LLM_ON_EMPTY_CONTEXT`, or when `decide-answerable` decided that the context does not
 * answer the question, the spec's empty-context answer without calling the answerer, with
 * `abstained: true` and the reason; otherwise the answerer (model or extractive) answers from the
 * context and its ranked sentences (`evidence`), shown the condensed
 * history and, with `SUBQUERY_REASONING_ENABLED`, the sub-queries. With an `onToken` listener the
 * model is called in streaming mode; the result is the same.
 */

import { DocqaError } from "../errors/docqa-error.js";
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import { condenseHistory } from "../prompts/prompts.js";
import { emptyContextAnswer } from "./answer.js";
import type { Answerer, AnswerRequest, GeneratedAnswer } from "./answerer.js";
import { decideForRequest, effectiveChecks } from "./decide-answerable.js";
import { passageEmbedder } from "./rank-evidence.js";
import { streamModelAnswer } from "./stream-model-answer.js";

/** Writes `generated`. */
export const generateAnswer: Stage<PredictState> = {
  name: "generate",
  phase: "generation",
  async run(state, runtime) {
    const { config, answerer } = runtime;
    const empty = state.context.entries.length === 0;
    const decision = state.answerability;
    if ((empty && config.answering.skipModelOnEmptyContext) || (!empty && decision && !decision.answerable)) {
      state.generated = {
        answer: emptyContextAnswer(),
        mode: "empty-context",
        model: runtime.answererModel,
        abstained: true,
        abstentionReason: empty ? "no_documents" : (decision?.reason ?? "not_answerable"),
        numPredict: null,
        numCtx: null,
        fallbackReason: null,
      };
      return;
    }
    const request: AnswerRequest = {
      question: state.query,
      context: state.context,
      evidence: state.evidence,
      table: state.tableAnswer,
      history: state.history.length > 0 ? condenseHistory(state.history) : undefined,
      subqueries: config.answering.subqueryReasoningEnabled && state.subqueries.length > 0 ? state.subqueries : undefined,
      embedPassages: passageEmbedder(runtime, state.orgId),
      // ABSTENTION_CHECKS=auto ran only the relevance check before a model; its stand-in must pass them all.
      fallbackDecision:
        state.evidence && config.answering.abstentionChecks === "auto" && effectiveChecks(runtime) === "relevance"
          ? decideForRequest(state, runtime, "all")
          : undefined,
      signal: state.signal,
    };
    const onToken = state.request.onToken;
    const generated = onToken ? await streamedAnswer(answerer, request, onToken) : await answerer.answer(request);
    state.generated = generated.abstained
      ? { ...generated, abstentionReason: generated.abstentionReason ?? (empty ? "no_documents" : "not_answerable") }
      : { ...generated, abstentionReason: null };
    // The answerer's own abstention (a model that declined) is the request's decision.
    if (generated.abstained && decision && generated.abstentionCheck) {
      state.answerability = {
        ...decision,
        answerable: false,
        reason: state.generated.abstentionReason ?? "not_answerable",
        check: generated.abstentionCheck,
      };
    }
  },
};

/**
 * Answers through the answerer's stream (`streamModelAnswer`): tokens go to `onToken`, the final
 * event's answer is returned. An answerer without streaming yields only its final answer.
 */
async function streamedAnswer(answerer: Answerer, request: AnswerRequest, onToken: (text: string) => void): Promise<GeneratedAnswer> {
  for await (const event of streamModelAnswer(answerer, request)) {
    if (event.type === "token") onToken(event.text);
    else return event.generated;
  }
  throw new DocqaError("internal_error", "the answer stream ended without a final answer", { component: "service" });
}
