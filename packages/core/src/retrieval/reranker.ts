/**
 * The reranker interface (spec processing order step 5, `USE_RERANKER`): rescore fused
 * candidates against the query, typically with a cross-encoder.
 */
import type { ChunkRecord } from "../stores/chunk-record.js";

/** Rescores chunks for a query. */
export interface Reranker {
  /** Name used in logs, for example `cross-encoder`. */
  readonly name: string;
  /**
   * One relevance score per chunk, in input order; higher is more relevant. Scores are compared
   * with `RERANKER_SCORE_THRESHOLD`, so implementations document their scale.
   */
  score(query: string, chunks: readonly ChunkRecord[], signal?: AbortSignal): Promise<number[]>;
}
