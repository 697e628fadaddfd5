/**
 * The search interfaces every index implements. An index keeps one isolated collection per
 * organisation; nothing written under one `orgId` is ever returned for another. How documents
 * are written depends on the store: see {@link TransactionalStore} (one store, one transaction)
 * and {@link StagedIndex} (server engines, written in stages and committed in a
 * {@link DocumentRegistry}); `transactionalDocumentStores` and `stagedDocumentStores`
 * (`document-stores.ts`) run the right protocol behind one `DocumentStores` interface.
 */
import type { ChunkFilter } from "./chunk-filter.js";
import type { ChunkRecord, DocumentVersion, ScoredChunk } from "./chunk-record.js";
import type { DocumentInfo, DocumentRegistry } from "./document-registry.js";

/** Identity of the embedding model whose vectors an index holds. */
export interface EmbeddingModelInfo {
  /** Model id, for example `Xenova/bge-base-en-v1.5`. */
  id: string;
  /** Vector dimension. */
  dimension: number;
}

/**
 * Default HNSW search list size ef (`HNSW_EXPANSION_SEARCH`) of Milvus collections, and of the
 * embedded store's graphs of up to {@link hnswExpansionReferenceVectors} vectors (larger graphs:
 * {@link hnswExpansionSearchFor}). Chosen by `BENCH_ONLY=scale npm run bench` (2026-11-28, 100,000
 * chunks of the scale corpus, 384 dimensions, M = 16): recall@10 against exact search 0.918 at ef
 * 64 and 0.963 at 128, `/api/search` vector p50 4.2 ms and 3.4 ms (no cost measurable over the
 * request's own); see docs/deployment.md, "Where one machine stops".
 */
export const defaultHnswExpansionSearch = 128;

/** Graph size (vectors) up to which {@link hnswExpansionSearchFor} gives {@link defaultHnswExpansionSearch}. */
export const hnswExpansionReferenceVectors = 100_000;

/**
 * Exponent α of {@link hnswExpansionSearchFor}: ef = 128 · (N / 100,000)^α. Fitted by
 * `BENCH_ONLY=hnsw-expansion npm run bench` (bench/hnsw-expansion.ts, 2026-11-29) as the growth of
 * the smallest ef whose recall@10 against exact search reaches 0.95 on graphs of the scale corpus
 * (384 dimensions, M = 16): 95 at 100,000 vectors, 484 at 1,000,000, so α = log10(484 / 95) =
 * 0.708. The rule gives 657 at 1,000,000 vectors: recall@10 0.962 at ef 640 and 0.967 at 768 in
 * that run (0.856 at 128), the graph's search 2.7 ms p50 at 640 against 0.56 ms at 128; see
 * docs/deployment.md, "Where one machine stops".
 */
export const hnswExpansionGrowth = 0.71;

/**
 * The HNSW search list size ef the embedded store uses for a graph of `vectors` vectors when
 * `HNSW_EXPANSION_SEARCH` is not set: {@link defaultHnswExpansionSearch} (128) up to
 * {@link hnswExpansionReferenceVectors} (100,000) vectors, then growing as
 * 128 · (N / 100,000)^{@link hnswExpansionGrowth}, so that recall@10 stays at 0.95 or more as the
 * graph grows (a fixed ef loses recall with size: 0.964 at 100,000 and 0.856 at 1,000,000 vectors
 * at ef 128). Whole number, at least 128.
 *
 * @example hnswExpansionSearchFor(50_000) === 128
 */
export function hnswExpansionSearchFor(vectors: number): number {
  const growth = Math.max(1, vectors / hnswExpansionReferenceVectors) ** hnswExpansionGrowth;
  return Math.ceil(defaultHnswExpansionSearch * growth);
}

/** Whether two embedding models are the same: equal id and dimension. */
export function sameModel(left: EmbeddingModelInfo, right: EmbeddingModelInfo): boolean {
  return left.id === right.id && left.dimension === right.dimension;
}

/** Options of a search. */
export interface SearchOptions {
  /** Number of results wanted. */
  topK: number;
  /**
   * Filters applied before scoring, so that top-k is filled with chunks that pass them (ACL
   * pre-filtering). An index that cannot express a condition natively still returns only chunks
   * that satisfy {@link matchesChunkFilter}.
   */
  filter: ChunkFilter;
  /** Cancels the search. */
  signal?: AbortSignal | undefined;
}

/** Options of {@link KeywordIndex.countByText}. */
export interface CountOptions {
  /** The filters of the search whose matches are counted (ACL pre-filter, documents, metadata). */
  filter: ChunkFilter;
  /**
   * Chunk ids counted as matches as well, when they pass `filter` (the results another retriever
   * returned), each once; default none.
   */
  include?: readonly string[] | undefined;
  /** Cancels the count. */
  signal?: AbortSignal | undefined;
}

/** What a health check ({@link ChunkIndex.ping}) found beyond "the backend answers". */
export interface StoreHealth {
  /**
   * Why the backend is degraded: it serves every request, but with less redundancy than it was
   * set up with, so one more failure may make it unavailable or lose data (for example a search
   * engine cluster in yellow health, or with fewer nodes than `FULLTEXT_URI` lists). Undefined
   * when it is not.
   */
  degraded?: string | undefined;
}

/** Behaviour shared by vector and keyword indexes. */
export interface ChunkIndex {
  /** Name used in logs and errors, for example `embedded`, `milvus`, `opensearch`. */
  readonly name: string;
  /** Number of chunks stored for the organisation (all versions, committed or not). */
  count(orgId: string): Promise<number>;
  /**
   * Checks that the backend answers (readiness probes, and `/api/ingest` before it accepts a
   * job): one light request to the server (Milvus `GetVersion`-like call, OpenSearch
   * `GET /_cluster/health`), or for the embedded store a writable data directory and a free file
   * descriptor. Resolves when usable, with a {@link StoreHealth} saying so when the backend serves
   * with less redundancy than it should (a cluster that lost a node); bounded by the store's own
   * time limit (`STORE_TIMEOUT_MS`).
   *
   * @throws {DocqaError} `store_unavailable` saying what is wrong.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a healthy store may resolve with nothing (`async ping() {}`).
  ping(): Promise<void | StoreHealth>;
  /**
   * The stored chunks of version `contentHash` of document `docId`, in chunk order, each with its
   * embedding when this index keeps embeddings (a vector index does; a keyword index returns them
   * without). Empty when that version is not stored. Used to re-stamp a document whose access
   * changed without re-embedding it.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  documentChunks(orgId: string, docId: string, contentHash: string): Promise<ChunkRecord[]>;
  /**
   * Organisations whose collection this process holds open (files, handles, caches), for the
   * `docqa_open_organisation_stores` metric; absent when the backend keeps nothing open per
   * organisation.
   */
  openOrganisations?(): number;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}

/** Options of a write. */
export interface WriteOptions {
  /** The model that produced the chunks' embeddings, recorded with the index. */
  embeddingModel?: EmbeddingModelInfo | undefined;
}

/** Options of {@link TransactionalStore.upsert}. */
export interface UpsertOptions extends WriteOptions {
  /** Documents to delete in the same atomic write (derived documents made stale by this write). */
  deleteDocIds?: readonly string[] | undefined;
}

/** Nearest-neighbour search over chunk embeddings. Scores are cosine similarities in [-1, 1]. */
export interface VectorIndex extends ChunkIndex {
  /**
   * The `topK` chunks most similar to `vector` among those passing `options.filter`, best first.
   *
   * @throws {DocqaError} `embedding_model_mismatch` when `model` differs from the index's;
   *   `store_unavailable` when the backend fails or times out.
   */
  searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]>;
}

/** One hybrid search: the vector and BM25 lists of a query, fused by the engine. */
export interface HybridSearchRequest {
  /** The query text (BM25). */
  text: string;
  /** The query embedding and its model. */
  vector: Float32Array;
  model: EmbeddingModelInfo;
  /** Candidates of each list, before fusion. */
  depth: { vector: number; keyword: number };
  /** Weight of each list's normalised scores (`WEIGHT_VECTOR`, `WEIGHT_BM25`). */
  weights: { vector: number; keyword: number };
  /** Fused results wanted. */
  topK: number;
  /** Applied to both lists before scoring (ACL pre-filter, documents, metadata). */
  filter: ChunkFilter;
  signal?: AbortSignal | undefined;
}

/**
 * Optional capability of an index that serves both the vector and the BM25 list (Milvus with its
 * BM25 function): one request that searches both under the same filter and fuses them with
 * min-max normalisation and a weighted sum (`HYBRID_SEARCH=engine`), instead of two searches fused
 * in docqa.
 */
export interface HybridIndex {
  /**
   * The fused results, best first, their `score` the engine's fused score; undefined when this
   * organisation's index cannot answer a hybrid request (for example a collection without BM25),
   * so that the caller fuses two searches itself.
   *
   * @throws {DocqaError} as {@link VectorIndex.searchByVector} and {@link KeywordIndex.searchByText}.
   */
  searchHybrid(orgId: string, request: HybridSearchRequest): Promise<ScoredChunk[] | undefined>;
}

/** Whether `index` offers {@link HybridIndex.searchHybrid}. */
export function isHybridIndex(index: unknown): index is HybridIndex {
  return typeof (index as { searchHybrid?: unknown } | undefined)?.searchHybrid === "function";
}

/** Keyword search with Okapi BM25 scores (non-negative, unbounded). */
export interface KeywordIndex extends ChunkIndex {
  /**
   * The `topK` chunks with the highest BM25 score for `query` among those passing
   * `options.filter`, best first.
   *
   * @throws {DocqaError} `store_unavailable` when the backend fails or times out.
   */
  searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]>;
  /**
   * Optional: the number of chunks passing `options.filter` that match `query` as
   * {@link searchByText} matches (at least one of its analysed terms), or whose id is in
   * `options.include`; each chunk once. One count under the same pre-filter as the search, not a
   * search: `POST /api/search` reports it as `total`. An index without it reports the number of
   * results instead. A server engine may count a document being rewritten at that moment in both
   * of its versions, and may cap the count (see the index's documentation).
   *
   * @throws {DocqaError} `store_unavailable` when the backend fails or times out.
   */
  countByText?(orgId: string, query: string, options: CountOptions): Promise<number>;
}

/**
 * A store holding the vector index, the keyword index and the document registry in one place,
 * written in one transaction (the embedded store).
 */
export interface TransactionalStore extends VectorIndex, KeywordIndex, DocumentRegistry {
  readonly writes: "transactional";
  /**
   * Replaces every chunk of each given document and deletes `options.deleteDocIds`, atomically:
   * readers see the old state or the new one, never a mix, also after a crash. Resolves once the
   * write is durable.
   *
   * @throws {DocqaError} `store_unavailable`; `embedding_model_mismatch` when the vectors come
   *   from a different model than the index holds.
   */
  upsert(orgId: string, documents: readonly DocumentVersion[], options?: UpsertOptions): Promise<void>;
  /**
   * Optional: applies writes committed to `orgId` by another connection (an ingestion worker
   * thread, another process) to state this instance keeps in memory, without holding the event
   * loop for long. The embedded store implements it; see `DocumentStores.refresh`.
   */
  refresh?(orgId: string): Promise<void>;
}

/**
 * An index on a server engine, written in stages: {@link StagedIndex.write} adds the chunks of
 * new document versions beside the old ones, the {@link StagedRegistry} commits the new version,
 * and {@link StagedIndex.prune} removes the others. Searches may return chunks of any stored
 * version; callers keep only committed ones (`DocumentStores.visible`).
 */
export interface StagedIndex extends ChunkIndex {
  readonly writes: "staged";
  /**
   * Adds the chunks of these document versions, keyed by document, position and version, so that
   * other versions of the same documents stay untouched. Idempotent. Resolves once the chunks are
   * durable and searchable.
   *
   * @throws {DocqaError} `store_unavailable` (including a partial bulk failure, with the failed
   *   items in its message); `embedding_model_mismatch`.
   */
  write(orgId: string, documents: readonly DocumentVersion[], options?: WriteOptions): Promise<void>;
  /**
   * For each entry of `keep`: deletes the document's chunks whose version (`contentHash`) is not
   * the given one; `null` deletes all of the document's chunks.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  prune(orgId: string, keep: ReadonlyMap<string, string | null>): Promise<void>;
}

/** A {@link DocumentRegistry} that commits document versions (on a server engine). */
export interface StagedRegistry extends DocumentRegistry {
  /**
   * Records `write` as the committed versions and removes `remove`. Each document's entry is
   * written atomically; when the call fails, some documents may be committed and others not
   * ({@link DocumentRegistry.contentHashes} tells which).
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  commit(orgId: string, change: { write: readonly RegisteredDocument[]; remove: readonly string[] }): Promise<void>;
}

/** A document's committed version, as a registry records it. */
export interface RegisteredDocument {
  docId: string;
  /** The committed version (the {@link DocumentVersion.contentHash}). */
  contentHash: string;
  /** For derived documents (RAPTOR summaries): the documents they were built from. */
  derivedFrom?: readonly string[] | undefined;
  /** What the document is (title, owner, ACL, ...): `documentInfo(version)`. */
  info: DocumentInfo;
  /** Number of chunks of the version. */
  chunkCount: number;
}
