/**
 * Stage `access-filter` (spec `POST /predict` step 6, "Document access rules"): the seven ACL
 * rules decide, in order, for every candidate of every query (`filterReadable`); filters an index
 * could not push down are checked again. The indexes already pre-filter by principal, so this is
 * the final word: on a correct index it removes nothing.
 */
import { filterReadable } from "../../retrieval/filter-readable.js";
import type { RetrievalState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes each retrieval's `results` from its `candidates`. */
export const filterAccess: Stage<RetrievalState> = {
  name: "access-filter",
  phase: "retrieval",
  run(state) {
    for (const retrieval of state.retrievals) {
      retrieval.results = filterReadable(state.principal, state.filter, retrieval.candidates);
    }
  },
};
