/**
 * The searches of the Milvus store: by vector, by BM25 text, both fused in one `hybridSearch`
 * request, and counting a query's matches. Each pre-filters inside Milvus by the chunk filter's
 * expression (ACL, documents, metadata; see `filter-expression.ts`) and re-checks every result
 * with `matchesChunkFilter`; reads use consistency level Strong.
 */
import { DocqaError } from "@docqa/core";
import {
  type ChunkFilter,
  type CountOptions,
  type EmbeddingModelInfo,
  type HybridSearchRequest,
  matchesChunkFilter,
  type ScoredChunk,
  type SearchOptions,
  sameModel,
} from "@docqa/core/stores";
import { ConsistencyLevelEnum, WeightedRanker } from "@zilliz/milvus2-sdk-node";
import { chunkOutputFields, rowToChunk } from "./chunk-rows.js";
import { hasKeywordIndex } from "./collection-schemas.js";
import { chunkFilterExpression, type FilterExpression, withChunkIds } from "./filter-expression.js";
import type { MilvusCapabilities } from "./milvus-capabilities.js";
import type { ChunkCollection, MilvusCollections } from "./milvus-collections.js";
import { checkStatus, type MilvusConnection } from "./milvus-connection.js";
import { filterRequest, maximumTopK, queryRows } from "./milvus-requests.js";
import type { MilvusTextAnalysis } from "./milvus-text-analysis.js";

/** What the searches of a {@link MilvusSearch} use. */
export interface MilvusSearchSettings {
  /** HNSW `ef` at search time (at least the limit); `hnsw.expansionSearch` of the store, default 128. */
  expansionSearch: number;
  /** Whether this store serves BM25 (`keywordIndex` setting). */
  keywordIndex: boolean;
}

/** The searches of one Milvus store's chunk collections. */
export class MilvusSearch {
  constructor(
    private readonly connection: MilvusConnection,
    private readonly collections: MilvusCollections,
    private readonly capabilities: MilvusCapabilities,
    private readonly textAnalysis: MilvusTextAnalysis,
    private readonly settings: MilvusSearchSettings,
  ) {}

  /** Vector search (COSINE, HNSW) under the filter expression; see `VectorIndex.searchByVector`. */
  async searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]> {
    if (vector.length !== model.dimension) {
      throw new DocqaError(
        "embedding_dimension_mismatch",
        `the query vector has ${vector.length} dimensions; ${model.id} has ${model.dimension}`,
        { component: "milvus" },
      );
    }
    if (options.topK <= 0) return [];
    return this.collections.withChunkCollection(orgId, [], async (collection) => {
      assertCollectionModel(collection, model);
      const mode = await this.capabilities.filterValueMode(collection.name);
      const expression = chunkFilterExpression(options.filter, mode, { withEmbedding: true });
      if (!expression) return [];
      const data = Array.from(vector);
      return this.filteredSearch(options.topK, options.filter, async (limit) =>
        (
          await this.searchRows("search by vector", collection.name, expression, options.signal, {
            anns_field: "embedding",
            data,
            limit,
            metric_type: "COSINE",
            params: { ef: Math.max(limit, this.settings.expansionSearch) },
          })
        ).map((row) => ({ chunk: rowToChunk(row), score: Number(row.score) })),
      );
    });
  }

  /** BM25 search of `bm25_sparse` under the filter expression; see `KeywordIndex.searchByText`. */
  async searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]> {
    if (options.topK <= 0) return [];
    return this.collections.withChunkCollection(orgId, [], async (collection) => {
      const text = this.textAnalysis.bm25Query(collection, query);
      if (text.trim() === "") return [];
      const mode = await this.capabilities.filterValueMode(collection.name);
      const expression = chunkFilterExpression(options.filter, mode);
      if (!expression) return [];
      const sign = await this.capabilities.bm25ScoreSign();
      return this.filteredSearch(options.topK, options.filter, async (limit) =>
        (
          await this.searchRows("search by text", collection.name, expression, options.signal, {
            anns_field: "bm25_sparse",
            data: text,
            limit,
            metric_type: "BM25",
          })
        )
          .map((row) => ({ chunk: rowToChunk(row), score: sign * Number(row.score) }))
          .sort((left, right) => right.score - left.score),
      );
    });
  }

  /**
   * The vector and BM25 lists of a query in one `hybridSearch` request (`HYBRID_SEARCH=engine`):
   * a dense search of `embedding` (`depth.vector` deep, ef as for {@link searchByVector}) and a
   * BM25 search of `bm25_sparse` (`depth.keyword` deep), each with the same filter expression as
   * the single searches (ACL pre-filter included), fused by Milvus's weighted ranker with
   * `weights`. What that ranker computes depends on the server: milvus-lite 3.x normalises each
   * list by min-max and adds the weighted scores, as docqa's fusion does; Milvus 2.4+ servers
   * normalise each list with their own functions (see docs/retrieval.md). Results are checked
   * against the filter like every search's; their score is the engine's fused score.
   *
   * @returns undefined (fuse in docqa instead) when this store does not serve BM25, the
   *   organisation's collection has none, or the query has no BM25 terms.
   * @throws {DocqaError} `embedding_dimension_mismatch`, `embedding_model_mismatch`, `store_unavailable`.
   */
  async searchHybrid(orgId: string, request: HybridSearchRequest): Promise<ScoredChunk[] | undefined> {
    if (!this.settings.keywordIndex) return undefined;
    if (request.vector.length !== request.model.dimension) {
      throw new DocqaError(
        "embedding_dimension_mismatch",
        `the query vector has ${request.vector.length} dimensions; ${request.model.id} has ${request.model.dimension}`,
        { component: "milvus" },
      );
    }
    if (request.topK <= 0) return [];
    return this.collections.withChunkCollection<ScoredChunk[] | undefined>(orgId, [], async (collection) => {
      if (!hasKeywordIndex(collection.record)) return undefined;
      assertCollectionModel(collection, request.model);
      const text = this.textAnalysis.bm25Query(collection, request.text);
      if (text.trim() === "") return undefined;
      const mode = await this.capabilities.filterValueMode(collection.name);
      const vectorFilter = chunkFilterExpression(request.filter, mode, { withEmbedding: true });
      const textFilter = chunkFilterExpression(request.filter, mode);
      if (!vectorFilter || !textFilter) return [];
      const sign = await this.capabilities.bm25ScoreSign();
      const vectorLimit = Math.min(request.depth.vector, maximumTopK);
      const route = (expression: FilterExpression) =>
        expression.expression === ""
          ? {}
          : { expr: expression.expression, ...(Object.keys(expression.values).length > 0 ? { exprValues: expression.values } : {}) };
      const response = await this.connection.call(
        "hybrid search",
        async (client, timeout) =>
          checkStatus(
            "hybrid search",
            await client.hybridSearch({
              collection_name: collection.name,
              data: [
                {
                  anns_field: "embedding",
                  data: Array.from(request.vector),
                  params: { ef: Math.max(vectorLimit, this.settings.expansionSearch) },
                  ...route(vectorFilter),
                  ...({ limit: vectorLimit, metric_type: "COSINE" } as object),
                },
                {
                  anns_field: "bm25_sparse",
                  data: text,
                  ...route(textFilter),
                  ...({ limit: Math.min(request.depth.keyword, maximumTopK), metric_type: "BM25" } as object),
                },
              ],
              rerank: WeightedRanker([request.weights.vector, request.weights.keyword]),
              limit: Math.min(request.topK, maximumTopK),
              output_fields: [...chunkOutputFields],
              consistency_level: ConsistencyLevelEnum.Strong,
              timeout,
            }),
          ),
        { signal: request.signal },
      );
      // milvus-lite reports the fused score negated, like a distance (as its BM25 scores).
      return (response.results as Record<string, unknown>[])
        .map((row) => ({ chunk: rowToChunk(row), score: sign * Number(row.score) }))
        .filter((result) => matchesChunkFilter(result.chunk, request.filter));
    });
  }

  /**
   * The number of chunks matching `query` (a BM25 search under the filter expression, reading
   * only `chunk_id`) or in `options.include` under the same filter (one query). Milvus returns at
   * most 16,384 results per search (`maximumTopK`), so more keyword matches than that are counted
   * as 16,384.
   */
  async countByText(orgId: string, query: string, options: CountOptions): Promise<number> {
    return this.collections.withChunkCollection(orgId, 0, async (collection) => {
      const mode = await this.capabilities.filterValueMode(collection.name);
      const expression = chunkFilterExpression(options.filter, mode);
      if (!expression) return 0;
      const matched = new Set<string>();
      const text = this.textAnalysis.bm25Query(collection, query);
      if (text.trim() !== "") {
        const sign = await this.capabilities.bm25ScoreSign();
        const rows = await this.searchRows(
          "count text matches",
          collection.name,
          expression,
          options.signal,
          { anns_field: "bm25_sparse", data: text, limit: maximumTopK, metric_type: "BM25" },
          ["chunk_id"],
        );
        // A chunk sharing no term with the query scores 0 (or is not returned at all).
        for (const row of rows) if (sign * Number(row.score) > 0) matched.add(String(row.chunk_id));
      }
      const others = [...new Set(options.include ?? [])].filter((id) => !matched.has(id));
      if (others.length === 0) return matched.size;
      const included = await queryRows(
        this.connection,
        collection.name,
        withChunkIds(expression, others, mode),
        ["chunk_id"],
        others.length,
        "count included chunks",
      );
      return matched.size + included.length;
    });
  }

  /**
   * One search of a chunk collection with `expression` as filter: the chunk fields, strong
   * consistency, the store's time limit; `request` gives the field, query data, limit and metric.
   */
  private async searchRows(
    operation: string,
    collectionName: string,
    expression: FilterExpression,
    signal: AbortSignal | undefined,
    request: { anns_field: string; data: number[] | string; limit: number; metric_type: string; params?: Record<string, number> },
    outputFields: readonly string[] = chunkOutputFields,
  ): Promise<Record<string, unknown>[]> {
    const response = await this.connection.call(
      operation,
      async (client, timeout) =>
        checkStatus(
          operation,
          await client.search({
            collection_name: collectionName,
            ...request,
            ...filterRequest(expression),
            output_fields: [...outputFields],
            consistency_level: ConsistencyLevelEnum.Strong,
            timeout,
          }),
        ),
      { signal },
    );
    return response.results as Record<string, unknown>[];
  }

  /**
   * Runs a search at growing limits until `topK` results pass `matchesChunkFilter` (the engine's
   * pre-filter normally guarantees it on the first call), the engine has no more results, or the
   * limit reaches Milvus's maximum.
   */
  private async filteredSearch(topK: number, filter: ChunkFilter, run: (limit: number) => Promise<ScoredChunk[]>): Promise<ScoredChunk[]> {
    let limit = Math.min(topK, maximumTopK);
    for (;;) {
      const found = await run(limit);
      const kept = found.filter((result) => matchesChunkFilter(result.chunk, filter));
      if (kept.length >= topK || found.length < limit || limit >= maximumTopK) return kept.slice(0, topK);
      limit = Math.min(maximumTopK, limit * 4);
    }
  }
}

/**
 * Fails unless the collection holds vectors of `model`.
 *
 * @throws {DocqaError} `embedding_model_mismatch` with `details.indexModel`.
 */
export function assertCollectionModel(collection: ChunkCollection, model: EmbeddingModelInfo): void {
  const stored = collection.record.embeddingModel;
  if (stored && sameModel(stored, model)) return;
  const holds = stored
    ? `${stored.dimension}-dimensional vectors of ${stored.id}`
    : "no embeddings (it was created without an embedding model)";
  throw new DocqaError(
    "embedding_model_mismatch",
    `collection ${collection.name} holds ${holds}, not of ${model.id} (${model.dimension}): reindex the organisation (docqa reindex) or use the same EMBED_MODEL_NAME`,
    { component: "milvus", details: { indexModel: stored ? { id: stored.id, dimension: stored.dimension } : null } },
  );
}
