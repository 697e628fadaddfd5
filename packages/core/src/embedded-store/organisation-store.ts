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
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { IdScore } from "../retrieval/top-k.js";
import type { ChunkFilter, MetadataCondition } from "../stores/chunk-filter.js";
import { type ChunkRecord, type DocumentVersion, indexedText, type ScoredChunk } from "../stores/chunk-record.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { AccessGroups } from "./access-groups.js";
import { Bm25Index, type Bm25Parameters, type SlotMask } from "./bm25-index.js";
import { ExactVectorIndex } from "./exact-vector-index.js";
import { type HnswSettings, HnswVectorIndex, isHnswAvailable } from "./hnsw-vector-index.js";

const schemaVersion = "1";
const changeLogKeep = 10_000;

const schema = `
CREATE TABLE IF NOT EXISTS store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY,
  content_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  chunk_id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  title TEXT NOT NULL,
  source TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  acl TEXT NOT NULL,
  metadata TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  terms TEXT NOT NULL,
  embedding BLOB
) STRICT;
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS derivations (
  source_doc_id TEXT NOT NULL,
  derived_doc_id TEXT NOT NULL,
  PRIMARY KEY (source_doc_id, derived_doc_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS derivations_by_derived ON derivations(derived_doc_id);
`;

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

/** When the embedded store adds an HNSW graph beside its exact vector index (`VECTOR_INDEX`). */
export interface VectorIndexSettings {
  /** `auto` (default): from `minVectors` vectors on; `exact`: never; `hnsw`: always. */
  mode: "auto" | "exact" | "hnsw";
  /** `HNSW_MIN_VECTORS`, default 20000. */
  minVectors: number;
  hnsw: HnswSettings;
}

/** Share of allowed vectors below which a filtered search scans exactly instead of using HNSW. */
const hnswMinimumSelectivity = 0.05;
/**
 * Slots added to the HNSW graph per step of a background build; the event loop runs between
 * steps, so a step (about 0.2 s on one core) bounds the pause a request can see during a build.
 */
const hnswBuildBatch = 200;

interface SlotInfo {
  rowId: number;
  docId: string;
  accessGroup: number;
}

interface ChunkRow {
  id: number;
  chunk_id: string;
  doc_id: string;
  chunk_index: number;
  text: string;
  title: string;
  source: string;
  owner_id: string;
  acl: string;
  metadata: string;
  content_hash: string;
  terms: string;
  embedding: Uint8Array | null;
}

/** The embedded store of one organisation. Synchronous: SQLite calls block briefly. */
export class OrganisationStore {
  private readonly database: DatabaseSync;
  private readonly statements: ReturnType<OrganisationStore["prepare"]>;
  private bm25!: Bm25Index;
  private vectors: ExactVectorIndex | undefined;
  private accessGroups!: AccessGroups;
  private slots: (SlotInfo | undefined)[] = [];
  /** Access group of each slot (-1 for a removed slot), for building masks in one typed loop. */
  private slotGroups = new Int32Array(1024);
  private cachedMask: { key: string; mask: SlotMask; allowed: number } | undefined;
  /** The HNSW graph being built or built; `hnswReady` once it covers every slot. */
  private hnsw: HnswVectorIndex | undefined;
  private hnswReady = false;
  /** Slots below this have been offered to the graph. */
  private hnswPosition = 0;
  /** Incremented on every rebuild, so a stale background build stops. */
  private hnswGeneration = 0;
  private documentSlots = new Map<string, number[]>();
  private deadSlots = 0;
  private lastChange = 0;
  private dataVersion = -1;
  private model: EmbeddingModelInfo | undefined;

  constructor(private readonly settings: OrganisationStoreSettings) {
    mkdirSync(dirname(settings.path), { recursive: true });
    try {
      this.database = new DatabaseSync(settings.path);
      this.database.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;");
      this.database.exec(schema);
    } catch (error) {
      throw new DocqaError("store_corrupt", `cannot open ${settings.path}: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
    this.statements = this.prepare();
    this.checkStoreInfo();
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
    this.transaction(() => {
      if (hasVectors && embeddingModel) {
        this.model ??= this.readStoredModel();
        this.assertModel(embeddingModel);
        if (!this.model) {
          this.statements.putInfo.run("embedding_model", embeddingModel.id);
          this.statements.putInfo.run("embedding_dimension", String(embeddingModel.dimension));
        }
      }
      for (const docId of deleteDocIds) this.deleteDocument(docId);
      for (const { document, chunks } of rows) {
        this.statements.deleteChunks.run(document.docId);
        this.statements.deleteDerivationsOf.run(document.docId);
        for (const source of document.derivedFrom ?? []) this.statements.putDerivation.run(source, document.docId);
        this.statements.putDocument.run(document.docId, document.contentHash, now);
        for (const { chunk, terms, embedding } of chunks) {
          this.statements.insertChunk.run(
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
        this.statements.logChange.run(document.docId);
      }
    });
    if (hasVectors && embeddingModel) this.model ??= embeddingModel;
    this.catchUp();
  }

  /** Deletes documents in one transaction; missing ids are ignored. */
  delete(docIds: readonly string[]): void {
    this.transaction(() => {
      for (const docId of docIds) this.deleteDocument(docId);
    });
    this.catchUp();
  }

  /** Ids of derived documents recorded as built from any of `sourceDocIds`. */
  derivedDocuments(sourceDocIds: readonly string[]): string[] {
    const derived = new Set<string>();
    for (const source of sourceDocIds) {
      for (const row of this.statements.derivedFrom.all(source) as { derived_doc_id: string }[]) derived.add(row.derived_doc_id);
    }
    return [...derived];
  }

  private deleteDocument(docId: string): void {
    this.statements.deleteChunks.run(docId);
    this.statements.deleteDocument.run(docId);
    this.statements.deleteDerivationsOf.run(docId);
    this.statements.logChange.run(docId);
  }

  /** Stored content hashes of the given documents that exist. */
  contentHashes(docIds: readonly string[]): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const docId of docIds) {
      const row = this.statements.getDocument.get(docId) as { content_hash: string } | undefined;
      if (row) hashes.set(docId, row.content_hash);
    }
    return hashes;
  }

  /** Number of chunks stored. */
  count(): number {
    this.refreshIfChanged();
    return this.slots.length - this.deadSlots;
  }

  /** Number of chunks without an embedding (ingested while no model was available). */
  countWithoutEmbedding(): number {
    return Number((this.statements.countWithoutEmbedding.get() as { n: number }).n);
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
    const approximate = this.searchApproximately(vector, topK, mask);
    return this.hydrate(approximate ?? this.vectors.search(vector, topK, mask));
  }

  /** Vectors held, and the state of the HNSW graph: `none`, `building` or `ready`. */
  vectorIndexStatus(): { vectors: number; approximate: "none" | "building" | "ready" } {
    this.refreshIfChanged();
    return { vectors: this.vectors?.size ?? 0, approximate: this.hnswReady ? "ready" : this.hnsw ? "building" : "none" };
  }

  /**
   * HNSW search with over-fetching for filters: `k' = max(4k, 64, 2k / selectivity)` candidates,
   * filtered by the mask. Returns undefined (use the exact scan) when the graph is not ready, the
   * filter allows under 5 % of the vectors (an exact scan of so few is as fast and exact), or too
   * few candidates pass the filter.
   */
  private searchApproximately(vector: Float32Array, topK: number, mask: SlotMask | undefined): IdScore[] | undefined {
    const vectors = this.vectors as ExactVectorIndex;
    if (!this.hnswReady || !this.hnsw || vectors.size === 0) return undefined;
    const allowed = mask ? (this.cachedMask?.allowed ?? vectors.size) : vectors.size;
    const selectivity = Math.min(1, allowed / vectors.size);
    if (selectivity < hnswMinimumSelectivity) return undefined;
    const depth = Math.min(vectors.size, Math.max(4 * topK, 64, Math.ceil((2 * topK) / selectivity)));
    let norm = 0;
    for (const value of vector) norm += value * value;
    const unit = vector.map((value) => value / Math.sqrt(norm || 1));
    const results = this.hnsw.search(unit, depth).filter((result) => vectors.has(result.id) && (!mask || mask[result.id] === 1));
    return results.length >= Math.min(topK, allowed) ? results.slice(0, topK) : undefined;
  }

  /** Starts building the HNSW graph in the background when the settings ask for one. */
  private maybeStartHnsw(): void {
    const settings = this.settings.vectorIndex;
    const vectors = this.vectors;
    if (this.hnsw || !vectors || settings.mode === "exact" || !isHnswAvailable()) return;
    if (settings.mode === "auto" && vectors.size < settings.minVectors) return;
    const generation = ++this.hnswGeneration;
    const graph = new HnswVectorIndex(vectors.dimension, settings.hnsw);
    this.hnsw = graph;
    this.hnswPosition = 0;
    const step = () => {
      if (generation !== this.hnswGeneration || !this.database.isOpen) return;
      const end = Math.min(this.slots.length, this.hnswPosition + hnswBuildBatch);
      const slots: number[] = [];
      const rows: Float32Array[] = [];
      for (let slot = this.hnswPosition; slot < end; slot++) {
        const row = this.vectors?.vectorAt(slot);
        if (row) {
          slots.push(slot);
          rows.push(row);
        }
      }
      const block = new Float32Array(rows.length * graph.dimension);
      rows.forEach((row, index) => {
        block.set(row, index * graph.dimension);
      });
      graph.add(slots, block);
      this.hnswPosition = end;
      if (this.hnswPosition >= this.slots.length) {
        this.hnswReady = true;
        this.settings.logger.info("HNSW vector index ready", { component: "embedded-store", vectors: graph.size });
        return;
      }
      setImmediate(step);
    };
    setImmediate(step);
  }

  private discardHnsw(): void {
    this.hnswGeneration++;
    this.hnsw = undefined;
    this.hnswReady = false;
    this.hnswPosition = 0;
  }

  /** Closes the database. */
  close(): void {
    this.discardHnsw();
    if (this.database.isOpen) this.database.close();
  }

  private prepare() {
    const database = this.database;
    return {
      getInfo: database.prepare("SELECT value FROM store_info WHERE key = ?"),
      putInfo: database.prepare("INSERT INTO store_info (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
      getDocument: database.prepare("SELECT content_hash FROM documents WHERE doc_id = ?"),
      putDocument: database.prepare(
        "INSERT INTO documents (doc_id, content_hash, updated_at) VALUES (?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET content_hash = excluded.content_hash, updated_at = excluded.updated_at",
      ),
      deleteDocument: database.prepare("DELETE FROM documents WHERE doc_id = ?"),
      deleteChunks: database.prepare("DELETE FROM chunks WHERE doc_id = ?"),
      insertChunk: database.prepare(
        "INSERT INTO chunks (chunk_id, doc_id, chunk_index, text, title, source, owner_id, acl, metadata, content_hash, terms, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      chunksOfDocument: database.prepare(
        "SELECT id, doc_id, owner_id, acl, terms, embedding FROM chunks WHERE doc_id = ? ORDER BY chunk_index",
      ),
      allChunks: database.prepare("SELECT id, doc_id, owner_id, acl, terms, embedding FROM chunks ORDER BY id"),
      chunkById: database.prepare(
        "SELECT id, chunk_id, doc_id, chunk_index, text, title, source, owner_id, acl, metadata, content_hash FROM chunks WHERE id = ?",
      ),
      logChange: database.prepare("INSERT INTO changes (doc_id) VALUES (?)"),
      putDerivation: database.prepare("INSERT OR IGNORE INTO derivations (source_doc_id, derived_doc_id) VALUES (?, ?)"),
      deleteDerivationsOf: database.prepare("DELETE FROM derivations WHERE derived_doc_id = ?"),
      derivedFrom: database.prepare("SELECT derived_doc_id FROM derivations WHERE source_doc_id = ?"),
      changesSince: database.prepare("SELECT seq, doc_id FROM changes WHERE seq > ? ORDER BY seq"),
      lastChange: database.prepare("SELECT COALESCE(MAX(seq), 0) AS seq, COALESCE(MIN(seq), 0) AS first FROM changes"),
      trimChanges: database.prepare("DELETE FROM changes WHERE seq <= ?"),
      dataVersion: database.prepare("PRAGMA data_version"),
      countWithoutEmbedding: database.prepare("SELECT COUNT(*) AS n FROM chunks WHERE embedding IS NULL"),
    } satisfies Record<string, StatementSync>;
  }

  private checkStoreInfo(): void {
    const read = (key: string) => (this.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    const storedOrg = read("org_id");
    if (storedOrg !== undefined && storedOrg !== this.settings.orgId) {
      throw new DocqaError(
        "store_corrupt",
        `${this.settings.path} belongs to organisation ${JSON.stringify(storedOrg)}, not ${JSON.stringify(this.settings.orgId)}`,
        { component: "embedded-store" },
      );
    }
    const storedSchema = read("schema_version");
    if (storedSchema !== undefined && storedSchema !== schemaVersion) {
      throw new DocqaError("store_corrupt", `${this.settings.path} has schema version ${storedSchema}; this docqa reads ${schemaVersion}`, {
        component: "embedded-store",
      });
    }
    const storedAnalyzer = read("analyzer");
    this.transaction(() => {
      if (storedOrg === undefined) this.statements.putInfo.run("org_id", this.settings.orgId);
      if (storedSchema === undefined) this.statements.putInfo.run("schema_version", schemaVersion);
      if (storedAnalyzer !== undefined && storedAnalyzer !== this.settings.analyzer.name) this.reanalyzeAll();
      if (storedAnalyzer !== this.settings.analyzer.name) this.statements.putInfo.run("analyzer", this.settings.analyzer.name);
    });
    this.model = this.readStoredModel();
  }

  private readStoredModel(): EmbeddingModelInfo | undefined {
    const read = (key: string) => (this.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    const id = read("embedding_model");
    const dimension = read("embedding_dimension");
    return id !== undefined && dimension !== undefined ? { id, dimension: Number(dimension) } : undefined;
  }

  /** Re-analyses every chunk when the analyzer changed since the file was written. */
  private reanalyzeAll(): void {
    this.settings.logger.warn("analyzer changed: re-analysing every chunk", { path: this.settings.path });
    const update = this.database.prepare("UPDATE chunks SET terms = ? WHERE id = ?");
    for (const row of this.database.prepare("SELECT id, title, text FROM chunks").iterate() as Iterable<{
      id: number;
      title: string;
      text: string;
    }>) {
      update.run(this.settings.analyzer.analyze(indexedText(row)).join(" "), row.id);
    }
  }

  private transaction(work: () => void): void {
    try {
      this.database.exec("BEGIN IMMEDIATE");
    } catch (error) {
      throw new DocqaError("store_unavailable", `cannot start a write on ${this.settings.path}: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
    try {
      work();
      this.database.exec("COMMIT");
    } catch (error) {
      if (this.database.isTransaction) this.database.exec("ROLLBACK");
      if (DocqaError.isInstance(error)) throw error;
      throw new DocqaError("store_unavailable", `write to ${this.settings.path} failed and was rolled back: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
  }

  /** Rebuilds the in-memory indexes from the database. */
  private reload(): void {
    this.bm25 = new Bm25Index(this.settings.bm25);
    this.vectors = this.model ? new ExactVectorIndex(this.model.dimension) : undefined;
    this.accessGroups = new AccessGroups();
    this.discardHnsw();
    this.slots = [];
    this.slotGroups = new Int32Array(1024);
    this.cachedMask = undefined;
    this.documentSlots = new Map();
    this.deadSlots = 0;
    const last = this.statements.lastChange.get() as { seq: number };
    this.lastChange = Number(last.seq);
    for (const row of this.statements.allChunks.iterate() as Iterable<
      Pick<ChunkRow, "id" | "doc_id" | "owner_id" | "acl" | "terms" | "embedding">
    >) {
      this.addSlot(row);
    }
    this.dataVersion = this.readDataVersion();
    this.maybeStartHnsw();
  }

  private addSlot(row: Pick<ChunkRow, "id" | "doc_id" | "owner_id" | "acl" | "terms" | "embedding">): void {
    const slot = this.slots.length;
    const accessGroup = this.accessGroups.intern(row.owner_id, row.acl);
    this.slots.push({ rowId: row.id, docId: row.doc_id, accessGroup });
    if (slot >= this.slotGroups.length) {
      const grown = new Int32Array(Math.max(slot + 1, this.slotGroups.length * 2));
      grown.set(this.slotGroups);
      this.slotGroups = grown;
    }
    this.slotGroups[slot] = accessGroup;
    this.cachedMask = undefined;
    let list = this.documentSlots.get(row.doc_id);
    if (!list) this.documentSlots.set(row.doc_id, (list = []));
    list.push(slot);
    this.bm25.add(slot, row.terms === "" ? [] : row.terms.split(" "));
    if (row.embedding && this.model) {
      this.vectors ??= new ExactVectorIndex(this.model.dimension);
      this.vectors.set(
        slot,
        new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength)),
      );
      // A graph that has reached this slot's position adds it directly; a build in progress will.
      if (this.hnsw && slot < this.hnswPosition) this.hnsw.add([slot], this.vectors.vectorAt(slot) as Float32Array);
      else if (this.hnswReady && this.hnsw) {
        this.hnsw.add([slot], this.vectors.vectorAt(slot) as Float32Array);
        this.hnswPosition = slot + 1;
      }
    }
  }

  private removeDocumentSlots(docId: string): void {
    for (const slot of this.documentSlots.get(docId) ?? []) {
      this.bm25.remove(slot);
      this.vectors?.remove(slot);
      if (this.hnsw && slot < this.hnswPosition) this.hnsw.remove(slot);
      this.slots[slot] = undefined;
      this.slotGroups[slot] = -1;
      this.cachedMask = undefined;
      this.deadSlots++;
    }
    this.documentSlots.delete(docId);
  }

  private readDataVersion(): number {
    return Number((this.statements.dataVersion.get() as { data_version: number }).data_version);
  }

  private refreshIfChanged(): void {
    if (this.readDataVersion() === this.dataVersion) return;
    this.model ??= this.readStoredModel();
    this.catchUp();
  }

  /** Applies changes committed since the last catch-up, by this or another process. */
  private catchUp(): void {
    const { seq: latest, first } = this.statements.lastChange.get() as { seq: number; first: number };
    if (Number(first) > this.lastChange + 1 || this.deadSlots > Math.max(1000, this.slots.length * 0.3)) {
      this.reload();
    } else {
      const changed = new Set<string>();
      for (const row of this.statements.changesSince.iterate(this.lastChange) as Iterable<{ seq: number; doc_id: string }>) {
        changed.add(row.doc_id);
      }
      for (const docId of changed) {
        this.removeDocumentSlots(docId);
        for (const row of this.statements.chunksOfDocument.iterate(docId) as Iterable<ChunkRow>) this.addSlot(row);
      }
      this.lastChange = Number(latest);
    }
    if (this.lastChange > changeLogKeep * 2) this.trimChangeLog();
    this.dataVersion = this.readDataVersion();
    this.maybeStartHnsw();
  }

  private trimChangeLog(): void {
    const { first } = this.statements.lastChange.get() as { first: number };
    if (this.lastChange - Number(first) > changeLogKeep * 2) {
      this.statements.trimChanges.run(this.lastChange - changeLogKeep);
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
   * The slots a filtered search may return, one byte per slot, or undefined without filters.
   * Access is decided once per distinct (owner, ACL) pair; the mask of the latest filter is kept
   * until the slots change, so the BM25 and vector searches of one query build it once.
   */
  private mask(filter: ChunkFilter): SlotMask | undefined {
    const conditions = filter.metadata ?? [];
    if (!filter.principal && !filter.docIds && conditions.length === 0) return undefined;
    const principal = filter.principal as Principal | undefined;
    const key = JSON.stringify([principal?.userName, principal?.roles, principal?.groups, filter.docIds, conditions]);
    if (this.cachedMask?.key === key) return this.cachedMask.mask;
    const count = this.slots.length;
    const mask = new Uint8Array(count);
    if (filter.docIds) {
      for (const docId of filter.docIds) for (const slot of this.documentSlots.get(docId) ?? []) mask[slot] = 1;
    } else {
      mask.fill(1);
    }
    if (principal) {
      const allowed = this.accessGroups.allowedFor(principal);
      const groups = this.slotGroups;
      for (let slot = 0; slot < count; slot++) {
        const group = groups[slot] as number;
        if (mask[slot] === 1 && (group < 0 || allowed[group] !== 1)) mask[slot] = 0;
      }
    }
    if (conditions.length > 0) {
      const rowIds = this.rowsMatching(conditions);
      for (let slot = 0; slot < count; slot++) {
        if (mask[slot] === 1 && !rowIds.has((this.slots[slot] as SlotInfo).rowId)) mask[slot] = 0;
      }
    }
    let allowed = 0;
    for (let slot = 0; slot < count; slot++) allowed += mask[slot] as number;
    this.cachedMask = { key, mask, allowed };
    return mask;
  }

  /**
   * Row ids whose metadata satisfies every condition, evaluated by SQLite's JSON functions with
   * a type check, so values compare only with values of the same type (see `MetadataCondition`).
   */
  private rowsMatching(conditions: readonly MetadataCondition[]): Set<number> {
    const clauses: string[] = [];
    const parameters: (string | number)[] = [];
    const typed = (path: string, value: string | number | boolean, operator: "=" | ">=" | "<=") => {
      parameters.push(path, path, sqlValue(value));
      return `(json_type(metadata, ?) IN (${sqlTypes(value)}) AND json_extract(metadata, ?) ${operator} ?)`;
    };
    for (const condition of conditions) {
      const path = `$."${condition.key.replaceAll('"', "")}"`;
      switch (condition.op) {
        case "eq":
          clauses.push(typed(path, condition.value, "="));
          break;
        case "in":
          clauses.push(`(${condition.values.map((value) => typed(path, value, "=")).join(" OR ") || "0"})`);
          break;
        case "gte":
          clauses.push(typed(path, condition.value, ">="));
          break;
        case "lte":
          clauses.push(typed(path, condition.value, "<="));
          break;
      }
    }
    const statement = this.database.prepare(`SELECT id FROM chunks WHERE ${clauses.join(" AND ")}`);
    return new Set((statement.all(...parameters) as { id: number }[]).map((row) => row.id));
  }

  private hydrate(results: IdScore[]): ScoredChunk[] {
    const scored: ScoredChunk[] = [];
    for (const { id: slot, score } of results) {
      const info = this.slots[slot];
      if (!info) continue;
      const row = this.statements.chunkById.get(info.rowId) as ChunkRow | undefined;
      if (row) scored.push({ chunk: toChunkRecord(row), score });
    }
    return scored;
  }
}

/** The `json_type` names of a value's type, as an SQL list. */
function sqlTypes(value: string | number | boolean): string {
  if (typeof value === "string") return "'text'";
  if (typeof value === "number") return "'integer', 'real'";
  return "'true', 'false'";
}

function sqlValue(value: string | number | boolean): string | number {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}

function toChunkRecord(row: Omit<ChunkRow, "terms" | "embedding">): ChunkRecord {
  return {
    id: row.chunk_id,
    docId: row.doc_id,
    chunkIndex: Number(row.chunk_index),
    text: row.text,
    title: row.title,
    source: row.source,
    ownerId: row.owner_id,
    acl: row.acl,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    contentHash: row.content_hash,
  };
}
