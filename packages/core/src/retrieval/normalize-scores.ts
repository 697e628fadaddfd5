/**
 * Score normalisation before fusion (spec "Processing order" step 4: "each score list
 * normalised"). BM25 scores are unbounded and cosine similarities live in [-1, 1]; fusing them
 * raw lets whichever scale is larger dominate, so each list is mapped to [0, 1] first.
 */
import type { ScoreNormalization } from "../config/config-schema.js";

/**
 * Maps `scores` to [0, 1], keeping their order.
 *
 * - `min-max`: (s − min) / (max − min). The best result of a list gets 1, the worst 0.
 * - `z-score`: Φ((s − mean) / standard deviation), where Φ is the standard normal CDF, so
 *   scores far above the list's mean approach 1 (Fox & Shaw, 1994, "Combination of Multiple
 *   Searches", CombSUM with standardised scores; Φ maps the z-score into [0, 1]).
 *
 * Edge cases: an empty list gives an empty list; a list whose scores are all equal (including a
 * single result) gives 1 for every item, since each is as good as the list's best.
 */
export function normalizeScores(scores: readonly number[], method: ScoreNormalization): number[] {
  if (scores.length === 0) return [];
  let minimum = Number.POSITIVE_INFINITY;
  let maximum = Number.NEGATIVE_INFINITY;
  for (const score of scores) {
    if (score < minimum) minimum = score;
    if (score > maximum) maximum = score;
  }
  if (maximum - minimum <= Number.EPSILON * Math.max(1, Math.abs(maximum))) return scores.map(() => 1);
  if (method === "min-max") return scores.map((score) => (score - minimum) / (maximum - minimum));
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const deviation = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length);
  return scores.map((score) => standardNormalCdf((score - mean) / deviation));
}

/**
 * The standard scores (s − mean) / standard deviation of `scores`, all 0 when the scores are
 * equal. Unlike the z-score normalisation, which maps them through Φ, they stay distinct at any
 * magnitude: Φ(z) rounds to exactly 1 in double precision from z ≈ 8.3, which a list of a few
 * hundred BM25 scores with a long tail reaches. {@link fuseWeighted} breaks ties with them.
 */
export function standardScores(scores: readonly number[]): number[] {
  if (scores.length === 0) return [];
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const deviation = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length);
  return deviation > 0 ? scores.map((score) => (score - mean) / deviation) : scores.map(() => 0);
}

/**
 * Φ(x), the standard normal cumulative distribution, via the Abramowitz & Stegun 7.1.26
 * approximation of erf (absolute error below 1.5e-7).
 */
export function standardNormalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const polynomial = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - polynomial * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}
