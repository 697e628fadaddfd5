/**
 * Stage `build-context` (spec `POST /predict` step 8): the selected chunks become the context,
 * each under a source key `doc_<n>` in rank order, within `MAX_DOC_CHARS` per chunk and
 * `MAX_CONTEXT_CHARS` in all (`buildContext`).
 */
import { buildContext as build } from "../../answering/build-context.js";
import type { PredictState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes `context`. */
export const buildContext: Stage<PredictState> = {
  name: "build-context",
  phase: "context",
  run(state, runtime) {
    state.context = build(state.chunks, runtime.config.answering);
  },
};
