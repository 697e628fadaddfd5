/**
 * Stage `count-matches` (`search` only; spec "Search response": `total`, "Total number of
 * matches"): how many chunks match the search, not how many were returned. A match is a chunk the
 * user may read that passes the request's filters and holds at least one of the query's terms
 * (what BM25 scores), or one of the results (a vector match without the query's words). The
 * keyword index counts them in one query under the same principal pre-filter as the search
 * (`KeywordIndex.countByText`), without scoring or returning them; an index that cannot count
 * leaves `total` unset (the number of results is reported).
 */
import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";

/** Writes `total`. */
export const countMatches: Stage<RetrievalState> = {
  name: "count-matches",
  phase: "retrieval",
  async run(state, runtime) {
    const keyword = runtime.stores.keyword;
    if (!keyword.countByText) return;
    state.signal?.throwIfAborted();
    state.total = await keyword.countByText(state.orgId, state.queries[0]?.text ?? state.query, {
      filter: { ...state.filter, principal: state.principal },
      include: state.chunks.map((result) => result.chunk.id),
      signal: state.signal,
    });
  },
};
