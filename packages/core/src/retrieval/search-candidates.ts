/**
 * One round of hybrid candidate search (spec processing order step 4): the vector top-K and the
 * BM25 top-K, each pre-filtered by principal inside the index (a retriever whose weight is 0 is
 * not run), chunks of uncommitted document versions dropped (staged stores, see
 * `DocumentStores.visible`), then normalised and fused as
 * `vector * WEIGHT_VECTOR + bm25 * WEIGHT_BM25` (or by reciprocal rank), in the span `docqa.fuse`.
 * With `HYBRID_SEARCH=engine`, a store that serves both lists and fuses them (`HybridIndex`)
 * answers the round in one request instead ({@link engineHybrid} says when).
 */

import type { Span } from "@opentelemetry/api";
import pLimit from "p-limit";
import type { Principal } from "../acl/principal.js";
import { indexModelOf, type OrganisationIndexModels, sameModel } from "../embeddings/organisation-index-models.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { QueryRetrieval, RetrievalState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import type { Stage } from "../pipeline/stage.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import type { ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { isReindexable } from "../stores/reindexable-index.js";
import { type EmbeddingModelInfo, type HybridIndex, isHybridIndex } from "../stores/vector-index.js";
import { unwrapped } from "../telemetry/override-methods.js";
import { withSpan } from "../telemetry/tracing.js";
import { filterReadable } from "./filter-readable.js";
import { type FusedChunk, fuseReciprocalRank, fuseWeighted } from "./fuse-results.js";
import type { RetrievalSettings } from "./retrieval-settings.js";

/** What candidate search runs on. */
export interface CandidateSearchDependencies {
  stores: DocumentStores;
  embeddings: EmbeddingState;
  logger: Logger;
  /**
   * Organisations whose index holds another model or none (see `Runtime.indexModels`). When
   * given, a vector search refused with `embedding_model_mismatch` teaches it the index's model
   * and the request goes on with BM25 alone; without it the error fails the request.
   */
  indexModels?: OrganisationIndexModels | undefined;
  /** Embeddings of another model by id (`Runtime.embeddingsFor`), to embed queries of such organisations. */
  embeddingsFor?: ((modelId: string) => Promise<EmbeddingState>) | undefined;
}

/** A query's embedding and the model that produced it. */
export interface QueryEmbedding {
  vector: Float32Array;
  model: EmbeddingModelInfo;
}

/** One query's search. */
export interface CandidateSearch {
  orgId: string;
  principal: Principal;
  query: string;
  /** The query's embedding ({@link embedQuery}), or undefined for BM25 only. */
  queryVector: Float32Array | undefined;
  /** The model of `queryVector`; default the configured model. */
  queryModel?: EmbeddingModelInfo | undefined;
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
  /** Candidates dropped because their document version is not committed (staged stores). */
  hidden: number;
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
 * Embeds the query for the organisation's vector index: with the configured model, or with the
 * model its index holds when that differs ({@link CandidateSearchDependencies.indexModels}) and
 * can be loaded. Undefined (BM25 only) when there is no vector index, `WEIGHT_VECTOR` is 0, the
 * index holds no vectors, its model cannot be loaded, or embedding fails (logged).
 */
export async function embedQueryFor(
  dependencies: CandidateSearchDependencies,
  orgId: string,
  query: string,
  settings: RetrievalSettings,
): Promise<QueryEmbedding | undefined> {
  const index = dependencies.stores.vector;
  // Vectors are off (EMBED_PROVIDER=none, or no model could be loaded): BM25 alone, no warning.
  if (!index || settings.weightVector === 0 || dependencies.embeddings.status !== "ready") return undefined;
  // The model the organisation's index holds now, from the store when it can say (a reindex in
  // another process may have switched it), else as learned from earlier mismatches. When the
  // store cannot say (it is down), the search itself reports the failure.
  const stored = isReindexable(index) && dependencies.indexModels ? await index.vectorModel(orgId).catch(() => false as const) : false;
  const indexModel =
    stored !== false && dependencies.indexModels
      ? dependencies.indexModels.observe(orgId, stored, "its queries use that model when it can be loaded, else BM25 alone")
      : dependencies.indexModels?.indexModel(orgId);
  if (indexModel === null) return undefined;
  let state: EmbeddingState = dependencies.embeddings;
  if (indexModel && !(state.status === "ready" && sameModel(state.model, indexModel))) {
    state = dependencies.embeddingsFor ? await dependencies.embeddingsFor(indexModel.id) : state;
    if (state.status !== "ready" || !sameModel(state.model, indexModel)) return undefined;
  }
  if (state.status !== "ready") return undefined;
  const vector = await embedQuery({ ...dependencies, embeddings: state }, query, settings);
  return vector ? { vector, model: state.model } : undefined;
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
  const queryModel = search.queryModel ?? (embeddings.status === "ready" ? embeddings.model : undefined);
  const hybrid = engineHybrid(stores, search, queryModel);
  if (hybrid && search.queryVector && queryModel) {
    const engineFused = await searchHybrid(dependencies, hybrid, search, { vector: search.queryVector, model: queryModel }, depth, filter);
    if (engineFused) return engineFused;
  }
  const searchVectors = async (): Promise<ScoredChunk[]> => {
    if (!search.queryVector || !queryModel || !stores.vector) return [];
    try {
      return await stores.vector.searchByVector(search.orgId, search.queryVector, queryModel, {
        topK: depth.vector,
        filter,
        signal: search.signal,
      });
    } catch (error) {
      // The index holds another model, or none: this request goes on with BM25 alone, and the
      // next ones embed with the index's model when it can be loaded.
      if (!dependencies.indexModels || !DocqaError.isInstance(error) || indexModelOf(error) === undefined) throw error;
      dependencies.indexModels.learn(search.orgId, error, "its queries use that model when it can be loaded, else BM25 alone");
      return [];
    }
  };
  let [vector, keyword] = await Promise.all([
    searchVectors(),
    settings.weightBm25 > 0
      ? stores.keyword.searchByText(search.orgId, search.query, { topK: depth.keyword, filter, signal: search.signal })
      : Promise.resolve([] as ScoredChunk[]),
  ]);
  const exhausted = vector.length < depth.vector && (settings.weightBm25 === 0 || keyword.length < depth.keyword);
  let hidden = 0;
  if (stores.writes === "staged") {
    const visible = new Set(await stores.visible(search.orgId, [...vector, ...keyword]));
    const returned = vector.length + keyword.length;
    vector = vector.filter((result) => visible.has(result));
    keyword = keyword.filter((result) => visible.has(result));
    hidden = returned - vector.length - keyword.length;
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
  return { fused, exhausted, hidden };
}

/**
 * The store that answers a round of candidate search in one hybrid request, or undefined when
 * docqa fuses two searches itself: `HYBRID_SEARCH=engine`, one store serving both lists that
 * offers `searchHybrid` (Milvus with its BM25 function), a query vector, both weights above 0, and
 * the fusion the engines compute (min-max normalisation, weighted sum).
 */
export function engineHybrid(
  stores: DocumentStores,
  search: CandidateSearch,
  queryModel: EmbeddingModelInfo | undefined,
): HybridIndex | undefined {
  const { settings } = search;
  if (settings.hybridSearch !== "engine" || !search.queryVector || !queryModel || !stores.vector) return undefined;
  if (settings.weightVector <= 0 || settings.weightBm25 <= 0) return undefined;
  if (settings.normalization !== "min-max" || (settings.fusion ?? "weighted") !== "weighted") return undefined;
  // The stores are wrapped for telemetry, each role apart: compare what is behind the wrappers.
  if (unwrapped(stores.vector) !== (unwrapped(stores.keyword) as unknown)) return undefined;
  return isHybridIndex(stores.vector) ? stores.vector : undefined;
}

/**
 * One round as one hybrid request of `index` (`depth.vector + depth.keyword` fused results, as
 * many as fusion in docqa can give); undefined when the index cannot answer it for this
 * organisation. The fused results carry the engine's score and no per-list raw scores.
 */
async function searchHybrid(
  dependencies: CandidateSearchDependencies,
  index: HybridIndex,
  search: CandidateSearch,
  query: { vector: Float32Array; model: EmbeddingModelInfo },
  depth: { vector: number; keyword: number },
  filter: ChunkFilter,
): Promise<CandidateSearchResult | undefined> {
  const { settings } = search;
  const topK = depth.vector + depth.keyword;
  const attributes = { "docqa.fusion": "engine", "docqa.fuse.depth_vector": depth.vector, "docqa.fuse.depth_keyword": depth.keyword };
  let results = await withSpan("docqa.fuse", attributes, async (span) => {
    const found = await index.searchHybrid(search.orgId, {
      text: search.query,
      vector: query.vector,
      model: query.model,
      depth,
      weights: { vector: settings.weightVector, keyword: settings.weightBm25 },
      topK,
      filter,
      signal: search.signal,
    });
    span.setAttribute("docqa.candidates", found?.length ?? 0);
    return found;
  });
  if (!results) return undefined;
  // Both lists returned fewer than asked only if the fused list is shorter than the shallower one.
  const exhausted = results.length < Math.min(depth.vector, depth.keyword);
  let hidden = 0;
  if (dependencies.stores.writes === "staged") {
    const visible = new Set(await dependencies.stores.visible(search.orgId, results));
    const returned = results.length;
    results = results.filter((result) => visible.has(result));
    hidden = returned - results.length;
  }
  const fused: FusedChunk[] = results.map((result) => ({
    chunk: result.chunk,
    score: result.score,
    vectorScore: null,
    keywordScore: null,
  }));
  return { fused, exhausted, hidden };
}

/** Maximum number of deeper searches when access control would leave too few results. */
export const maximumDeepenings = 3;

/**
 * Stage `retrieve` (spec `POST /predict` step 4): for each planned query, at most
 * `MAX_RETRIEVAL_THREADS` at a time, the vector and BM25 candidates, pre-filtered by principal in
 * the indexes, fused (`searchCandidates`). Each retriever is asked for its top-K
 * (`VECTOR_RETRIEVER_TOP_K`, `BM25_RETRIEVER_TOP_K`), at least `FUSION_CANDIDATES`: score
 * normalisation needs a list deep enough for its minimum to be a typical weak match.
 *
 * Top-k is never starved by access control: when candidates were removed (by the access check,
 * or as uncommitted versions) and fewer than the query's top-k remain while an index returned a
 * full list (so more may exist), the search is repeated twice as deep, at most
 * {@link maximumDeepenings} times. A list that nothing was removed from keeps its depth, even
 * when shorter than the query's top-k: the depth is the configuration's (`docqa eval` measures
 * the service's own candidate depths this way).
 *
 * Each query is one span, `docqa.retrieve.query` (its index, kind, top-k and length; the
 * deepenings and candidates found), parent of the embedding and per-engine search spans.
 *
 * Writes `retrievals` (one per planned query, `candidates` and `vectorUsed` set).
 */
export const retrieveCandidates: Stage<RetrievalState> = {
  name: "retrieve",
  phase: "retrieval",
  async run(state, runtime) {
    const limit = pLimit(Math.max(1, runtime.config.retrieval.maxRetrievalThreads));
    state.retrievals = await Promise.all(
      state.queries.map((query, index) =>
        limit(() =>
          withSpan(
            "docqa.retrieve.query",
            {
              "docqa.query.index": index,
              "docqa.query.kind": query.kind,
              "docqa.query.top_k": query.topK,
              "docqa.query.chars": query.text.length,
              ...(runtime.config.logging.traceContent ? { "docqa.query": query.text } : {}),
            },
            async (span) => {
              const retrieval = await retrieveOne(state, runtime, query, span);
              span.setAttributes({ "docqa.candidates": retrieval.candidates.length, "docqa.vector_used": retrieval.vectorUsed });
              return retrieval;
            },
          ),
        ),
      ),
    );
  },
};

async function retrieveOne(state: RetrievalState, runtime: Runtime, query: QueryRetrieval["query"], span: Span): Promise<QueryRetrieval> {
  state.signal?.throwIfAborted();
  const dependencies = {
    stores: runtime.stores,
    embeddings: runtime.embeddings,
    logger: runtime.logger,
    indexModels: runtime.indexModels,
    embeddingsFor: runtime.embeddingsFor,
  };
  const embedded = await embedQueryFor(dependencies, state.orgId, query.text, state.settings);
  const queryVector = embedded?.vector;
  const search = {
    orgId: state.orgId,
    principal: state.principal,
    query: query.text,
    queryVector,
    queryModel: embedded?.model,
    filter: state.filter,
    settings: state.settings,
    signal: state.signal,
  };
  const minimum = state.settings.fusionCandidates ?? 0;
  const depth = { vector: Math.max(state.settings.vectorTopK, minimum), keyword: Math.max(state.settings.bm25TopK, minimum) };
  for (let round = 0; ; round++) {
    const { fused, exhausted, hidden } = await searchCandidates(dependencies, search, depth);
    const readable = filterReadable(state.principal, state.filter, fused).length;
    const enough = readable >= query.topK;
    const removed = hidden > 0 || readable < fused.length;
    if (enough || exhausted || !removed || round === maximumDeepenings) {
      span.setAttribute("docqa.retrieve.deepenings", round);
      return { query, candidates: fused, results: [], vectorUsed: queryVector !== undefined, queryVector, queryModel: embedded?.model };
    }
    depth.vector *= 2;
    depth.keyword *= 2;
  }
}
