/**
 * One organisation's part of the embedded store: a SQLite database (the durable source of
 * truth, through Node's built-in `node:sqlite`) and in-memory BM25 and vector indexes derived
 * from it.
 *
 * Durability and atomicity: every write is one SQLite transaction in WAL mode with
 * `synchronous=FULL`, so a crash (kill -9, power loss) leaves the last committed state and a
 * document is either wholly old or wholly new. Each transaction also appends the affected
 * document ids to a `changes` log, which the in-memory indexes replay after this connection's
 * writes, and before every search when another connection has committed (`PRAGMA
 * data_version`): an ingestion worker thread, or another process (`docqa ingest` beside
 * `docqa serve`).
 *
 * A store opened with `inMemoryIndexes: false` (ingestion workers) only writes and reads the
 * registry: it builds no in-memory index and cannot search.
 *
 * This file holds the writes and composes the parts, one concern each: the database and its
 * statements (`organisation-database.ts`), the registry reads (`organisation-registry.ts`), the
 * in-memory indexes and their catch-up (`index-catch-up.ts`), the searches
 * (`organisation-search.ts`) and the reindex side table (`reindex-side-table.ts`).
 */
import { normalizeAccessName } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { type ChunkRecord, type DocumentVersion, documentInfo, indexedText, type ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentPage, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import type { ReindexJob } from "../stores/reindexable-index.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Bm25Parameters } from "./bm25-index.js";
import { assertModelFits } from "./embedding-model-fit.js";
import type { VectorIndexSettings } from "./hnsw-builder.js";
import { IndexCatchUp } from "./index-catch-up.js";
import { OrganisationDatabase } from "./organisation-database.js";
import { OrganisationRegistry } from "./organisation-registry.js";
import { OrganisationSearch } from "./organisation-search.js";
import { ReindexSideTable } from "./reindex-side-table.js";

export type { VectorIndexSettings } from "./hnsw-builder.js";

/** Entries of the `changes` log kept after a write; a reader further behind reloads. */
const changeLogKeep = 10_000;
/** Milliseconds before the first retry of emptying the write-ahead log after a deletion (a reader held it back). */
const releaseRetryMs = 100;
/** Longest wait between two such retries, in milliseconds. */
const releaseRetryMaxMs = 30_000;

/** Settings of an {@link OrganisationStore}. */
export interface OrganisationStoreSettings {
  /** Path of the SQLite file. */
  path: string;
  /** The organisation, recorded in the file and checked on open. */
  orgId: string;
  analyzer: Analyzer;
  bm25: Bm25Parameters;
  /** Approximate vector index: mode and parameters; see {@link VectorIndexSettings}. */
  vectorIndex: VectorIndexSettings;
  logger: Logger;
  /**
   * Whether to hold in-memory BM25 and vector indexes; default true. `false` makes a store that
   * writes and reads the registry only (ingestion worker threads), whose searches throw.
   */
  inMemoryIndexes?: boolean | undefined;
  /** Milliseconds of work between yields in {@link OrganisationStore.refresh}; default 5. */
  refreshSliceMs?: number | undefined;
  /** Live chunks from which the BM25 postings are saved beside the file (`bm25-snapshot.ts`); default 20,000. */
  bm25SnapshotMinimumChunks?: number | undefined;
}

/** The embedded store of one organisation. Synchronous: SQLite calls block briefly. */
export class OrganisationStore {
  private readonly database: OrganisationDatabase;
  private readonly indexes: IndexCatchUp;
  private readonly registry: OrganisationRegistry;
  private readonly search: OrganisationSearch;
  private readonly reindex: ReindexSideTable;
  /** The next attempt to empty the write-ahead log after a deletion, when a reader held it back. */
  private releaseRetry: NodeJS.Timeout | undefined;

  constructor(private readonly settings: OrganisationStoreSettings) {
    this.database = new OrganisationDatabase(settings);
    this.indexes = new IndexCatchUp(this.database, {
      ...settings,
      inMemoryIndexes: settings.inMemoryIndexes !== false,
      analyzerName: settings.analyzer.name,
    });
    this.registry = new OrganisationRegistry(this.database);
    this.search = new OrganisationSearch(this.database, this.indexes, settings.analyzer);
    this.reindex = new ReindexSideTable(this.database);
  }

  /** The embedding model recorded with this organisation's vectors, if any (as stored now). */
  get embeddingModel(): EmbeddingModelInfo | undefined {
    return this.database.readStoredModel();
  }

  /** Replaces each document's chunks, and deletes `deleteDocIds`, in one transaction; see {@link TransactionalStore.upsert}. */
  upsert(
    documents: readonly DocumentVersion[],
    embeddingModel: EmbeddingModelInfo | undefined,
    deleteDocIds: readonly string[] = [],
  ): void {
    const hasVectors = documents.some((document) => document.chunks.some((chunk) => chunk.embedding !== undefined));
    if (hasVectors) {
      if (!embeddingModel) throw new TypeError("embeddingModel is required when chunks carry embeddings");
      this.assertStoredModel(embeddingModel);
      for (const document of documents) {
        for (const chunk of document.chunks) {
          if (chunk.embedding && chunk.embedding.length !== embeddingModel.dimension) {
            throw new DocqaError(
              "embedding_dimension_mismatch",
              `chunk ${chunk.id} has a ${chunk.embedding.length}-dimensional embedding, expected ${embeddingModel.dimension}`,
              { component: "embedded-store" },
            );
          }
        }
      }
    }
    const rows = documents.map((document) => ({
      document,
      chunks: document.chunks.map((chunk) => ({
        chunk,
        terms: this.settings.analyzer.analyze(indexedText(chunk)).join(" "),
        embedding: chunk.embedding ? new Uint8Array(chunk.embedding.buffer, chunk.embedding.byteOffset, chunk.embedding.byteLength) : null,
      })),
    }));
    const now = Date.now();
    let deletedRows = 0;
    this.database.transaction(() => {
      if (hasVectors && embeddingModel) {
        // Checked again under the write lock: another connection may have switched the vectors.
        if (!this.assertStoredModel(embeddingModel)) {
          this.database.statements.putInfo.run("embedding_model", embeddingModel.id);
          this.database.statements.putInfo.run("embedding_dimension", String(embeddingModel.dimension));
        }
      }
      for (const docId of deleteDocIds) deletedRows += this.deleteDocument(docId);
      for (const { document, chunks } of rows) {
        deletedRows += Number(this.database.statements.deleteChunks.run(document.docId).changes);
        this.database.statements.deleteDerivationsOf.run(document.docId);
        for (const source of document.derivedFrom ?? []) this.database.statements.putDerivation.run(source, document.docId);
        const info = documentInfo(document);
        this.database.statements.putDocument.run(
          document.docId,
          document.contentHash,
          now,
          info.title,
          info.source,
          info.type,
          normalizeAccessName(info.ownerId),
          info.acl,
          info.textHash,
          document.chunks.length,
        );
        for (const { chunk, terms, embedding } of chunks) {
          this.database.statements.insertChunk.run(
            chunk.id,
            document.docId,
            chunk.chunkIndex,
            chunk.text,
            chunk.title,
            chunk.source,
            normalizeAccessName(chunk.ownerId),
            chunk.acl,
            JSON.stringify(chunk.metadata),
            document.contentHash,
            terms,
            embedding,
          );
        }
        this.database.statements.logChange.run(document.docId);
      }
    });
    if (deletedRows > 0) {
      this.indexes.rowsDeleted();
      this.releaseDeletedContent();
    }
    this.afterWrite();
  }

  /**
   * Deletes documents in one transaction; missing ids are ignored. No deleted text stays
   * recoverable from the file: see {@link releaseDeletedContent}.
   */
  delete(docIds: readonly string[]): void {
    let deletedRows = 0;
    this.database.transaction(() => {
      for (const docId of docIds) deletedRows += this.deleteDocument(docId);
    });
    if (deletedRows > 0) {
      this.indexes.rowsDeleted();
      this.releaseDeletedContent();
    }
    this.afterWrite();
  }

  /**
   * After a write that deleted or replaced chunks: frees their pages and empties the write-ahead
   * log (`OrganisationDatabase.releaseDeletedContent`; the rows themselves were overwritten with
   * zeros by `secure_delete`). When a reader holds the log back, tries again after
   * {@link releaseRetryMs} milliseconds, doubling up to {@link releaseRetryMaxMs}, until it
   * succeeds or the store closes (closing tries once more, and SQLite empties the log when its
   * last connection closes).
   */
  private releaseDeletedContent(delayMs = releaseRetryMs): void {
    clearTimeout(this.releaseRetry);
    this.releaseRetry = undefined;
    if (!this.database.isOpen) return;
    let released = false;
    try {
      released = this.database.releaseDeletedContent();
    } catch (error) {
      this.settings.logger.warn((error as Error).message, { component: "embedded-store" });
    }
    if (released) return;
    this.releaseRetry = setTimeout(() => this.releaseDeletedContent(Math.min(delayMs * 2, releaseRetryMaxMs)), delayMs);
    this.releaseRetry.unref();
  }

  /**
   * Brings the in-memory indexes up to date with writes committed by other connections (a
   * worker thread, another process), in time slices: one document at a time, yielding the event
   * loop every few milliseconds; the first load builds fresh indexes the same way and swaps them
   * in when complete. Searches see each document wholly old or wholly new. Concurrent calls share
   * one pass. Resolves at once when nothing changed (and for a store without in-memory indexes).
   */
  refresh(): Promise<void> {
    return this.indexes.refresh();
  }

  /** Deletes one document's rows (inside a transaction); returns the chunk rows deleted. */
  private deleteDocument(docId: string): number {
    const deleted = Number(this.database.statements.deleteChunks.run(docId).changes);
    this.database.statements.deleteDocument.run(docId);
    this.database.statements.deleteDerivationsOf.run(docId);
    this.database.statements.logChange.run(docId);
    return deleted;
  }

  /** After a write of this connection: trims the change log, and applies the write to the in-memory indexes. */
  private afterWrite(): void {
    const { seq, first } = this.database.statements.lastChange.get() as { seq: number; first: number };
    if (Number(seq) - Number(first) > changeLogKeep * 2) this.database.statements.trimChanges.run(Number(seq) - changeLogKeep);
    this.indexes.afterWrite();
  }

  /**
   * Fails unless vectors of `model` fit the stored index (see {@link assertModelFits}); returns the
   * stored model, undefined when none is recorded yet.
   *
   * @throws {DocqaError} `embedding_model_mismatch`.
   */
  private assertStoredModel(model: EmbeddingModelInfo): EmbeddingModelInfo | undefined {
    const stored = this.database.readStoredModel();
    assertModelFits(model, stored, stored === undefined && this.database.statements.anyChunk.get() !== undefined);
    return stored;
  }

  /** Ids of derived documents recorded as built from any of `sourceDocIds`; see {@link OrganisationRegistry}. */
  derivedDocuments(sourceDocIds: readonly string[]): string[] {
    return this.registry.derivedDocuments(sourceDocIds);
  }

  /** Stored content hashes of the given documents that exist. */
  contentHashes(docIds: readonly string[]): Map<string, string> {
    return this.registry.contentHashes(docIds);
  }

  /** The records of the given documents that exist; see {@link DocumentRegistry.describeDocuments}. */
  describeDocuments(docIds: readonly string[]): Map<string, DocumentRecord> {
    return this.registry.describeDocuments(docIds);
  }

  /** One page of documents in id order; see {@link OrganisationRegistry.listDocuments}. */
  listDocuments(query: DocumentQuery): DocumentPage {
    return this.registry.listDocuments(query);
  }

  /** The stored chunks of one version of a document, with embeddings; see {@link ChunkIndex.documentChunks}. */
  documentChunks(docId: string, contentHash: string): ChunkRecord[] {
    return this.registry.documentChunks(docId, contentHash);
  }

  /** Number of chunks without an embedding (ingested while no model was available). */
  countWithoutEmbedding(): number {
    return this.registry.countWithoutEmbedding();
  }

  /** The model of the live vectors, `null` for chunks without vectors, undefined for none; see {@link OrganisationRegistry.vectorModel}. */
  vectorModel(): EmbeddingModelInfo | null | undefined {
    return this.registry.vectorModel();
  }

  /** Number of chunks in the in-memory indexes (call {@link refresh} first to count writes made elsewhere). */
  count(): number {
    return this.search.count();
  }

  /** BM25 search over the in-memory indexes (call {@link refresh} first); see {@link KeywordIndex.searchByText}. */
  searchByText(query: string, topK: number, filter: ChunkFilter): ScoredChunk[] {
    return this.search.searchByText(query, topK, filter);
  }

  /** The number of chunks matching `query` or in `include` under `filter` (call {@link refresh} first); see {@link KeywordIndex.countByText}. */
  countByText(query: string, filter: ChunkFilter, include: readonly string[] = []): number {
    return this.search.countByText(query, filter, include);
  }

  /** Exact (or HNSW) vector search over the in-memory indexes (call {@link refresh} first); see {@link VectorIndex.searchByVector}. */
  searchByVector(vector: Float32Array, model: EmbeddingModelInfo, topK: number, filter: ChunkFilter): ScoredChunk[] {
    return this.search.searchByVector(vector, model, topK, filter);
  }

  /** Vectors held, and the state of the HNSW graph: `none`, `building` or `ready`. */
  vectorIndexStatus(): { vectors: number; approximate: "none" | "building" | "ready" } {
    return this.search.vectorIndexStatus();
  }

  /** Resolves when the saves of the HNSW graph and the BM25 postings in progress, if any, have finished; never rejects. */
  async pendingIndexSave(): Promise<void> {
    await Promise.all([this.indexes.hnsw.pendingSave, this.indexes.pendingBm25Save]);
  }

  /** The latest reindex job recorded, if any. */
  reindexJob(): ReindexJob | undefined {
    return this.reindex.reindexJob();
  }

  /** Records `job` and prepares the side table; see {@link ReindexSideTable.beginReindex}. */
  beginReindex(job: ReindexJob): void {
    this.reindex.beginReindex(job);
  }

  /** Up to `limit` chunks after row `after` without a vector of the target model; see {@link ReindexSideTable.reindexPending}. */
  reindexPending(after: number, limit: number): { chunks: ChunkRecord[]; last: number } {
    return this.reindex.reindexPending(after, limit);
  }

  /** Stores the chunks' vectors by the target model; see {@link ReindexSideTable.reindexWrite}. */
  reindexWrite(chunks: readonly ChunkRecord[], model: EmbeddingModelInfo): void {
    this.reindex.reindexWrite(chunks, model);
  }

  /** Saves a reindex job's progress. */
  saveReindexJob(job: ReindexJob): void {
    this.reindex.saveReindexJob(job);
  }

  /**
   * Switches the live vectors to those of `model`; see {@link ReindexSideTable.reindexActivate}.
   * Returns false (changing nothing) when a chunk has no vector of `model` yet.
   */
  reindexActivate(model: EmbeddingModelInfo): boolean {
    const activated = this.reindex.reindexActivate(model);
    // This connection's commit does not change its own data_version: the next refresh is forced,
    // and rebuilds the indexes a slice at a time (the generation changed).
    if (activated) this.indexes.forceRefresh();
    return activated;
  }

  /** Closes the database. */
  close(): void {
    clearTimeout(this.releaseRetry);
    this.indexes.close();
    this.database.close();
  }
}
