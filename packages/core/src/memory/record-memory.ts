/**
 * Stage `record-memory` (spec `POST /predict` step 9, "update session memory after the response
 * has been returned"): the turn is written to the thread and the session in the background; the
 * stage returns at once and a failed write never fails the request.
 */
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";

/** Schedules the turn's write; reads `answer`, `sources`, `question` and `query`. */
export const recordMemory: Stage<PredictState> = {
  name: "record-memory",
  phase: "request",
  run(state) {
    if (!state.conversation || !state.answer) return;
    state.conversation.record(
      { orgId: state.orgId, userName: state.principal.userName, threadId: state.threadId },
      {
        question: state.question,
        rewrittenQuery: state.query === state.question ? undefined : state.query,
        answer: state.answer.callout_answer,
        citedDocIds: [...new Set(Object.values(state.sources).map((source) => String(source.metadata.doc_id)))],
        createdAt: Date.now(),
      },
    );
  },
};
