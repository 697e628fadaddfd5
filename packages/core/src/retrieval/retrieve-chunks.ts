/**
 * Hybrid retrieval in the spec's processing order (`POST /predict` steps 4 to 6): vector top-K
 * and BM25 top-K (each at least `FUSION_CANDIDATES` deep), each pre-filtered by principal in the
 * index (a retriever whose weight is 0 is not run); scores normalised and fused as
 * `vector * WEIGHT_VECTOR + bm25 * WEIGHT_BM25`; optional reranking; the seven ACL rules as the
 * final word; then `RETRIEVER_TOP_K`.
 *
 * With staged stores (server engines), chunks of uncommitted document versions are dropped
 * before fusion (see `DocumentStores.visible`); filters an engine could not push down are checked
 * again here ({@link matchesChunkFilter}).
 *
 * ACL-aware top-k: when the post-filter removed candidates and left fewer than `RETRIEVER_TOP_K`
 * chunks while an index returned a full list (so more candidates may exist), the search is
 * repeated with twice the depth, up to {@link maximumRefillRounds} times. Lists shorter than
 * `RETRIEVER_TOP_K` that nothing was removed from are kept as they are: their depth is the
 * caller's choice (`docqa eval` measures the service's own 8 + 8 candidates this way).
 */
import type { AccessRule } from "../acl/evaluate-access.js";
import { evaluateAccess } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
import type { ScoreNormalization } from "../config/docqa-config.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import type { Logger } from "../logging/logger.js";
import { type ChunkFilter, matchesChunkFilter } from "../stores/chunk-filter.js";
import type { ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { type FusedChunk, fuseReciprocalRank, fuseWeighted } from "./fuse-results.js";
import type { Reranker } from "./reranker.js";

/** Retrieval depths and fusion settings. */
export interface RetrievalSettings {
  /** `VECTOR_RETRIEVER_TOP_K`. */
  vectorTopK: number;
  /** `BM25_RETRIEVER_TOP_K`. */
  bm25TopK: number;
  /**
   * `FUSION_CANDIDATES`: chunks each retriever contributes to fusion at least; a retriever
   * returns `max(its top-K, fusionCandidates)`. Default 0 (the top-Ks alone).
   */
  fusionCandidates?: number | undefined;
  /** `RETRIEVER_TOP_K`. */
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
  /** `USE_RERANKER` with a reranker present: keep `topK` (`RERANK_TOP_K`) of the first `depth` (`RERANK_DEPTH`) candidates scoring at least `threshold`. */
  reranker?: { reranker: Reranker; topK: number; threshold: number; depth: number } | undefined;
}

/** What to retrieve. */
export interface RetrievalInput {
  orgId: string;
  principal: Principal;
  query: string;
  /** Further filters (documents, metadata); the principal filter is always added. */
  filter?: Omit<ChunkFilter, "principal"> | undefined;
  settings: RetrievalSettings;
  signal?: AbortSignal | undefined;
}

/** A retrieved chunk that passed access control. */
export interface RetrievedChunk extends FusedChunk {
  /** The ACL rule that granted access (2 to 6). */
  accessRule: AccessRule;
  /** Reranker score, when reranking ran. */
  rerankScore?: number | undefined;
}

/** Result of {@link retrieveChunks}. */
export interface RetrievalOutput {
  chunks: RetrievedChunk[];
  /** Whether the vector list took part (false in BM25-only mode). */
  vectorUsed: boolean;
  /** Candidates fused before access control. */
  candidates: number;
}

/** What retrieval runs on. */
export interface RetrievalDependencies {
  stores: DocumentStores;
  embeddings: EmbeddingState;
  logger: Logger;
}

/** Maximum number of deeper searches when access control leaves too few results. */
export const maximumRefillRounds = 3;

/** Runs hybrid retrieval; see the module documentation for the order of steps. */
export async function retrieveChunks(dependencies: RetrievalDependencies, input: RetrievalInput): Promise<RetrievalOutput> {
  const { settings } = input;
  const filter: ChunkFilter = { ...input.filter, principal: input.principal };
  const { stores } = dependencies;
  const queryVector = await embedQuery(dependencies, input);
  let vectorDepth = Math.max(settings.vectorTopK, settings.fusionCandidates ?? 0);
  let keywordDepth = Math.max(settings.bm25TopK, settings.fusionCandidates ?? 0);
  let output: RetrievalOutput = { chunks: [], vectorUsed: queryVector !== undefined, candidates: 0 };
  for (let round = 0; round <= maximumRefillRounds; round++) {
    let [vector, keyword] = await Promise.all([
      queryVector && dependencies.embeddings.status === "ready" && stores.vector
        ? stores.vector.searchByVector(input.orgId, queryVector, dependencies.embeddings.model, {
            topK: vectorDepth,
            filter,
            signal: input.signal,
          })
        : Promise.resolve([] as ScoredChunk[]),
      settings.weightBm25 > 0
        ? stores.keyword.searchByText(input.orgId, input.query, { topK: keywordDepth, filter, signal: input.signal })
        : Promise.resolve([] as ScoredChunk[]),
    ]);
    const returned = { vector: vector.length, keyword: keyword.length };
    let removed = false;
    if (stores.writes === "staged") {
      const visible = new Set(await stores.visible(input.orgId, [...vector, ...keyword]));
      vector = vector.filter((result) => visible.has(result));
      keyword = keyword.filter((result) => visible.has(result));
      removed = vector.length < returned.vector || keyword.length < returned.keyword;
    }
    let fused =
      settings.fusion === "rrf"
        ? fuseReciprocalRank([
            { results: vector, weight: settings.weightVector },
            { results: keyword, weight: settings.weightBm25 },
          ])
        : fuseWeighted({
            vector,
            keyword,
            weightVector: settings.weightVector,
            weightKeyword: settings.weightBm25,
            normalization: settings.normalization,
          });
    let rerankScores: Map<string, number> | undefined;
    if (settings.reranker) {
      ({ fused, rerankScores } = await rerank(settings.reranker, input, fused));
    }
    const readable: RetrievedChunk[] = [];
    for (const candidate of fused) {
      const decision = evaluateAccess(input.principal, candidate.chunk);
      if (!decision.granted || !matchesChunkFilter(candidate.chunk, { ...input.filter, principal: undefined })) continue;
      readable.push({ ...candidate, accessRule: decision.rule, rerankScore: rerankScores?.get(candidate.chunk.id) });
    }
    output = { chunks: readable.slice(0, settings.retrieverTopK), vectorUsed: queryVector !== undefined, candidates: fused.length };
    const exhausted = returned.vector < vectorDepth && (settings.weightBm25 === 0 || returned.keyword < keywordDepth);
    removed ||= readable.length < fused.length;
    if (readable.length >= settings.retrieverTopK || exhausted || !removed) break;
    vectorDepth *= 2;
    keywordDepth *= 2;
  }
  return output;
}

async function embedQuery(dependencies: RetrievalDependencies, input: RetrievalInput): Promise<Float32Array | undefined> {
  if (dependencies.embeddings.status !== "ready" || !dependencies.stores.vector || input.settings.weightVector === 0) return undefined;
  try {
    return Float32Array.from(await dependencies.embeddings.embeddings.embedQuery(input.query));
  } catch (error) {
    dependencies.logger.warn("query embedding failed; this request uses BM25 only", {
      component: "retrieval",
      error: (error as Error).message,
    });
    return undefined;
  }
}

async function rerank(
  settings: NonNullable<RetrievalSettings["reranker"]>,
  input: RetrievalInput,
  fused: FusedChunk[],
): Promise<{ fused: FusedChunk[]; rerankScores: Map<string, number> }> {
  const candidates = fused.slice(0, settings.depth);
  const scores = await settings.reranker.score(
    input.query,
    candidates.map((candidate) => candidate.chunk),
    input.signal,
  );
  const rerankScores = new Map<string, number>();
  candidates.forEach((candidate, index) => {
    rerankScores.set(candidate.chunk.id, scores[index] ?? Number.NEGATIVE_INFINITY);
  });
  const kept = candidates
    .filter((candidate) => (rerankScores.get(candidate.chunk.id) as number) >= settings.threshold)
    .sort((left, right) => (rerankScores.get(right.chunk.id) as number) - (rerankScores.get(left.chunk.id) as number))
    .slice(0, settings.topK);
  return { fused: kept, rerankScores };
}
