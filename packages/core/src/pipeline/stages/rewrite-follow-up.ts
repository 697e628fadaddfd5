/**
 * Stage `rewrite-follow-up`: a follow-up question ("and for contractors?") is rewritten into a
 * standalone query from the thread's history, by the chat model when one is ready (condense
 * prompt) or by the documented heuristic (see `rewriteFollowUp`, docs/memory.md). The question
 * itself is kept for the answer and the memory.
 */
import { rewriteFollowUp as rewrite } from "../../memory/rewrite-follow-up.js";
import { checkedQuery } from "../../retrieval/normalize-query.js";
import type { PredictState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes `query` and `rewriteMethod`. */
export const rewriteFollowUp: Stage<PredictState> = {
  name: "rewrite-follow-up",
  phase: "request",
  async run(state, runtime) {
    const model = runtime.chatModel.status === "ready" ? runtime.chatModel.model : undefined;
    const rewritten = await rewrite(state.question, state.history, { model, signal: state.signal });
    state.query = checkedQuery(rewritten.query, runtime.config.retrieval.maxQueryChars);
    state.rewriteMethod = rewritten.method;
  },
};
