/**
 * Optional stage `mmr` (not in the default lists): reorders each query's results by maximal
 * marginal relevance (Carbonell & Goldstein, 1998, "The use of MMR, diversity-based reranking for
 * reordering documents and producing summaries"), so that near-duplicate chunks (the same
 * paragraph in two versions of a handbook, overlapping chunks) do not fill the top-k:
 *
 *   next = argmax over remaining d of  λ · relevance(d) − (1 − λ) · max over chosen c of similarity(d, c)
 *
 * Relevance is the fused (or reranker) score min-max normalised over the query's results;
 * similarity is the Jaccard overlap of the chunks' analysed terms (no vectors needed, so it
 * works in BM25-only mode too). Insert it after `rerank`:
 *
 * @example
 * ```ts
 * createRagService({ stages: { predict: insertAfter("rerank", diversifyResults({ lambda: 0.7 })) } });
 * ```
 */

import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { Analyzer } from "../text/analyzer.js";
import type { RetrievedChunk } from "./retrieval-settings.js";

/** Settings of {@link diversifyResults}. */
export interface DiversifySettings {
  /** λ in [0, 1]: 1 ranks by relevance alone, 0 by novelty alone; default 0.7. */
  lambda?: number;
}

/** Creates the `mmr` stage. It rewrites each retrieval's `results` (same items, MMR order). */
export function diversifyResults(settings: DiversifySettings = {}): Stage<RetrievalState> {
  const lambda = Math.min(1, Math.max(0, settings.lambda ?? 0.7));
  return {
    name: "mmr",
    phase: "retrieval",
    run(state, runtime) {
      for (const retrieval of state.retrievals) retrieval.results = maximalMarginalRelevance(retrieval.results, lambda, runtime.analyzer);
    },
  };
}

/** The results in MMR order (see the module documentation). Inputs are not mutated. */
export function maximalMarginalRelevance(results: readonly RetrievedChunk[], lambda: number, analyzer: Analyzer): RetrievedChunk[] {
  if (results.length <= 2) return [...results];
  const relevance = (result: RetrievedChunk) => result.rerankScore ?? result.score;
  const scores = results.map(relevance);
  const low = Math.min(...scores);
  const span = Math.max(...scores) - low;
  const remaining = results.map((result, index) => ({
    result,
    relevance: span > 0 ? ((scores[index] as number) - low) / span : 1,
    terms: new Set(analyzer.analyze(result.chunk.text)),
    redundancy: 0,
  }));
  const chosen: RetrievedChunk[] = [];
  while (remaining.length > 0) {
    let best = 0;
    for (let index = 1; index < remaining.length; index++) {
      const candidate = remaining[index] as (typeof remaining)[number];
      const current = remaining[best] as (typeof remaining)[number];
      const value = lambda * candidate.relevance - (1 - lambda) * candidate.redundancy;
      if (value > lambda * current.relevance - (1 - lambda) * current.redundancy) best = index;
    }
    const [picked] = remaining.splice(best, 1);
    if (!picked) break;
    chosen.push(picked.result);
    for (const other of remaining) other.redundancy = Math.max(other.redundancy, jaccard(picked.terms, other.terms));
  }
  return chosen;
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}
