/**
 * Stage `resolve-citations` (spec `POST /predict` step 8): `[Source: <key>]` markers are resolved
 * to the `sources` map, citations of keys never in the context are dropped (a source is never
 * invented), and sources the answer does not cite are removed (`resolveCitations`).
 */
import { resolveCitations as resolve } from "../../answering/resolve-citations.js";
import { DocqaError } from "../../errors/docqa-error.js";
import type { PredictState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes `answer`, `sources` and `droppedCitations`. */
export const resolveCitations: Stage<PredictState> = {
  name: "resolve-citations",
  phase: "post",
  run(state) {
    if (!state.generated) {
      throw new DocqaError("internal_error", "no answer was generated before citations were resolved (is the generate stage missing?)", {
        component: "pipeline",
      });
    }
    const resolved = resolve(state.generated.answer, state.context.sources);
    state.answer = resolved.answer;
    state.sources = resolved.sources;
    state.droppedCitations = resolved.unknownKeys;
  },
};
