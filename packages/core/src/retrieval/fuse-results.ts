/**
 * Fusion of the vector and BM25 result lists, as the spec writes it (processing order step 4):
 * `vector_score * WEIGHT_VECTOR + bm25_score * WEIGHT_BM25`, each list normalised first (see
 * {@link normalizeScores}). A chunk missing from one list contributes 0 for that list.
 */
import type { ScoreNormalization } from "../config/config-schema.js";
import type { ChunkRecord, ScoredChunk } from "../stores/chunk-record.js";
import { normalizeScores, standardScores } from "./normalize-scores.js";

/** A chunk after fusion, with the raw and normalised scores that produced it. */
export interface FusedChunk {
  chunk: ChunkRecord;
  /** Fused score: Σ weight × normalised score. */
  score: number;
  /** Raw cosine similarity, or null when the vector list did not return the chunk (or the engine fused the lists, `HYBRID_SEARCH=engine`). */
  vectorScore: number | null;
  /** Raw BM25 score, or null when the keyword list did not return the chunk (or the engine fused the lists). */
  keywordScore: number | null;
}

/** Inputs of {@link fuseWeighted}. */
export interface WeightedLists {
  vector: readonly ScoredChunk[];
  keyword: readonly ScoredChunk[];
  weightVector: number;
  weightKeyword: number;
  normalization: ScoreNormalization;
}

/**
 * Weighted-sum fusion. Results are sorted by fused score; ties are broken by the weighted sum of
 * standard scores (see {@link standardScores}: z-score normalisation saturates at 1 for the best
 * results of a deep list, and this keeps their order), then by chunk id.
 *
 * @example
 * ```ts
 * fuseWeighted({ vector, keyword, weightVector: 0.5, weightKeyword: 0.5, normalization: "min-max" });
 * ```
 */
export function fuseWeighted(lists: WeightedLists): FusedChunk[] {
  const fused = new Map<string, FusedChunk>();
  const tieBreak = new Map<string, number>();
  const entry = (chunk: ChunkRecord): FusedChunk => {
    let value = fused.get(chunk.id);
    if (!value) fused.set(chunk.id, (value = { chunk, score: 0, vectorScore: null, keywordScore: null }));
    return value;
  };
  const addStandardScores = (list: readonly ScoredChunk[], weight: number) => {
    if (lists.normalization !== "z-score" || weight === 0) return;
    standardScores(list.map((item) => item.score)).forEach((standard, index) => {
      const id = (list[index] as ScoredChunk).chunk.id;
      tieBreak.set(id, (tieBreak.get(id) ?? 0) + weight * standard);
    });
  };
  addStandardScores(lists.vector, lists.weightVector);
  addStandardScores(lists.keyword, lists.weightKeyword);
  const vectorNormalized = normalizeScores(
    lists.vector.map((item) => item.score),
    lists.normalization,
  );
  lists.vector.forEach((item, index) => {
    const value = entry(item.chunk);
    value.vectorScore = item.score;
    value.score += lists.weightVector * (vectorNormalized[index] as number);
  });
  const keywordNormalized = normalizeScores(
    lists.keyword.map((item) => item.score),
    lists.normalization,
  );
  lists.keyword.forEach((item, index) => {
    const value = entry(item.chunk);
    value.keywordScore = item.score;
    value.score += lists.weightKeyword * (keywordNormalized[index] as number);
  });
  return [...fused.values()].sort(
    (left, right) =>
      right.score - left.score ||
      (tieBreak.get(right.chunk.id) ?? 0) - (tieBreak.get(left.chunk.id) ?? 0) ||
      (left.chunk.id < right.chunk.id ? -1 : 1),
  );
}

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009, "Reciprocal Rank Fusion
 * outperforms Condorcet and individual Rank Learning Methods"): Σ weight / (k + rank), with
 * k = 60 and rank from 1. Offered for comparison in evaluation; the service uses
 * {@link fuseWeighted} as the spec requires.
 */
export function fuseReciprocalRank(lists: readonly { results: readonly ScoredChunk[]; weight: number }[], k = 60): FusedChunk[] {
  const fused = new Map<string, FusedChunk>();
  lists.forEach(({ results, weight }, listIndex) => {
    results.forEach((item, rank) => {
      let value = fused.get(item.chunk.id);
      if (!value) fused.set(item.chunk.id, (value = { chunk: item.chunk, score: 0, vectorScore: null, keywordScore: null }));
      value.score += weight / (k + rank + 1);
      if (listIndex === 0) value.vectorScore = item.score;
      else value.keywordScore = item.score;
    });
  });
  return [...fused.values()].sort((left, right) => right.score - left.score || (left.chunk.id < right.chunk.id ? -1 : 1));
}
