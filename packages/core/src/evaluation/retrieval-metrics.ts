/**
 * Ranking metrics with their standard definitions, as computed by trec_eval:
 *
 * - nDCG@k (Järvelin & Kekäläinen, 2002): DCG@k = Σ_{i=1..k} gain_i / log2(i + 1), where gain is
 *   the graded relevance from the qrels (trec_eval's linear gain, BEIR's `ndcg_cut`), divided by
 *   the DCG of the ideal ranking of all judged documents.
 * - recall@k: relevant documents (grade > 0) in the top k over all relevant documents.
 * - MRR@k: 1 / rank of the first relevant document within the top k, else 0.
 *
 * Queries with no relevant document are skipped by the aggregate functions, as in BEIR.
 */

/** Relevance judgements of one query: document id to grade. */
export type Judgements = ReadonlyMap<string, number>;

/** nDCG at cut-off `k` of a ranked list of document ids. */
export function ndcgAtK(ranking: readonly string[], judgements: Judgements, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((docId, index) => {
    dcg += (judgements.get(docId) ?? 0) / Math.log2(index + 2);
  });
  const ideal = [...judgements.values()]
    .filter((grade) => grade > 0)
    .sort((left, right) => right - left)
    .slice(0, k)
    .reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Recall at cut-off `k`. */
export function recallAtK(ranking: readonly string[], judgements: Judgements, k: number): number {
  const relevant = [...judgements].filter(([, grade]) => grade > 0).map(([docId]) => docId);
  if (relevant.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter((docId) => top.has(docId)).length / relevant.length;
}

/** Reciprocal rank of the first relevant document within the top `k`. */
export function reciprocalRankAtK(ranking: readonly string[], judgements: Judgements, k: number): number {
  const index = ranking.slice(0, k).findIndex((docId) => (judgements.get(docId) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** Mean metrics over queries. */
export interface RetrievalMetrics {
  ndcgAt10: number;
  recallAt10: number;
  recallAt100: number;
  mrrAt10: number;
  /** Queries evaluated (those with at least one relevant document). */
  queries: number;
}

/** Averages the metrics over every query that has a relevant document. */
export function meanMetrics(runs: readonly { ranking: readonly string[]; judgements: Judgements }[]): RetrievalMetrics {
  const judged = runs.filter((run) => [...run.judgements.values()].some((grade) => grade > 0));
  const mean = (metric: (run: (typeof judged)[number]) => number) =>
    judged.length === 0 ? 0 : judged.reduce((sum, run) => sum + metric(run), 0) / judged.length;
  return {
    ndcgAt10: mean((run) => ndcgAtK(run.ranking, run.judgements, 10)),
    recallAt10: mean((run) => recallAtK(run.ranking, run.judgements, 10)),
    recallAt100: mean((run) => recallAtK(run.ranking, run.judgements, 100)),
    mrrAt10: mean((run) => reciprocalRankAtK(run.ranking, run.judgements, 10)),
    queries: judged.length,
  };
}
