/**
 * Stage `rerank` (spec `POST /predict` step 5, `USE_RERANKER`): each query's readable results are
 * reranked (`rerankResults`: the first `RERANK_DEPTH` scored, those at or above
 * `RERANKER_SCORE_THRESHOLD` kept, at most `RERANK_TOP_K`). Does nothing without a reranker.
 */
import { rerankResults } from "../../retrieval/rerank-results.js";
import type { RetrievalState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Rewrites each retrieval's `results`. */
export const rerankCandidates: Stage<RetrievalState> = {
  name: "rerank",
  phase: "retrieval",
  async run(state) {
    const reranker = state.settings.reranker;
    if (!reranker) return;
    await Promise.all(
      state.retrievals.map(async (retrieval) => {
        retrieval.results = await rerankResults(reranker, retrieval.query.text, retrieval.results, state.signal);
      }),
    );
  },
};
