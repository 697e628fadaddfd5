/**
 * The embedded store: docqa's default vector and keyword index, needing no server and no
 * network. Each organisation gets its own SQLite file, named like the per-organisation
 * collection of the spec (`<DATA_DIR>/<VECTORDB_COLLECTION>_<org suffix>.sqlite`), so
 * organisations are isolated on disk as well as in queries.
 */
import { join, resolve } from "node:path";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { DocumentVersion, ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentQuery } from "../stores/document-registry.js";
import { organisationCollectionName } from "../stores/organisation-names.js";
import type { EmbeddingModelInfo, SearchOptions, TransactionalStore, UpsertOptions } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { Bm25Parameters } from "./bm25-index.js";
import type { HnswSettings } from "./hnsw-vector-index.js";
import { OrganisationStore, type VectorIndexSettings } from "./organisation-store.js";

/** Settings of {@link createEmbeddedStore}. */
export interface EmbeddedStoreSettings {
  /** Directory of the SQLite files (`DATA_DIR`); default `./data`. Created when missing. */
  dataDir?: string;
  /** Base name of per-organisation files (`VECTORDB_COLLECTION`); default `docs_collection`. */
  collection?: string;
  /** BM25 parameters (`BM25_K1`, `BM25_B`); default k1 0.9, b 0.4. */
  bm25?: Bm25Parameters;
  /** Analyzer for BM25; default {@link createEnglishAnalyzer}. */
  analyzer?: Analyzer;
  /**
   * Approximate vector index beside the exact one (`VECTOR_INDEX`, `HNSW_*`); default `exact`
   * (none). With `auto`, an HNSW graph is built in the background for organisations with at least
   * 20,000 vectors.
   */
  vectorIndex?: Partial<Omit<VectorIndexSettings, "hnsw">> & { hnsw?: Partial<HnswSettings> };
  /**
   * Whether to hold in-memory BM25 and vector indexes; default true. `false` gives a store that
   * only writes and reads the registry (`upsert`, `delete`, `contentHashes`,
   * `derivedDocuments`), as ingestion worker threads use it: searches throw a `TypeError`.
   */
  inMemoryIndexes?: boolean;
  /**
   * Milliseconds of in-memory index work between yields to the event loop while applying writes
   * made elsewhere ({@link EmbeddedStore.refresh}); default 5. 0 yields after every step.
   */
  refreshSliceMs?: number;
  logger?: Logger;
}

/** The embedded store: vector index, keyword index and document registry in one transactional store. */
export interface EmbeddedStore extends TransactionalStore {
  readonly name: "embedded";
  /** Deletes every chunk of the given documents; deleting a missing id is a no-op. */
  delete(orgId: string, docIds: readonly string[]): Promise<void>;
  /** Absolute path of the data directory. */
  readonly dataDir: string;
  /** Number of chunks of `orgId` stored without an embedding. */
  countWithoutEmbedding(orgId: string): Promise<number>;
  /** Vectors of `orgId` and the state of its HNSW graph (`none`, `building`, `ready`). */
  vectorIndexStatus(orgId: string): Promise<{ vectors: number; approximate: "none" | "building" | "ready" }>;
  /**
   * Applies writes committed to `orgId` by another connection (an ingestion worker thread,
   * another process) to the in-memory indexes, in time slices that leave the event loop free.
   * Searches and counts do this first on their own; call it to pay the cost before the next one.
   */
  refresh(orgId: string): Promise<void>;
}

/**
 * Creates the embedded store. Organisation files are opened on first use.
 *
 * @example
 * ```ts
 * const store = createEmbeddedStore({ dataDir: "./data" });
 * const service = createRagService({ stores: { vector: store, keyword: store } });
 * ```
 */
export function createEmbeddedStore(settings: EmbeddedStoreSettings = {}): EmbeddedStore {
  const dataDir = resolve(settings.dataDir ?? "./data");
  const collection = settings.collection ?? "docs_collection";
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();
  const bm25 = settings.bm25 ?? { k1: 0.9, b: 0.4 };
  const logger = settings.logger ?? silentLogger;
  const vectorIndex: VectorIndexSettings = {
    mode: settings.vectorIndex?.mode ?? "auto",
    minVectors: settings.vectorIndex?.minVectors ?? 20_000,
    hnsw: { connectivity: 16, expansionAdd: 128, expansionSearch: 64, ...settings.vectorIndex?.hnsw },
  };
  const organisations = new Map<string, OrganisationStore>();
  let closed = false;

  const organisation = (orgId: string): OrganisationStore => {
    if (closed) throw new DocqaError("store_unavailable", "the embedded store is closed", { component: "embedded-store" });
    if (typeof orgId !== "string" || orgId === "") throw new TypeError("orgId must be a non-empty string");
    let store = organisations.get(orgId);
    if (!store) {
      store = new OrganisationStore({
        path: join(dataDir, `${organisationCollectionName(collection, orgId)}.sqlite`),
        orgId,
        analyzer,
        bm25,
        vectorIndex,
        logger,
        inMemoryIndexes: settings.inMemoryIndexes,
        refreshSliceMs: settings.refreshSliceMs,
      });
      organisations.set(orgId, store);
    }
    return store;
  };

  return {
    name: "embedded",
    writes: "transactional",
    dataDir,
    async upsert(orgId: string, documents: readonly DocumentVersion[], options: UpsertOptions = {}) {
      organisation(orgId).upsert(documents, options.embeddingModel, options.deleteDocIds);
    },
    async derivedDocuments(orgId: string, sourceDocIds: readonly string[]) {
      return organisation(orgId).derivedDocuments(sourceDocIds);
    },
    async delete(orgId: string, docIds: readonly string[]) {
      organisation(orgId).delete(docIds);
    },
    async contentHashes(orgId: string, docIds: readonly string[]) {
      return organisation(orgId).contentHashes(docIds);
    },
    async describeDocuments(orgId: string, docIds: readonly string[]) {
      return organisation(orgId).describeDocuments(docIds);
    },
    async listDocuments(orgId: string, query: DocumentQuery) {
      return organisation(orgId).listDocuments(query);
    },
    async documentChunks(orgId: string, docId: string, contentHash: string) {
      return organisation(orgId).documentChunks(docId, contentHash);
    },
    async count(orgId: string) {
      const store = organisation(orgId);
      await store.refresh();
      return store.count();
    },
    openOrganisations() {
      return organisations.size;
    },
    async countWithoutEmbedding(orgId: string) {
      return organisation(orgId).countWithoutEmbedding();
    },
    async vectorIndexStatus(orgId: string) {
      const store = organisation(orgId);
      await store.refresh();
      return store.vectorIndexStatus();
    },
    async refresh(orgId: string) {
      await organisation(orgId).refresh();
    },
    async searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]> {
      options.signal?.throwIfAborted();
      const store = organisation(orgId);
      await store.refresh();
      options.signal?.throwIfAborted();
      return store.searchByText(query, options.topK, options.filter);
    },
    async searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]> {
      options.signal?.throwIfAborted();
      const store = organisation(orgId);
      await store.refresh();
      options.signal?.throwIfAborted();
      return store.searchByVector(vector, model, options.topK, options.filter);
    },
    async close() {
      closed = true;
      for (const store of organisations.values()) store.close();
      organisations.clear();
    },
  };
}
