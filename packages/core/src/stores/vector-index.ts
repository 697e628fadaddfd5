/**
 * The interfaces every store implements. An index keeps one isolated collection per
 * organisation; nothing written under one `orgId` is ever returned for another.
 */
import type { ChunkFilter } from "./chunk-filter.js";
import type { DocumentVersion, ScoredChunk } from "./chunk-record.js";

/** Identity of the embedding model whose vectors an index holds. */
export interface EmbeddingModelInfo {
  /** Model id, for example `Xenova/bge-base-en-v1.5`. */
  id: string;
  /** Vector dimension. */
  dimension: number;
}

/** Options of a search. */
export interface SearchOptions {
  /** Number of results wanted. */
  topK: number;
  /** Filters applied before scoring. */
  filter: ChunkFilter;
  /** Cancels the search. */
  signal?: AbortSignal | undefined;
}

/** Behaviour shared by vector and keyword indexes. */
export interface ChunkIndex {
  /** Name used in logs and errors, for example `embedded`, `milvus`, `opensearch`. */
  readonly name: string;
  /**
   * Writes documents. Each {@link DocumentVersion} replaces every chunk of its `docId`
   * atomically: readers see the old version or the new one, never a mix. Resolves only once the
   * write is durable.
   *
   * @throws {DocqaError} `store_unavailable` when the backend fails; `embedding_model_mismatch`
   *   when the vectors come from a different model than the index holds.
   */
  upsert(orgId: string, documents: readonly DocumentVersion[], options?: UpsertOptions): Promise<void>;
  /** Deletes every chunk of the given documents; deleting a missing id is a no-op. */
  delete(orgId: string, docIds: readonly string[]): Promise<void>;
  /**
   * Ids of derived documents (RAPTOR summaries) recorded as built from any of `sourceDocIds`
   * (their {@link DocumentVersion.derivedFrom}).
   */
  derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]>;
  /** The stored content hash of each given document that exists. */
  contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>>;
  /** Number of chunks stored for the organisation. */
  count(orgId: string): Promise<number>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}

/** Options of {@link ChunkIndex.upsert}. */
export interface UpsertOptions {
  /** The model that produced the chunks' embeddings, recorded with the index. */
  embeddingModel?: EmbeddingModelInfo | undefined;
  /** Documents to delete in the same atomic write (derived documents made stale by this write). */
  deleteDocIds?: readonly string[] | undefined;
}

/** Nearest-neighbour search over chunk embeddings. Scores are cosine similarities in [-1, 1]. */
export interface VectorIndex extends ChunkIndex {
  /**
   * The `topK` chunks most similar to `vector` among those passing `options.filter`.
   *
   * @throws {DocqaError} `embedding_model_mismatch` when `model` differs from the index's.
   */
  searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]>;
}

/** Keyword search with Okapi BM25 scores (non-negative, unbounded). */
export interface KeywordIndex extends ChunkIndex {
  /** The `topK` chunks with the highest BM25 score for `query` among those passing `options.filter`. */
  searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]>;
}
