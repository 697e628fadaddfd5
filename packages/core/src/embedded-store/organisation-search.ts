/**
 * Searches over one organisation's in-memory indexes of the embedded store: BM25, exact or HNSW
 * vector search, and counts, each filtered by a slot mask (ACL pre-filtering, documents,
 * metadata) and hydrated from the SQLite rows.
 */
import type { IdScore } from "../retrieval/top-k.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import type { ScoredChunk } from "../stores/chunk-record.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import type { SlotMask } from "./bm25-index.js";
import { assertModelFits } from "./embedding-model-fit.js";
import type { IndexCatchUp, MemoryIndexes } from "./index-catch-up.js";
import { type ChunkRow, type OrganisationDatabase, toChunkRecord } from "./organisation-database.js";

/** The searches of one organisation; each reads the indexes as of the last catch-up (call `refresh` first). */
export class OrganisationSearch {
  constructor(
    private readonly database: OrganisationDatabase,
    private readonly indexes: IndexCatchUp,
    private readonly analyzer: Analyzer,
  ) {}

  /** Number of chunks in the in-memory indexes. */
  count(): number {
    const { slots } = this.indexes.readable();
    return slots.length - slots.dead - slots.staged;
  }

  /** BM25 search; see {@link KeywordIndex.searchByText}. */
  searchByText(query: string, topK: number, filter: ChunkFilter): ScoredChunk[] {
    const indexes = this.indexes.readable();
    const terms = this.analyzer.analyze(query);
    if (terms.length === 0) return [];
    return this.hydrate(indexes, indexes.bm25.search(terms, topK, this.mask(indexes, filter)));
  }

  /** The number of chunks matching `query` or in `include` under `filter`; see {@link KeywordIndex.countByText}. */
  countByText(query: string, filter: ChunkFilter, include: readonly string[] = []): number {
    const indexes = this.indexes.readable();
    const includedSlots: number[] = [];
    for (const chunkId of new Set(include)) {
      const row = this.database.statements.rowOfChunk.get(chunkId) as { id: number; doc_id: string } | undefined;
      const slot = row ? indexes.slots.slotOfRow(row.doc_id, row.id) : undefined;
      if (slot !== undefined) includedSlots.push(slot);
    }
    return indexes.bm25.count(this.analyzer.analyze(query), this.mask(indexes, filter), includedSlots);
  }

  /**
   * Exact (or HNSW) vector search; see {@link VectorIndex.searchByVector}.
   *
   * @throws {DocqaError} `embedding_model_mismatch` unless vectors of `model` fit the index (see {@link assertModelFits}).
   */
  searchByVector(vector: Float32Array, model: EmbeddingModelInfo, topK: number, filter: ChunkFilter): ScoredChunk[] {
    const indexes = this.indexes.readable();
    const { vectors, slots } = indexes;
    assertModelFits(model, indexes.model, slots.length - slots.dead - slots.staged > 0);
    if (!indexes.model || !vectors) return [];
    const mask = this.mask(indexes, filter);
    const approximate = this.indexes.hnsw.search(vectors, vector, topK, mask, slots.maskAllowed);
    return this.hydrate(indexes, approximate ?? vectors.search(vector, topK, mask));
  }

  /** Vectors held, and the state of the HNSW graph: `none`, `building` or `ready`. */
  vectorIndexStatus(): { vectors: number; approximate: "none" | "building" | "ready" } {
    return { vectors: this.indexes.readable().vectors?.size ?? 0, approximate: this.indexes.hnsw.status };
  }

  /** The slots a filtered search may return, or undefined without filters; see {@link SlotTable.mask}. */
  private mask(indexes: MemoryIndexes, filter: ChunkFilter): SlotMask | undefined {
    return indexes.slots.mask(filter, (conditions) => this.database.rowsMatching(conditions));
  }

  /** The chunk records of search results, in order (slots removed meanwhile are skipped). */
  private hydrate(indexes: MemoryIndexes, results: IdScore[]): ScoredChunk[] {
    const scored: ScoredChunk[] = [];
    for (const { id: slot, score } of results) {
      const info = indexes.slots.info(slot);
      if (!info) continue;
      const row = this.database.statements.chunkById.get(info.rowId) as ChunkRow | undefined;
      if (row) scored.push({ chunk: toChunkRecord(row), score });
    }
    return scored;
  }
}
