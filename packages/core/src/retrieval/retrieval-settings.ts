/**
 * Retrieval settings of one request (depths, fusion, reranking) and the result type of the
 * retrieval stages. {@link retrievalSettingsFromConfig} reads them from the configuration.
 */
import type { AccessRule } from "../acl/evaluate-access.js";
import type { DocqaConfig, ScoreNormalization } from "../config/config-schema.js";
import type { FusedChunk } from "./fuse-results.js";
import type { Reranker } from "./reranker.js";

/** Retrieval depths and fusion settings. */
export interface RetrievalSettings {
  /** `VECTOR_RETRIEVER_TOP_K`: candidates asked of the vector index. */
  vectorTopK: number;
  /** `BM25_RETRIEVER_TOP_K`: candidates asked of the keyword index. */
  bm25TopK: number;
  /**
   * `FUSION_CANDIDATES`: chunks each retriever contributes to fusion at least; a retriever is
   * asked for `max(its top-K, fusionCandidates)`. Default 0 (the top-Ks alone).
   */
  fusionCandidates?: number | undefined;
  /** `RETRIEVER_TOP_K`: chunks kept after fusion, access control and reranking. */
  retrieverTopK: number;
  /** `WEIGHT_VECTOR`. */
  weightVector: number;
  /** `WEIGHT_BM25`. */
  weightBm25: number;
  /** `SCORE_NORMALIZATION`. */
  normalization: ScoreNormalization;
  /**
   * Fusion method: `weighted` (default; the spec's weighted sum of normalised scores) or `rrf`
   * (reciprocal rank fusion with the same weights, for comparison in evaluation).
   */
  fusion?: "weighted" | "rrf" | undefined;
  /**
   * `HYBRID_SEARCH`: `node` (default) fuses the two lists in docqa; `engine` asks a store that
   * serves both lists and can fuse them (`HybridIndex`) for one hybrid request instead, when the
   * settings are ones it computes (see `searchCandidates`).
   */
  hybridSearch?: "node" | "engine" | undefined;
  /** `USE_RERANKER` with a reranker present: keep `topK` (`RERANK_TOP_K`) of the first `depth` (`RERANK_DEPTH`) candidates scoring at least `threshold`. */
  reranker?: { reranker: Reranker; topK: number; threshold: number; depth: number } | undefined;
}

/** A retrieved chunk that passed access control. */
export interface RetrievedChunk extends FusedChunk {
  /** The ACL rule that granted access (2 to 6). */
  accessRule: AccessRule;
  /** Reranker score, when reranking ran. */
  rerankScore?: number | undefined;
}

/**
 * The configuration's retrieval settings, with `overrides` applied.
 *
 * @param reranker - the reranker to apply when `rerank` is true; without one, results are not
 *   reranked (the service logs that once).
 * @param rerank - whether to rerank; default `USE_RERANKER`.
 */
export function retrievalSettingsFromConfig(
  config: DocqaConfig,
  reranker: Reranker | undefined,
  overrides: Partial<RetrievalSettings> = {},
  rerank: boolean = config.retrieval.useReranker,
): RetrievalSettings {
  return {
    vectorTopK: config.retrieval.vectorTopK,
    bm25TopK: config.retrieval.bm25TopK,
    fusionCandidates: config.retrieval.fusionCandidates,
    retrieverTopK: config.retrieval.retrieverTopK,
    weightVector: config.retrieval.weightVector,
    weightBm25: config.retrieval.weightBm25,
    normalization: config.retrieval.scoreNormalization,
    hybridSearch: config.retrieval.hybridSearch,
    reranker:
      rerank && reranker
        ? {
            reranker,
            topK: config.retrieval.rerankTopK,
            threshold: config.retrieval.rerankerScoreThreshold,
            depth: config.retrieval.rerankDepth,
          }
        : undefined,
    ...overrides,
  };
}
