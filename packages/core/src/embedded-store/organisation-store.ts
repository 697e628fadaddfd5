/**
 * One organisation's part of the embedded store: a SQLite database (the durable source of
 * truth, through Node's built-in `node:sqlite`) and in-memory BM25 and vector indexes derived
 * from it.
 *
 * Durability and atomicity: every write is one SQLite transaction in WAL mode with
 * `synchronous=FULL`, so a crash (kill -9, power loss) leaves the last committed state and a
 * document is either wholly old or wholly new. Each transaction also appends the affected
 * document ids to a `changes` log; the in-memory indexes replay that log after their own
 * writes, and before every search when another connection has committed (`PRAGMA
 * data_version`): an ingestion worker thread, or another process (`docqa ingest` beside
 * `docqa serve`). That replay ({@link OrganisationStore.refresh}) runs in time slices, one
 * document at a time, so a large write made elsewhere never holds the serving thread for long;
 * the first load of the indexes is built the same way and swapped in when complete.
 *
 * A store opened with `inMemoryIndexes: false` (ingestion workers) only writes and reads the
 * registry: it builds no in-memory index and cannot search.
 *
 * A reindex (`docqa reindex`, `service.reindex`) keeps the chunks' vectors by the new model in a
 * side table and replaces the live ones in one transaction, which records the new model and
 * increments the vectors' generation (`vectors_generation`) without logging each chunk as a
 * change; every catch-up compares the generation and model its indexes were built from with the
 * stored ones and rebuilds the indexes when another connection switched the vectors.
 *
 * This file composes the parts: the database and its statements (`organisation-database.ts`),
 * the slot table and ACL masks (`slot-table.ts`), the background HNSW graph (`hnsw-builder.ts`)
 * and the SQL of metadata filters (`metadata-sql.ts`).
 */
import { canRead } from "../acl/evaluate-access.js";
import { normalizeAccessName, normalizePrincipal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { IdScore } from "../retrieval/top-k.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { type ChunkRecord, type DocumentVersion, documentInfo, indexedText, type ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentPage, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import { type ReindexJob, reindexHeartbeatTimeoutMs } from "../stores/reindexable-index.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { Bm25Index, type Bm25Parameters, type SlotMask } from "./bm25-index.js";
import { ExactVectorIndex } from "./exact-vector-index.js";
import { HnswBuilder, type VectorIndexSettings } from "./hnsw-builder.js";
import { type ChunkRow, type DocumentRow, type IndexedChunkRow, OrganisationDatabase, toChunkRecord } from "./organisation-database.js";
import { SlotTable } from "./slot-table.js";
import { TimeSlice } from "./time-slice.js";

export type { VectorIndexSettings } from "./hnsw-builder.js";

/** Entries of the `changes` log kept after a write; a reader further behind reloads. */
const changeLogKeep = 10_000;
/** Chunk rows read per step of a gradual reload. */
const reloadPageRows = 256;
/** Documents with more chunks than this are staged in steps during a replay, then revealed at once. */
const stagedDocumentRows = 64;
/** Slots staged between checks of the time slice. */
const stagingStep = 32;
/** Milliseconds before the first retry of emptying the write-ahead log after a deletion (a reader held it back). */
const releaseRetryMs = 100;
/** Longest wait between two such retries, in milliseconds. */
const releaseRetryMaxMs = 30_000;
/** The columns the in-memory indexes are built from. */
const documentChunksQuery = "SELECT id, doc_id, owner_id, acl, terms, embedding FROM chunks";

/** The rows of `first`, then the rest of `rest`; stopping early also stops `rest` (ending its read). */
function* chain<T>(first: readonly T[], rest: Iterator<T>): Generator<T> {
  try {
    yield* first;
    for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
  } finally {
    rest.return?.();
  }
}

/** The in-memory indexes of an organisation, swapped as a whole by a reload. */
interface MemoryIndexes {
  slots: SlotTable;
  bm25: Bm25Index;
  vectors: ExactVectorIndex | undefined;
  /** The model of the vectors held (undefined until one is stored). */
  model: EmbeddingModelInfo | undefined;
  /** The vectors' generation (`vectors_generation`, incremented by each reindex switch) they were built from. */
  generation: number;
}

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
}

/** The embedded store of one organisation. Synchronous: SQLite calls block briefly. */
export class OrganisationStore {
  private readonly database: OrganisationDatabase;
  private indexes: MemoryIndexes;
  private readonly hnsw: HnswBuilder;
  /** Whether {@link indexes} hold the database as of {@link lastChange} (false until the first load). */
  private loaded = false;
  private lastChange = 0;
  private dataVersion = -1;
  /**
   * Incremented by every synchronous catch-up or reload, so that a gradual one in progress stops.
   * Not the vectors' generation (a reindex switch), which {@link MemoryIndexes.generation} follows.
   */
  private catchUpEpoch = 0;
  private refreshing: Promise<void> | undefined;
  private readonly writerOnly: boolean;
  /** The next attempt to empty the write-ahead log after a deletion, when a reader held it back. */
  private releaseRetry: NodeJS.Timeout | undefined;

  constructor(private readonly settings: OrganisationStoreSettings) {
    this.database = new OrganisationDatabase(settings);
    this.writerOnly = settings.inMemoryIndexes === false;
    this.indexes = this.emptyIndexes(this.database.readStoredModel(), this.database.readGeneration());
    this.hnsw = new HnswBuilder(settings.vectorIndex, settings.logger, {
      slotCount: () => this.indexes.slots.length,
      vectors: () => this.indexes.vectors,
      isOpen: () => this.database.isOpen,
    });
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
    if (deletedRows > 0) this.releaseDeletedContent();
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
    if (deletedRows > 0) this.releaseDeletedContent();
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
    if (this.writerOnly || !this.database.isOpen) return Promise.resolve();
    if (this.loaded && this.refreshing === undefined && this.database.readDataVersion() === this.dataVersion) return Promise.resolve();
    this.refreshing ??= this.refreshGradually().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Ids of derived documents recorded as built from any of `sourceDocIds`. */
  derivedDocuments(sourceDocIds: readonly string[]): string[] {
    const derived = new Set<string>();
    for (const source of sourceDocIds) {
      for (const row of this.database.statements.derivedFrom.all(source) as { derived_doc_id: string }[]) derived.add(row.derived_doc_id);
    }
    return [...derived];
  }

  /** Deletes one document's rows (inside a transaction); returns the chunk rows deleted. */
  private deleteDocument(docId: string): number {
    const deleted = Number(this.database.statements.deleteChunks.run(docId).changes);
    this.database.statements.deleteDocument.run(docId);
    this.database.statements.deleteDerivationsOf.run(docId);
    this.database.statements.logChange.run(docId);
    return deleted;
  }

  /** Stored content hashes of the given documents that exist. */
  contentHashes(docIds: readonly string[]): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const docId of docIds) {
      const row = this.database.statements.getDocument.get(docId) as { content_hash: string } | undefined;
      if (row) hashes.set(docId, row.content_hash);
    }
    return hashes;
  }

  /** The records of the given documents that exist; see {@link DocumentRegistry.describeDocuments}. */
  describeDocuments(docIds: readonly string[]): Map<string, DocumentRecord> {
    const records = new Map<string, DocumentRecord>();
    for (const docId of new Set(docIds)) {
      const row = this.database.statements.describeDocument.get(docId) as DocumentRow | undefined;
      if (row) records.set(docId, this.toDocumentRecord(row));
    }
    return records;
  }

  /**
   * One page of documents in id order (SQLite compares TEXT as UTF-8 bytes), filtered in SQL by
   * source, type and owner and by the seven rules in this process; see
   * {@link DocumentRegistry.listDocuments}.
   */
  listDocuments(query: DocumentQuery): DocumentPage {
    const principal = query.principal ? normalizePrincipal(query.principal) : undefined;
    const conditions = ["doc_id > $after", "substr(doc_id, 1, 7) != 'raptor:'"];
    const parameters: Record<string, string> = { after: query.after ?? "" };
    if (query.source !== undefined) {
      conditions.push("source = $source");
      parameters.source = query.source;
    }
    if (query.type !== undefined) {
      conditions.push("type = $type");
      parameters.type = query.type;
    }
    if (query.ownerId !== undefined) {
      conditions.push("owner_id = $owner");
      parameters.owner = normalizeAccessName(query.ownerId);
    }
    const rows = this.database.select<DocumentRow>(
      `SELECT doc_id, content_hash, updated_at, title, source, type, owner_id, acl, text_hash, chunk_count FROM documents WHERE ${conditions.join(" AND ")} ORDER BY doc_id`,
      parameters,
    );
    const documents: DocumentRecord[] = [];
    for (const row of rows) {
      if (principal && !canRead(principal, { ownerId: row.owner_id, acl: row.acl })) continue;
      if (documents.length === query.limit) return { documents, next: documents.at(-1)?.docId ?? null };
      documents.push(this.toDocumentRecord(row));
    }
    return { documents, next: null };
  }

  /** The stored chunks of one version of a document, with embeddings; see {@link ChunkIndex.documentChunks}. */
  documentChunks(docId: string, contentHash: string): ChunkRecord[] {
    const rows = this.database.statements.documentChunks.all(docId, contentHash) as unknown as ChunkRow[];
    return rows.map((row) => ({
      ...toChunkRecord(row),
      embedding: row.embedding
        ? new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength))
        : undefined,
    }));
  }

  /** Number of chunks in the in-memory indexes (call {@link refresh} first to count writes made elsewhere). */
  count(): number {
    const { slots } = this.readableIndexes();
    return slots.length - slots.dead - slots.staged;
  }

  /** Number of chunks without an embedding (ingested while no model was available). */
  countWithoutEmbedding(): number {
    return Number((this.database.statements.countWithoutEmbedding.get() as { n: number }).n);
  }

  /** BM25 search over the in-memory indexes (call {@link refresh} first); see {@link KeywordIndex.searchByText}. */
  searchByText(query: string, topK: number, filter: ChunkFilter): ScoredChunk[] {
    const { bm25 } = this.readableIndexes();
    const terms = this.settings.analyzer.analyze(query);
    if (terms.length === 0) return [];
    return this.hydrate(bm25.search(terms, topK, this.mask(filter)));
  }

  /** The number of chunks matching `query` or in `include` under `filter` (call {@link refresh} first); see {@link KeywordIndex.countByText}. */
  countByText(query: string, filter: ChunkFilter, include: readonly string[] = []): number {
    const { bm25, slots } = this.readableIndexes();
    const includedSlots: number[] = [];
    for (const chunkId of new Set(include)) {
      const row = this.database.statements.rowOfChunk.get(chunkId) as { id: number; doc_id: string } | undefined;
      const slot = row ? slots.slotOfRow(row.doc_id, row.id) : undefined;
      if (slot !== undefined) includedSlots.push(slot);
    }
    return bm25.count(this.settings.analyzer.analyze(query), this.mask(filter), includedSlots);
  }

  /** Exact (or HNSW) vector search over the in-memory indexes (call {@link refresh} first); see {@link VectorIndex.searchByVector}. */
  searchByVector(vector: Float32Array, model: EmbeddingModelInfo, topK: number, filter: ChunkFilter): ScoredChunk[] {
    const indexes = this.readableIndexes();
    const { vectors, slots } = indexes;
    assertModelFits(model, indexes.model, slots.length - slots.dead - slots.staged > 0);
    if (!indexes.model || !vectors) return [];
    const mask = this.mask(filter);
    const approximate = this.hnsw.search(vectors, vector, topK, mask, slots.maskAllowed);
    return this.hydrate(approximate ?? vectors.search(vector, topK, mask));
  }

  /**
   * The model of the live vectors: the model, `null` when chunks are stored without vectors, or
   * undefined when no chunk is stored.
   */
  vectorModel(): EmbeddingModelInfo | null | undefined {
    // Read from the database, not the in-memory indexes: a switch made by another connection is
    // followed at once (a search catches up before it runs), and a store without in-memory
    // indexes answers too.
    const stored = this.database.readStoredModel();
    if (stored) return stored;
    return this.database.statements.anyChunk.get() ? null : undefined;
  }

  /** The latest reindex job recorded, if any. */
  reindexJob(): ReindexJob | undefined {
    const row = this.database.statements.getInfo.get("reindex_job") as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as ReindexJob) : undefined;
  }

  /**
   * Records `job` and prepares its target: the side table of new vectors is kept when it holds
   * vectors of the same model (an interrupted job resumes), emptied otherwise.
   *
   * @throws {DocqaError} `invalid_request` when another job is running (heartbeat younger than
   *   `reindexHeartbeatTimeoutMs`).
   */
  beginReindex(job: ReindexJob): void {
    this.database.transaction(() => {
      const running = this.reindexJob();
      if (
        running &&
        running.jobId !== job.jobId &&
        running.state === "running" &&
        Date.now() - Date.parse(running.updatedAt) < reindexHeartbeatTimeoutMs
      ) {
        throw new DocqaError(
          "invalid_request",
          `a reindex of this organisation to ${running.model.id} is running (job ${running.jobId}, started ${running.startedAt}); wait for it to finish`,
          { component: "embedded-store" },
        );
      }
      const read = (key: string) => (this.database.statements.getInfo.get(key) as { value: string } | undefined)?.value;
      if (read("reindex_model") !== job.model.id || read("reindex_dimension") !== String(job.model.dimension)) {
        this.database.statements.reindexClear.run();
        this.database.statements.putInfo.run("reindex_model", job.model.id);
        this.database.statements.putInfo.run("reindex_dimension", String(job.model.dimension));
      }
      this.database.statements.putInfo.run("reindex_job", JSON.stringify(job));
    });
  }

  /**
   * Up to `limit` chunks after row `after` whose version has no vector of the target model yet,
   * in row order, and the last row id returned.
   */
  reindexPending(after: number, limit: number): { chunks: ChunkRecord[]; last: number } {
    const rows = this.database.statements.reindexPending.all(after, limit) as Omit<ChunkRow, "terms" | "embedding">[];
    return { chunks: rows.map(toChunkRecord), last: rows.length > 0 ? Number((rows.at(-1) as { id: number }).id) : after };
  }

  /**
   * Stores the chunks' vectors by the target model, in one transaction.
   *
   * @throws {DocqaError} `invalid_request` when the target is no longer `model` (another job
   *   replaced it); `embedding_dimension_mismatch`.
   */
  reindexWrite(chunks: readonly ChunkRecord[], model: EmbeddingModelInfo): void {
    for (const chunk of chunks) {
      if (chunk.embedding?.length !== model.dimension) {
        throw new DocqaError(
          "embedding_dimension_mismatch",
          `chunk ${chunk.id} has no ${model.dimension}-dimensional vector of ${model.id}`,
          {
            component: "embedded-store",
          },
        );
      }
    }
    this.database.transaction(() => {
      this.assertReindexTarget(model);
      for (const chunk of chunks) {
        const vector = chunk.embedding as Float32Array;
        this.database.statements.reindexPut.run(
          chunk.id,
          chunk.contentHash,
          new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
        );
      }
    });
  }

  /** Saves a reindex job's progress. */
  saveReindexJob(job: ReindexJob): void {
    this.database.transaction(() => {
      this.database.statements.putInfo.run("reindex_job", JSON.stringify(job));
    });
  }

  /**
   * Replaces every chunk's vector by its vector of `model`, records `model`, and empties the side
   * table, in one transaction; returns false (changing nothing) when a chunk has no vector of
   * `model` yet (written since the last catch-up).
   */
  reindexActivate(model: EmbeddingModelInfo): boolean {
    let activated = false;
    this.database.transaction(() => {
      this.assertReindexTarget(model);
      if (Number((this.database.statements.reindexMissing.get() as { n: number }).n) > 0) return;
      this.database.statements.reindexApply.run();
      this.database.statements.putInfo.run("embedding_model", model.id);
      this.database.statements.putInfo.run("embedding_dimension", String(model.dimension));
      this.database.statements.putInfo.run("vectors_generation", String(this.database.readGeneration() + 1));
      this.database.statements.reindexClear.run();
      this.database.statements.deleteInfo.run("reindex_model");
      this.database.statements.deleteInfo.run("reindex_dimension");
      activated = true;
    });
    // This connection's commit does not change its own data_version: the next refresh is forced,
    // and rebuilds the indexes a slice at a time (the generation changed).
    if (activated) this.dataVersion = -1;
    return activated;
  }

  private assertReindexTarget(model: EmbeddingModelInfo): void {
    const read = (key: string) => (this.database.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    if (read("reindex_model") !== model.id || read("reindex_dimension") !== String(model.dimension)) {
      throw new DocqaError("invalid_request", `the reindex to ${model.id} was replaced by another one`, { component: "embedded-store" });
    }
  }

  /** Vectors held, and the state of the HNSW graph: `none`, `building` or `ready`. */
  vectorIndexStatus(): { vectors: number; approximate: "none" | "building" | "ready" } {
    return { vectors: this.readableIndexes().vectors?.size ?? 0, approximate: this.hnsw.status };
  }

  private toDocumentRecord(row: DocumentRow): DocumentRecord {
    const sources = this.database.statements.sourcesOf.all(row.doc_id) as { source_doc_id: string }[];
    return {
      docId: row.doc_id,
      contentHash: row.content_hash,
      derivedFrom: sources.map((source) => source.source_doc_id),
      title: row.title,
      source: row.source,
      type: row.type,
      ownerId: row.owner_id,
      acl: row.acl,
      textHash: row.text_hash,
      chunkCount: Number(row.chunk_count),
      updatedAt: new Date(Number(row.updated_at)).toISOString(),
    };
  }

  /** Closes the database. */
  close(): void {
    clearTimeout(this.releaseRetry);
    this.hnsw.discard();
    this.database.close();
  }

  /** The indexes searches read; throws for a store without in-memory indexes. */
  private readableIndexes(): MemoryIndexes {
    if (this.writerOnly)
      throw new TypeError("this embedded store was opened without in-memory indexes (inMemoryIndexes: false) and cannot search");
    if (!this.loaded) this.catchUp();
    return this.indexes;
  }

  private emptyIndexes(model: EmbeddingModelInfo | undefined, generation: number): MemoryIndexes {
    return {
      slots: new SlotTable(),
      bm25: new Bm25Index(this.settings.bm25),
      vectors: model ? new ExactVectorIndex(model.dimension) : undefined,
      model,
      generation,
    };
  }

  /**
   * The stored model and generation of the vectors when another connection switched them (a
   * reindex) since `indexes` were built, else undefined. A model stored for the first time (the
   * first vectors of an index that held none) is adopted without a rebuild.
   */
  private vectorsSwitched(indexes: MemoryIndexes): { model: EmbeddingModelInfo | undefined; generation: number } | undefined {
    const model = this.database.readStoredModel();
    const generation = this.database.readGeneration();
    if (generation !== indexes.generation || (model && indexes.model && !sameModel(model, indexes.model))) return { model, generation };
    indexes.model ??= model;
    return undefined;
  }

  /** After a write of this connection: trims the change log, and applies the write to the in-memory indexes. */
  private afterWrite(): void {
    const { seq, first } = this.database.statements.lastChange.get() as { seq: number; first: number };
    if (Number(seq) - Number(first) > changeLogKeep * 2) this.database.statements.trimChanges.run(Number(seq) - changeLogKeep);
    if (!this.writerOnly && this.loaded) this.catchUp();
  }

  /** Rebuilds the in-memory indexes from the database, in one step. */
  private reload(): void {
    this.catchUpEpoch++;
    const dataVersion = this.database.readDataVersion();
    const last = this.database.statements.lastChange.get() as { seq: number };
    const fresh = this.emptyIndexes(this.database.readStoredModel(), this.database.readGeneration());
    for (const row of this.database.statements.allChunks.iterate() as Iterable<IndexedChunkRow>) this.addSlot(fresh, row, "fresh");
    this.install(fresh, Number(last.seq), dataVersion);
  }

  /** Makes `indexes` the searched ones, as of change `lastChange` and `dataVersion`, and restarts the HNSW graph. */
  private install(indexes: MemoryIndexes, lastChange: number, dataVersion: number): void {
    this.hnsw.discard();
    this.indexes = indexes;
    this.loaded = true;
    this.lastChange = lastChange;
    this.dataVersion = dataVersion;
    this.hnsw.maybeStart();
  }

  /**
   * Gives a chunk row a slot in `indexes` and adds it to the BM25 and vector indexes: `live` (and
   * to the HNSW graph), `fresh` (indexes not searched yet), or `staged` (hidden until revealed).
   */
  private addSlot(indexes: MemoryIndexes, row: IndexedChunkRow, mode: "live" | "fresh" | "staged"): number {
    const staged = mode === "staged";
    const slot = indexes.slots.add(row, staged);
    indexes.bm25.add(slot, row.terms === "" ? [] : row.terms.split(" "), staged);
    // A row of another dimension was switched by a reindex after `indexes` were built: left out
    // here, the rebuild that follows the switch holds it.
    if (row.embedding && indexes.model && row.embedding.byteLength === indexes.model.dimension * Float32Array.BYTES_PER_ELEMENT) {
      indexes.vectors ??= new ExactVectorIndex(indexes.model.dimension);
      indexes.vectors.set(
        slot,
        new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength)),
        staged,
      );
      if (mode === "live") this.hnsw.added(slot);
    }
    return slot;
  }

  /** Empties the slots of a document in the searched indexes. */
  private removeDocumentSlots(docId: string): void {
    const indexes = this.indexes;
    for (const slot of indexes.slots.removeDocument(docId)) {
      indexes.bm25.remove(slot);
      indexes.vectors?.remove(slot);
      this.hnsw.removed(slot);
    }
  }

  /** Replaces the slots of a document by its current rows, in one step. */
  private replaceDocument(docId: string, rows: readonly IndexedChunkRow[]): void {
    this.removeDocumentSlots(docId);
    for (const row of rows) this.addSlot(this.indexes, row, "live");
  }

  /**
   * Replaces the slots of a large document: its rows are staged a few at a time (hidden from
   * searches, the event loop running between steps), then its old slots are removed and the new
   * ones revealed in one step, so searches see the document wholly old or wholly new. Returns
   * false, leaving nothing behind, when a reload or a synchronous catch-up took over meanwhile.
   */
  private async replaceDocumentGradually(
    docId: string,
    rows: Iterable<IndexedChunkRow>,
    slice: TimeSlice,
    epoch: number,
  ): Promise<boolean> {
    const indexes = this.indexes;
    const staged: number[] = [];
    for (const row of rows) {
      staged.push(this.addSlot(indexes, row, "staged"));
      if (staged.length % stagingStep !== 0) continue;
      await slice.yieldIfDue();
      if (epoch !== this.catchUpEpoch || indexes !== this.indexes || !this.database.isOpen) {
        for (const slot of staged) {
          indexes.slots.discard(slot);
          indexes.bm25.remove(slot);
          indexes.vectors?.remove(slot);
        }
        return false;
      }
    }
    this.removeDocumentSlots(docId);
    for (const slot of staged) {
      indexes.slots.reveal(slot);
      indexes.bm25.reveal(slot);
      indexes.vectors?.reveal(slot);
      if (indexes.vectors?.has(slot)) this.hnsw.added(slot);
    }
    return true;
  }

  /** Whether so many slots are dead that a reload (which compacts) is due. */
  private compactionDue(): boolean {
    return this.indexes.slots.dead > Math.max(1000, this.indexes.slots.length * 0.3);
  }

  /** Applies every change committed since the last catch-up, by this or another connection, in one step. */
  private catchUp(): void {
    const { seq: latest, first } = this.database.statements.lastChange.get() as { seq: number; first: number };
    if (!this.loaded || Number(first) > this.lastChange + 1 || this.compactionDue() || this.vectorsSwitched(this.indexes)) {
      this.reload();
      return;
    }
    this.catchUpEpoch++;
    const dataVersion = this.database.readDataVersion();
    const changed = new Set<string>();
    for (const row of this.database.statements.changesSince.iterate(this.lastChange) as Iterable<{ seq: number; doc_id: string }>) {
      changed.add(row.doc_id);
    }
    for (const docId of changed) this.replaceDocument(docId, this.database.statements.chunksOfDocument.all(docId) as IndexedChunkRow[]);
    this.lastChange = Number(latest);
    this.dataVersion = dataVersion;
    this.hnsw.maybeStart();
  }

  /** The passes of {@link refresh}: a gradual reload when needed, then gradual replays, until nothing new is committed. */
  private async refreshGradually(): Promise<void> {
    const slice = new TimeSlice(this.settings.refreshSliceMs);
    for (let pass = 0; pass < 1000; pass++) {
      if (!this.database.isOpen) return;
      const dataVersion = this.database.readDataVersion();
      if (this.loaded && dataVersion === this.dataVersion) return;
      const { first } = this.database.statements.lastChange.get() as { first: number };
      if (!this.loaded || Number(first) > this.lastChange + 1 || this.compactionDue() || this.vectorsSwitched(this.indexes)) {
        await this.reloadGradually(slice, dataVersion);
      } else await this.replayGradually(slice, dataVersion);
    }
  }

  /**
   * Builds fresh indexes from the database a page of rows at a time and swaps them in. Rows read
   * across commits may hold two versions of a document changed meanwhile; the replay that follows
   * (changes after the one read at the start) replaces such documents wholly.
   */
  private async reloadGradually(slice: TimeSlice, dataVersion: number): Promise<void> {
    const epoch = this.catchUpEpoch;
    const { seq: start } = this.database.statements.lastChange.get() as { seq: number };
    // A switch during the reload changes the generation: the pass after this one rebuilds again.
    const fresh = this.emptyIndexes(this.database.readStoredModel(), this.database.readGeneration());
    let after = -1;
    for (;;) {
      const rows = this.database.statements.chunksAfter.all(after, reloadPageRows) as IndexedChunkRow[];
      if (rows.length === 0) break;
      for (const row of rows) this.addSlot(fresh, row, "fresh");
      after = Number((rows[rows.length - 1] as IndexedChunkRow).id);
      await slice.yieldIfDue();
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return;
    }
    this.catchUpEpoch++;
    this.install(fresh, Number(start), dataVersion);
    // Commits made during the reload: force the replay of everything after `start`.
    this.dataVersion = -1;
  }

  /** Replays the change log since the last catch-up, one document per step (a large one in several, see {@link replaceDocumentGradually}). */
  private async replayGradually(slice: TimeSlice, dataVersion: number): Promise<void> {
    const epoch = this.catchUpEpoch;
    let latest = this.lastChange;
    const changed = new Set<string>();
    for (const row of this.database.statements.changesSince.iterate(this.lastChange) as Iterable<{ seq: number; doc_id: string }>) {
      changed.add(row.doc_id);
      latest = Math.max(latest, Number(row.seq));
    }
    for (const docId of changed) {
      // A statement of its own, read a step at a time: a large document's rows are never all
      // read in one step, and a catch-up meanwhile cannot reset it.
      const rows = this.database
        .select<IndexedChunkRow>(`${documentChunksQuery} WHERE doc_id = $docId ORDER BY chunk_index`, { docId })
        [Symbol.iterator]();
      const first: IndexedChunkRow[] = [];
      while (first.length <= stagedDocumentRows) {
        const next = rows.next();
        if (next.done) break;
        first.push(next.value);
      }
      if (first.length <= stagedDocumentRows) this.replaceDocument(docId, first);
      else if (!(await this.replaceDocumentGradually(docId, chain(first, rows), slice, epoch))) return;
      await slice.yieldIfDue();
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return;
    }
    if (epoch !== this.catchUpEpoch) return;
    this.catchUpEpoch++;
    this.lastChange = latest;
    this.dataVersion = dataVersion;
    this.hnsw.maybeStart();
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

  /**
   * The slots a filtered search may return, or undefined without filters; see
   * {@link SlotTable.mask}.
   */
  private mask(filter: ChunkFilter): SlotMask | undefined {
    return this.indexes.slots.mask(filter, (conditions) => this.database.rowsMatching(conditions));
  }

  /** The chunk records of search results, in order (slots removed meanwhile are skipped). */
  private hydrate(results: IdScore[]): ScoredChunk[] {
    const scored: ScoredChunk[] = [];
    for (const { id: slot, score } of results) {
      const info = this.indexes.slots.info(slot);
      if (!info) continue;
      const row = this.database.statements.chunkById.get(info.rowId) as ChunkRow | undefined;
      if (row) scored.push({ chunk: toChunkRecord(row), score });
    }
    return scored;
  }
}

function sameModel(a: EmbeddingModelInfo, b: EmbeddingModelInfo): boolean {
  return a.id === b.id && a.dimension === b.dimension;
}

/**
 * Fails unless vectors of `model` fit an index holding vectors of `indexModel` (undefined: none)
 * and `holdsChunks`: it holds vectors of `model`, or is empty. An index holding chunks without
 * vectors (ingested before a model was available) takes no vectors until it is reindexed, so that
 * its vector search never covers part of it.
 *
 * @throws {DocqaError} `embedding_model_mismatch` with `details.indexModel` (the index's model,
 *   or `null` for an index without vectors).
 */
function assertModelFits(model: EmbeddingModelInfo, indexModel: EmbeddingModelInfo | undefined, holdsChunks: boolean): void {
  if (indexModel && !sameModel(indexModel, model)) {
    throw new DocqaError(
      "embedding_model_mismatch",
      `this organisation's index holds ${indexModel.dimension}-dimensional vectors of ${indexModel.id}, not of ${model.id} (${model.dimension}): reindex it (docqa reindex) or use the same EMBED_MODEL_NAME`,
      { component: "embedded-store", details: { indexModel: { ...indexModel } } },
    );
  }
  if (!indexModel && holdsChunks) {
    throw new DocqaError(
      "embedding_model_mismatch",
      `this organisation's index holds chunks without vectors (ingested with no embedding model), not vectors of ${model.id}: reindex it (docqa reindex)`,
      { component: "embedded-store", details: { indexModel: null } },
    );
  }
}
