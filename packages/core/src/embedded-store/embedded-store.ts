/**
 * The embedded store: docqa's default vector and keyword index, needing no server and no
 * network. Each organisation gets its own SQLite file, named like the per-organisation
 * collection of the spec (`<DATA_DIR>/<VECTORDB_COLLECTION>_<org suffix>.sqlite`), so
 * organisations are isolated on disk as well as in queries.
 *
 * Files are opened on first use and at most `MAX_OPEN_ORGANISATIONS` stay open, the least
 * recently used closed first once no request uses them (`organisation-handles.ts`). Only writes
 * create a file: reading an organisation that has none answers empty.
 */
import { existsSync } from "node:fs";
import { access, constants, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { ChunkRecord, DocumentVersion, ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentPage, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import { organisationCollectionName } from "../stores/organisation-names.js";
import { observedReindexJob, type ReindexableIndex, type ReindexJob, type ReindexTarget } from "../stores/reindexable-index.js";
import type { CountOptions, EmbeddingModelInfo, SearchOptions, TransactionalStore, UpsertOptions } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { Bm25Parameters } from "./bm25-index.js";
import type { HnswSettings } from "./hnsw-vector-index.js";
import { descriptorsExhausted } from "./organisation-database.js";
import { OrganisationHandles } from "./organisation-handles.js";
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
   * Approximate vector index beside the exact one (`VECTOR_INDEX`, `HNSW_*`); default `auto`:
   * an HNSW graph is built in the background for organisations with at least 20,000 vectors.
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
  /**
   * Most organisation files kept open at once (`MAX_OPEN_ORGANISATIONS`); default 128. Each open
   * organisation holds 3 file descriptors (database, WAL, shared memory) and its in-memory
   * indexes; beyond the limit the least recently used is closed once no request uses it, and
   * reopened (its indexes rebuilt from the file) when asked for again.
   */
  maxOpenOrganisations?: number;
  logger?: Logger;
}

/** Default of {@link EmbeddedStoreSettings.maxOpenOrganisations}. */
export const defaultMaxOpenOrganisations = 128;

/**
 * The embedded store: vector index, keyword index and document registry in one transactional
 * store, reindexable with another embedding model (a side table of new vectors, switched in one
 * transaction).
 */
export interface EmbeddedStore extends TransactionalStore, ReindexableIndex {
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
  /** Number of organisation files open now (at most `maxOpenOrganisations`, plus any evicted while in use). */
  openOrganisations(): number;
}

/**
 * Creates the embedded store. Organisation files are opened on first use (created on first write).
 *
 * @example
 * ```ts
 * const store = createEmbeddedStore({ dataDir: "./data" });
 * const service = createRagService({ stores: store });
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
    hnsw: { connectivity: 16, expansionAdd: 128, ...settings.vectorIndex?.hnsw },
  };
  const handles = new OrganisationHandles<OrganisationStore>(
    settings.maxOpenOrganisations ?? defaultMaxOpenOrganisations,
    (orgId) =>
      new OrganisationStore({
        path: pathOf(orgId),
        orgId,
        analyzer,
        bm25,
        vectorIndex,
        logger,
        inMemoryIndexes: settings.inMemoryIndexes,
        refreshSliceMs: settings.refreshSliceMs,
      }),
  );
  let closed = false;

  function pathOf(orgId: string): string {
    return join(dataDir, `${organisationCollectionName(collection, orgId)}.sqlite`);
  }
  const check = (orgId: string): void => {
    if (closed) throw new DocqaError("store_unavailable", "the embedded store is closed", { component: "embedded-store" });
    if (typeof orgId !== "string" || orgId === "") throw new TypeError("orgId must be a non-empty string");
  };
  /** Runs a read; an organisation without a file answers `empty` and no file is created. */
  const read = <R>(orgId: string, empty: R, action: (store: OrganisationStore) => R | Promise<R>): R | Promise<R> => {
    check(orgId);
    if (!handles.has(orgId) && !existsSync(pathOf(orgId))) return empty;
    return handles.use(orgId, action);
  };
  /** Runs a write, creating the organisation's file when needed. */
  const write = <R>(orgId: string, action: (store: OrganisationStore) => R): R => {
    check(orgId);
    return handles.use(orgId, action);
  };

  return {
    name: "embedded",
    writes: "transactional",
    dataDir,
    async upsert(orgId: string, documents: readonly DocumentVersion[], options: UpsertOptions = {}) {
      // Only deletions: nothing to delete in an organisation without a file, so none is created.
      const action = (store: OrganisationStore) => store.upsert(documents, options.embeddingModel, options.deleteDocIds);
      if (documents.length === 0) read(orgId, undefined, action);
      else write(orgId, action);
    },
    async derivedDocuments(orgId: string, sourceDocIds: readonly string[]) {
      return read(orgId, [], (store) => store.derivedDocuments(sourceDocIds));
    },
    async delete(orgId: string, docIds: readonly string[]) {
      read(orgId, undefined, (store) => store.delete(docIds));
    },
    async contentHashes(orgId: string, docIds: readonly string[]) {
      return read(orgId, new Map<string, string>(), (store) => store.contentHashes(docIds));
    },
    async describeDocuments(orgId: string, docIds: readonly string[]) {
      return read(orgId, new Map<string, DocumentRecord>(), (store) => store.describeDocuments(docIds));
    },
    async listDocuments(orgId: string, query: DocumentQuery) {
      return read(orgId, { documents: [], next: null } as DocumentPage, (store) => store.listDocuments(query));
    },
    async documentChunks(orgId: string, docId: string, contentHash: string) {
      return read(orgId, [] as ChunkRecord[], (store) => store.documentChunks(docId, contentHash));
    },
    async count(orgId: string) {
      return read(orgId, 0, async (store) => {
        await store.refresh();
        return store.count();
      });
    },
    async countWithoutEmbedding(orgId: string) {
      return read(orgId, 0, (store) => store.countWithoutEmbedding());
    },
    async vectorIndexStatus(orgId: string) {
      return read(orgId, { vectors: 0, approximate: "none" as const }, async (store) => {
        await store.refresh();
        return store.vectorIndexStatus();
      });
    },
    async refresh(orgId: string) {
      await read(orgId, undefined, (store) => store.refresh());
    },
    openOrganisations() {
      return handles.size;
    },
    async vectorModel(orgId: string) {
      return read(orgId, undefined, (store) => store.vectorModel());
    },
    async reindexJob(orgId: string) {
      const job = await read(orgId, undefined, (store) => store.reindexJob());
      return job ? observedReindexJob(job) : undefined;
    },
    async beginReindex(orgId: string, job: ReindexJob): Promise<ReindexTarget> {
      write(orgId, (store) => store.beginReindex(job));
      /** Row id after which `pending` looks next; 0 starts a full pass. */
      let cursor = 0;
      return {
        settleMs: 0, // the switch is one transaction: every process sees it at once
        async pending(limit) {
          // Every chunk of a transactional store is committed: no registry check.
          for (;;) {
            const { chunks, last } = write(orgId, (store) => store.reindexPending(cursor, limit));
            if (chunks.length > 0) {
              cursor = last;
              return chunks;
            }
            if (cursor === 0) return [];
            cursor = 0; // a last full pass finds chunks written behind the cursor
          }
        },
        async write(chunks) {
          write(orgId, (store) => store.reindexWrite(chunks, job.model));
        },
        async save(saved) {
          write(orgId, (store) => store.saveReindexJob(saved));
        },
        async activate() {
          return write(orgId, (store) => store.reindexActivate(job.model));
        },
        async retire() {},
        // The side table stays: a later job for the same model resumes from it.
        async discard() {},
      };
    },
    async searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]> {
      options.signal?.throwIfAborted();
      return read(orgId, [], async (store) => {
        await store.refresh();
        options.signal?.throwIfAborted();
        return store.searchByText(query, options.topK, options.filter);
      });
    },
    async countByText(orgId: string, query: string, options: CountOptions): Promise<number> {
      options.signal?.throwIfAborted();
      return read(orgId, 0, async (store) => {
        await store.refresh();
        options.signal?.throwIfAborted();
        return store.countByText(query, options.filter, options.include);
      });
    },
    async searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]> {
      options.signal?.throwIfAborted();
      return read(orgId, [], async (store) => {
        await store.refresh();
        options.signal?.throwIfAborted();
        return store.searchByVector(vector, model, options.topK, options.filter);
      });
    },
    async ping() {
      if (closed) throw new DocqaError("store_unavailable", "the embedded store is closed", { component: "embedded-store" });
      try {
        await mkdir(dataDir, { recursive: true });
        await access(dataDir, constants.R_OK | constants.W_OK);
      } catch (error) {
        throw new DocqaError("store_unavailable", `DATA_DIR ${dataDir} is not a writable directory: ${(error as Error).message}`, {
          component: "embedded-store",
          cause: error,
        });
      }
      const exhausted = descriptorsExhausted(dataDir);
      if (exhausted) {
        throw new DocqaError(
          "store_unavailable",
          `the process has run out of file descriptors (${exhausted}); lower MAX_OPEN_ORGANISATIONS (each open organisation holds 3) or raise the limit (ulimit -n)`,
          { component: "embedded-store" },
        );
      }
    },
    async close() {
      closed = true;
      // Saves of HNSW graphs in progress finish writing their files before this resolves.
      const saves = handles.openHandles().map((store) => store.pendingIndexSave());
      handles.closeAll();
      await Promise.all(saves);
    },
  };
}
