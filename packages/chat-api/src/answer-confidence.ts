/**
 * The `confidence` of `POST /api/chat`: how strongly the cited chunks were retrieved, discounted
 * by how much of the answer is backed by citations. The spec names the field only; this formula
 * is docqa's (documented in `docs/chat-api.md`).
 */
import type { Answer, Source } from "@docqa/core";
import { citedKeys } from "@docqa/core/answering";

/** Fusion weights (`WEIGHT_VECTOR`, `WEIGHT_BM25`) that bound the fused score. */
export interface FusionWeights {
  weightVector: number;
  weightBm25: number;
}

/** The parts of {@link answerConfidence}, for tests and diagnostics. */
export interface ConfidenceParts {
  /** R: mean normalised retrieval score of the cited sources, in [0, 1]. */
  retrieval: number;
  /** C: share of the statements (summary and supporting points) that cite a known source, in [0, 1]. */
  coverage: number;
  /** R × C, rounded to 3 decimals. */
  confidence: number;
}

function knownKeys(text: string, sources: Readonly<Record<string, Source>>): string[] {
  return citedKeys(text).filter((key) => Object.hasOwn(sources, key));
}

/**
 * Confidence in [0, 1] of an answer and its cited sources:
 *
 * - R (retrieval): for each cited source, its fused retrieval score (`metadata.score`, the
 *   weighted sum `vector × WEIGHT_VECTOR + bm25 × WEIGHT_BM25` of scores each normalised to
 *   [0, 1]) divided by `WEIGHT_VECTOR + WEIGHT_BM25` and capped to [0, 1]; R is their mean. A chunk
 *   found by both retrievers at the top of each list scores near 1; one found by one retriever
 *   only scores at most that retriever's share of the weights (so BM25-only answers are less
 *   confident).
 * - C (citation coverage): of the answer's statements, the summary (`callout_answer`) and the
 *   supporting points (`positive_list`), the share that cite at least one source. Caveats and
 *   further information are not counted: they may rightly stand without a citation.
 * - confidence = R × C, rounded to 3 decimals; 0 when the answer cites nothing (including the
 *   spec's empty-context answer).
 */
export function answerConfidence(answer: Answer, sources: Readonly<Record<string, Source>>, weights: FusionWeights): ConfidenceParts {
  const statements = [answer.callout_answer, ...answer.positive_list].filter((statement) => statement.trim() !== "");
  const citing = statements.filter((statement) => knownKeys(statement, sources).length > 0).length;
  const coverage = statements.length === 0 ? 0 : citing / statements.length;
  const cited = knownKeys(
    [answer.callout_answer, ...answer.positive_list, ...answer.negative_list, ...answer.info_list].join("\n"),
    sources,
  );
  const scale = weights.weightVector + weights.weightBm25 > 0 ? weights.weightVector + weights.weightBm25 : 1;
  const scores = cited.map((key) => {
    const score = Number((sources[key] as Source).metadata.score);
    return Number.isFinite(score) ? Math.min(1, Math.max(0, score / scale)) : 0;
  });
  const retrieval = scores.length === 0 ? 0 : scores.reduce((sum, score) => sum + score, 0) / scores.length;
  return { retrieval, coverage, confidence: Math.round(retrieval * coverage * 1000) / 1000 };
}
