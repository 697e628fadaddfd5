/**
 * One organisation's part of the embedded store: a SQLite database (the durable source of
 * truth, through Node's built-in `node:sqlite`) and in-memory BM25 and vector indexes derived
 * from it.
 *
 * Durability and atomicity: every write is one SQLite transaction in WAL mode with
 * `synchronous=FULL`, so a crash (kill -9, power loss) leaves the last committed state and a
 * document is either wholly old or wholly new. Each transaction also appends the affected
 * document ids to a `changes` log; the in-memory indexes replay that log after their own
 * writes and before every search when another process has committed (`PRAGMA data_version`),
 * so `docqa ingest` and `docqa serve` can share a data directory.
 *
 * This file composes the parts: the database and its statements (`organisation-database.ts`),
 * the slot table and ACL masks (`slot-table.ts`), the background HNSW graph (`hnsw-builder.ts`)
 * and the SQL of metadata filters (`metadata-sql.ts`).
 */
import { canRead } from "../acl/evaluate-access.js";
import { normalizePrincipal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { IdScore } from "../retrieval/top-k.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { type ChunkRecord, type DocumentVersion, documentInfo, indexedText, type ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentPage, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { Bm25Index, type Bm25Parameters, type SlotMask } from "./bm25-index.js";
import { ExactVectorIndex } from "./exact-vector-index.js";
import { HnswBuilder, type VectorIndexSettings } from "./hnsw-builder.js";
import { type ChunkRow, type DocumentRow, type IndexedChunkRow, OrganisationDatabase, toChunkRecord } from "./organisation-database.js";
import { SlotTable } from "./slot-table.js";

export type { VectorIndexSettings } from "./hnsw-builder.js";

const changeLogKeep = 10_000;

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
}

/** The embedded store of one organisation. Synchronous: SQLite calls block briefly. */
export class OrganisationStore {
  private readonly database: OrganisationDatabase;
  private bm25!: Bm25Index;
  private vectors: ExactVectorIndex | undefined;
  private slots = new SlotTable();
  private readonly hnsw: HnswBuilder;
  private lastChange = 0;
  private dataVersion = -1;
  private model: EmbeddingModelInfo | undefined;

  constructor(private readonly settings: OrganisationStoreSettings) {
    this.database = new OrganisationDatabase(settings);
    this.hnsw = new HnswBuilder(settings.vectorIndex, settings.logger, {
      slotCount: () => this.slots.length,
      vectors: () => this.vectors,
      isOpen: () => this.database.isOpen,
    });
    this.model = this.database.readStoredModel();
    this.reload();
  }

  /** The embedding model recorded with this organisation's vectors, if any. */
  get embeddingModel(): EmbeddingModelInfo | undefined {
    return this.model;
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
      this.assertModel(embeddingModel);
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
    this.database.transaction(() => {
      if (hasVectors && embeddingModel) {
        this.model ??= this.database.readStoredModel();
        this.assertModel(embeddingModel);
        if (!this.model) {
          this.database.statements.putInfo.run("embedding_model", embeddingModel.id);
          this.database.statements.putInfo.run("embedding_dimension", String(embeddingModel.dimension));
        }
      }
      for (const docId of deleteDocIds) this.deleteDocument(docId);
      for (const { document, chunks } of rows) {
        this.database.statements.deleteChunks.run(document.docId);
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
          info.ownerId.toLowerCase(),
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
            chunk.ownerId.toLowerCase(),
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
    if (hasVectors && embeddingModel) this.model ??= embeddingModel;
    this.catchUp();
  }

  /** Deletes documents in one transaction; missing ids are ignored. */
  delete(docIds: readonly string[]): void {
    this.database.transaction(() => {
      for (const docId of docIds) this.deleteDocument(docId);
    });
    this.catchUp();
  }

  /** Ids of derived documents recorded as built from any of `sourceDocIds`. */
  derivedDocuments(sourceDocIds: readonly string[]): string[] {
    const derived = new Set<string>();
    for (const source of sourceDocIds) {
      for (const row of this.database.statements.derivedFrom.all(source) as { derived_doc_id: string }[]) derived.add(row.derived_doc_id);
    }
    return [...derived];
  }

  private deleteDocument(docId: string): void {
    this.database.statements.deleteChunks.run(docId);
    this.database.statements.deleteDocument.run(docId);
    this.database.statements.deleteDerivationsOf.run(docId);
    this.database.statements.logChange.run(docId);
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
      parameters.owner = query.ownerId.trim().toLowerCase();
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

  /** Number of chunks stored. */
  count(): number {
    this.refreshIfChanged();
    return this.slots.length - this.slots.dead;
  }

  /** Number of chunks without an embedding (ingested while no model was available). */
  countWithoutEmbedding(): number {
    return Number((this.database.statements.countWithoutEmbedding.get() as { n: number }).n);
  }

  /** BM25 search; see {@link KeywordIndex.searchByText}. */
  searchByText(query: string, topK: number, filter: ChunkFilter): ScoredChunk[] {
    this.refreshIfChanged();
    const terms = this.settings.analyzer.analyze(query);
    if (terms.length === 0) return [];
    return this.hydrate(this.bm25.search(terms, topK, this.mask(filter)));
  }

  /** Exact vector search; see {@link VectorIndex.searchByVector}. */
  searchByVector(vector: Float32Array, model: EmbeddingModelInfo, topK: number, filter: ChunkFilter): ScoredChunk[] {
    this.refreshIfChanged();
    if (!this.model || !this.vectors) return [];
    this.assertModel(model);
    const mask = this.mask(filter);
    const approximate = this.hnsw.search(this.vectors, vector, topK, mask, this.slots.maskAllowed);
    return this.hydrate(approximate ?? this.vectors.search(vector, topK, mask));
  }

  /** Vectors held, and the state of the HNSW graph: `none`, `building` or `ready`. */
  vectorIndexStatus(): { vectors: number; approximate: "none" | "building" | "ready" } {
    this.refreshIfChanged();
    return { vectors: this.vectors?.size ?? 0, approximate: this.hnsw.status };
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
    this.hnsw.discard();
    this.database.close();
  }

  /** Rebuilds the in-memory indexes from the database. */
  private reload(): void {
    this.bm25 = new Bm25Index(this.settings.bm25);
    this.vectors = this.model ? new ExactVectorIndex(this.model.dimension) : undefined;
    this.hnsw.discard();
    this.slots = new SlotTable();
    const last = this.database.statements.lastChange.get() as { seq: number };
    this.lastChange = Number(last.seq);
    for (const row of this.database.statements.allChunks.iterate() as Iterable<IndexedChunkRow>) {
      this.addSlot(row);
    }
    this.dataVersion = this.database.readDataVersion();
    this.hnsw.maybeStart();
  }

  /** Gives a chunk row a slot and adds it to the BM25, vector and HNSW indexes. */
  private addSlot(row: IndexedChunkRow): void {
    const slot = this.slots.add(row);
    this.bm25.add(slot, row.terms === "" ? [] : row.terms.split(" "));
    if (row.embedding && this.model) {
      this.vectors ??= new ExactVectorIndex(this.model.dimension);
      this.vectors.set(
        slot,
        new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength)),
      );
      this.hnsw.added(slot);
    }
  }

  /** Empties the slots of a document and removes them from the indexes. */
  private removeDocumentSlots(docId: string): void {
    for (const slot of this.slots.removeDocument(docId)) {
      this.bm25.remove(slot);
      this.vectors?.remove(slot);
      this.hnsw.removed(slot);
    }
  }

  private refreshIfChanged(): void {
    if (this.database.readDataVersion() === this.dataVersion) return;
    this.model ??= this.database.readStoredModel();
    this.catchUp();
  }

  /** Applies changes committed since the last catch-up, by this or another process. */
  private catchUp(): void {
    const { seq: latest, first } = this.database.statements.lastChange.get() as { seq: number; first: number };
    if (Number(first) > this.lastChange + 1 || this.slots.dead > Math.max(1000, this.slots.length * 0.3)) {
      this.reload();
    } else {
      const changed = new Set<string>();
      for (const row of this.database.statements.changesSince.iterate(this.lastChange) as Iterable<{ seq: number; doc_id: string }>) {
        changed.add(row.doc_id);
      }
      for (const docId of changed) {
        this.removeDocumentSlots(docId);
        for (const row of this.database.statements.chunksOfDocument.iterate(docId) as Iterable<ChunkRow>) this.addSlot(row);
      }
      this.lastChange = Number(latest);
    }
    if (this.lastChange > changeLogKeep * 2) this.trimChangeLog();
    this.dataVersion = this.database.readDataVersion();
    this.hnsw.maybeStart();
  }

  private trimChangeLog(): void {
    const { first } = this.database.statements.lastChange.get() as { first: number };
    if (this.lastChange - Number(first) > changeLogKeep * 2) {
      this.database.statements.trimChanges.run(this.lastChange - changeLogKeep);
    }
  }

  private assertModel(model: EmbeddingModelInfo): void {
    if (this.model && (this.model.id !== model.id || this.model.dimension !== model.dimension)) {
      throw new DocqaError(
        "embedding_model_mismatch",
        `this organisation's index holds ${this.model.dimension}-dimensional vectors of ${this.model.id}, not of ${model.id} (${model.dimension}): re-ingest into a new DATA_DIR or use the same EMBED_MODEL_NAME`,
        { component: "embedded-store" },
      );
    }
  }

  /**
   * The slots a filtered search may return, or undefined without filters; see
   * {@link SlotTable.mask}.
   */
  private mask(filter: ChunkFilter): SlotMask | undefined {
    return this.slots.mask(filter, (conditions) => this.database.rowsMatching(conditions));
  }

  /** The chunk records of search results, in order (slots removed meanwhile are skipped). */
  private hydrate(results: IdScore[]): ScoredChunk[] {
    const scored: ScoredChunk[] = [];
    for (const { id: slot, score } of results) {
      const info = this.slots.info(slot);
      if (!info) continue;
      const row = this.database.statements.chunkById.get(info.rowId) as ChunkRow | undefined;
      if (row) scored.push({ chunk: toChunkRecord(row), score });
    }
    return scored;
  }
}
