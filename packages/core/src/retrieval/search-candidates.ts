/**
 * One round of hybrid candidate search (spec processing order step 4): the vector top-K and the
 * BM25 top-K, each pre-filtered by principal inside the index (a retriever whose weight is 0 is
 * not run), chunks of uncommitted document versions dropped (staged stores, see
 * `DocumentStores.visible`), then normalised and fused as
 * `vector * WEIGHT_VECTOR + bm25 * WEIGHT_BM25` (or by reciprocal rank), in the span `docqa.fuse`.
 */
import type { Principal } from "../acl/principal.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import type { Logger } from "../logging/logger.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import type { ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { withSpan } from "../telemetry/tracing.js";
import { type FusedChunk, fuseReciprocalRank, fuseWeighted } from "./fuse-results.js";
import type { RetrievalSettings } from "./retrieval-settings.js";

/** What candidate search runs on. */
export interface CandidateSearchDependencies {
  stores: DocumentStores;
  embeddings: EmbeddingState;
  logger: Logger;
}

/** One query's search. */
export interface CandidateSearch {
  orgId: string;
  principal: Principal;
  query: string;
  /** The query's embedding ({@link embedQuery}), or undefined for BM25 only. */
  queryVector: Float32Array | undefined;
  /** Further filters; the principal filter is always added. */
  filter?: Omit<ChunkFilter, "principal"> | undefined;
  settings: RetrievalSettings;
  signal?: AbortSignal | undefined;
}

/** Result of {@link searchCandidates}. */
export interface CandidateSearchResult {
  /** Fused candidates, best first. */
  fused: FusedChunk[];
  /** True when neither index could have returned more (each returned fewer than asked). */
  exhausted: boolean;
}

/**
 * Embeds the query for the vector index; undefined when there is no embedding model, no vector
 * index, `WEIGHT_VECTOR` is 0, or embedding fails (logged: the request then uses BM25 only).
 */
export async function embedQuery(
  dependencies: CandidateSearchDependencies,
  query: string,
  settings: RetrievalSettings,
): Promise<Float32Array | undefined> {
  if (dependencies.embeddings.status !== "ready" || !dependencies.stores.vector || settings.weightVector === 0) return undefined;
  try {
    return Float32Array.from(await dependencies.embeddings.embeddings.embedQuery(query));
  } catch (error) {
    dependencies.logger.warn("query embedding failed; this request uses BM25 only", {
      component: "retrieval",
      error: (error as Error).message,
    });
    return undefined;
  }
}

/**
 * Searches both indexes `depth` deep and fuses the lists.
 *
 * @param depth - candidates asked of the vector and the keyword index.
 * @throws {DocqaError} `store_unavailable` when an index fails.
 */
export async function searchCandidates(
  dependencies: CandidateSearchDependencies,
  search: CandidateSearch,
  depth: { vector: number; keyword: number },
): Promise<CandidateSearchResult> {
  const { stores, embeddings } = dependencies;
  const { settings } = search;
  const filter: ChunkFilter = { ...search.filter, principal: search.principal };
  let [vector, keyword] = await Promise.all([
    search.queryVector && embeddings.status === "ready" && stores.vector
      ? stores.vector.searchByVector(search.orgId, search.queryVector, embeddings.model, {
          topK: depth.vector,
          filter,
          signal: search.signal,
        })
      : Promise.resolve([] as ScoredChunk[]),
    settings.weightBm25 > 0
      ? stores.keyword.searchByText(search.orgId, search.query, { topK: depth.keyword, filter, signal: search.signal })
      : Promise.resolve([] as ScoredChunk[]),
  ]);
  const exhausted = vector.length < depth.vector && (settings.weightBm25 === 0 || keyword.length < depth.keyword);
  if (stores.writes === "staged") {
    const visible = new Set(await stores.visible(search.orgId, [...vector, ...keyword]));
    vector = vector.filter((result) => visible.has(result));
    keyword = keyword.filter((result) => visible.has(result));
  }
  const fusion = {
    "docqa.fusion": settings.fusion,
    "docqa.fuse.vector_results": vector.length,
    "docqa.fuse.keyword_results": keyword.length,
  };
  const fused = await withSpan("docqa.fuse", fusion, (span) => {
    const fusedList =
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
    span.setAttribute("docqa.candidates", fusedList.length);
    return fusedList;
  });
  return { fused, exhausted };
}
