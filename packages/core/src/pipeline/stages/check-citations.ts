/**
 * Stage `check-citations` (after `resolve-citations`): checks that every cited statement of the
 * answer is supported by the chunk it cites (it appears there, or `CITATION_MIN_OVERLAP` of its
 * terms do; `checkCitations`). The statements that fail are reported as `unsupported_citations`
 * in the response and the PERF `rag_end` line; the answer itself is left as it is.
 */
import { checkCitations as check } from "../../answering/check-citations.js";
import type { PredictState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes `unsupportedCitations`. */
export const checkCitations: Stage<PredictState> = {
  name: "check-citations",
  phase: "post",
  run(state, runtime) {
    if (!state.answer) return;
    state.unsupportedCitations = check(state.answer, state.sources, {
      analyzer: runtime.analyzer,
      minimumOverlap: runtime.config.answering.citationMinOverlap,
    });
  },
};
