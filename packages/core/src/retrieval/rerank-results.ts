/**
 * Reranking (spec processing order step 5, `USE_RERANKER`): the first `RERANK_DEPTH` results are
 * scored by the reranker against the query; those scoring at least `RERANKER_SCORE_THRESHOLD`
 * are kept, best first, at most `RERANK_TOP_K`.
 */

import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { RetrievalSettings, RetrievedChunk } from "./retrieval-settings.js";

/**
 * Reranks `results` for `query`. Inputs are not mutated; each kept result carries its
 * `rerankScore` (a result the reranker gave no score counts as `-Infinity`).
 */
export async function rerankResults(
  settings: NonNullable<RetrievalSettings["reranker"]>,
  query: string,
  results: readonly RetrievedChunk[],
  signal?: AbortSignal,
): Promise<RetrievedChunk[]> {
  const candidates = results.slice(0, settings.depth);
  if (candidates.length === 0) return [];
  const scores = await settings.reranker.score(
    query,
    candidates.map((candidate) => candidate.chunk),
    signal,
  );
  return candidates
    .map((candidate, index) => ({ ...candidate, rerankScore: scores[index] ?? Number.NEGATIVE_INFINITY }))
    .filter((candidate) => candidate.rerankScore >= settings.threshold)
    .sort((left, right) => right.rerankScore - left.rerankScore)
    .slice(0, settings.topK);
}

/**
 * Stage `rerank` (spec `POST /predict` step 5, `USE_RERANKER`): each query's readable results are
 * reranked (`rerankResults`: the first `RERANK_DEPTH` scored, those at or above
 * `RERANKER_SCORE_THRESHOLD` kept, at most `RERANK_TOP_K`). Does nothing without a reranker.
 *
 * Rewrites each retrieval's `results`.
 */
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
