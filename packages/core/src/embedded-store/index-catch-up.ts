/**
 * The in-memory BM25 and vector indexes of one organisation of the embedded store, and their
 * catch-up with the SQLite file they are derived from.
 *
 * Every write appends the affected document ids to the `changes` log. A catch-up replays that
 * log, one document at a time (a large one staged in steps, then revealed at once, so searches
 * see each document wholly old or wholly new), or rebuilds the indexes a page of rows at a time
 * and swaps them in when complete: on the first load, when the log was trimmed past the
 * indexes, when too many slots are dead, or when another connection switched the vectors (a
 * reindex). The catch-up is one sequence of steps ({@link IndexCatchUp.passes}) run two ways:
 * in time slices by {@link IndexCatchUp.refresh} (writes committed elsewhere: an ingestion
 * worker thread, another process), and in one slice without limit right after this
 * connection's own writes and before the first search ({@link IndexCatchUp.catchUpNow}).
 *
 * The first load takes the BM25 postings from their snapshot when one matches the database
 * (`bm25-snapshot.ts`): the rows are then read without their terms, and only rows the snapshot
 * lacks or of documents changed since it was saved are analysed again; the replay that follows
 * brings the indexes to the latest change, as after a rebuild.
 */
import type { Logger } from "../logging/logger.js";
import { type EmbeddingModelInfo, sameModel } from "../stores/vector-index.js";
import { Bm25Index, type Bm25Parameters } from "./bm25-index.js";
import { type Bm25Snapshot, type Bm25SnapshotCoverage, Bm25SnapshotFiles } from "./bm25-snapshot.js";
import { Bm25SnapshotKeeper } from "./bm25-snapshot-keeper.js";
import { ExactVectorIndex } from "./exact-vector-index.js";
import { HnswBuilder, type VectorIndexSettings } from "./hnsw-builder.js";
import { type HnswSnapshotCoverage, HnswSnapshotFiles } from "./hnsw-snapshot.js";
import type { IndexedChunkRow, OrganisationDatabase } from "./organisation-database.js";
import { SlotTable } from "./slot-table.js";
import { runInSlices, runToEnd, TimeSlice } from "./time-slice.js";

/** Chunk rows read per step of a reload. */
const reloadPageRows = 256;
/** Documents with more chunks than this are staged in steps during a replay, then revealed at once. */
const stagedDocumentRows = 64;
/** Slots staged between two steps. */
const stagingStep = 32;
/** Passes of one catch-up at most (each replays what was committed during the one before). */
const maximumPasses = 1000;
/** The columns the in-memory indexes are built from. */
const documentChunksQuery = "SELECT id, doc_id, owner_id, acl, terms, embedding FROM chunks";

/** The in-memory indexes of an organisation, swapped as a whole by a reload. */
export interface MemoryIndexes {
  slots: SlotTable;
  bm25: Bm25Index;
  vectors: ExactVectorIndex | undefined;
  /** The model of the vectors held (undefined until one is stored). */
  model: EmbeddingModelInfo | undefined;
  /** The vectors' generation (`vectors_generation`, incremented by each reindex switch) they were built from. */
  generation: number;
}

/** Settings of an {@link IndexCatchUp}. */
export interface IndexCatchUpSettings {
  bm25: Bm25Parameters;
  /** Approximate vector index: mode and parameters; see {@link VectorIndexSettings}. */
  vectorIndex: VectorIndexSettings;
  logger: Logger;
  /** False for a store without in-memory indexes (ingestion workers): nothing is built, searches throw. */
  inMemoryIndexes: boolean;
  /** Milliseconds of work between yields in {@link IndexCatchUp.refresh}; default 5 (see {@link TimeSlice}). */
  refreshSliceMs?: number | undefined;
  /** The organisation. */
  orgId: string;
  /**
   * The SQLite file; the HNSW graph and the BM25 postings are saved beside it (`hnsw-snapshot.ts`,
   * `bm25-snapshot.ts`). Undefined: neither is saved.
   */
  path?: string | undefined;
  /** The name of the analyzer the stored terms were made with (`Analyzer.name`); the BM25 postings are saved only with it. */
  analyzerName?: string | undefined;
  /** Live chunks from which the BM25 postings are saved; default 20,000 (`defaultBm25SnapshotMinimumChunks`). */
  bm25SnapshotMinimumChunks?: number | undefined;
}

/** The rows of `first`, then the rest of `rest`; stopping early also stops `rest` (ending its read). */
function* chain<T>(first: readonly T[], rest: Iterator<T>): Generator<T> {
  try {
    yield* first;
    for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
  } finally {
    rest.return?.();
  }
}

/** The in-memory indexes of one organisation, kept up to date with its database. */
export class IndexCatchUp {
  /** The HNSW graph built beside the exact vector index. */
  readonly hnsw: HnswBuilder;
  private indexes: MemoryIndexes;
  /** Whether {@link indexes} hold the database as of {@link lastChange} (false until the first load). */
  private loaded = false;
  private lastChange = 0;
  private dataVersion = -1;
  /**
   * Incremented at the start of every pass of a catch-up, so that a pass suspended between two
   * slices stops when another one ran meanwhile. Not the vectors' generation (a reindex switch),
   * which {@link MemoryIndexes.generation} follows.
   */
  private catchUpEpoch = 0;
  private refreshing: Promise<void> | undefined;
  /** Saves and loads of the BM25 postings; undefined when they are never saved. */
  private readonly bm25Snapshots: Bm25SnapshotKeeper | undefined;
  /** Saved BM25 postings read for the first load, until it used them (or found them unusable). */
  private savedBm25: Bm25Snapshot | undefined;
  /** Whether the saved BM25 postings were looked for (once, before the first load). */
  private savedBm25Read = false;

  constructor(
    private readonly database: OrganisationDatabase,
    private readonly settings: IndexCatchUpSettings,
  ) {
    this.indexes = this.emptyIndexes(database.readStoredModel(), database.readGeneration());
    this.hnsw = new HnswBuilder(
      settings.vectorIndex,
      settings.logger,
      {
        slotCount: () => this.indexes.slots.length,
        vectors: () => this.indexes.vectors,
        rowIdAt: (slot) => this.indexes.slots.info(slot)?.rowId,
        documentAt: (slot) => this.indexes.slots.info(slot)?.docId,
        isOpen: () => database.isOpen,
        coverage: () => this.coverage(),
        changedSince: (change) => this.changedSince(change),
      },
      settings.path !== undefined && settings.inMemoryIndexes ? new HnswSnapshotFiles(settings.path) : undefined,
    );
    this.bm25Snapshots =
      settings.path !== undefined && settings.inMemoryIndexes && settings.analyzerName !== undefined
        ? new Bm25SnapshotKeeper(
            new Bm25SnapshotFiles(settings.path),
            settings.logger,
            settings.refreshSliceMs,
            settings.bm25SnapshotMinimumChunks,
          )
        : undefined;
  }

  /** A save of the BM25 postings in progress, if any (never rejects). */
  get pendingBm25Save(): Promise<void> | undefined {
    return this.bm25Snapshots?.pendingSave;
  }

  /**
   * The indexes searches read, loaded first if needed (in one slice).
   *
   * @throws {TypeError} for a store without in-memory indexes.
   */
  readable(): MemoryIndexes {
    if (!this.settings.inMemoryIndexes) {
      throw new TypeError("this embedded store was opened without in-memory indexes (inMemoryIndexes: false) and cannot search");
    }
    if (!this.loaded) this.catchUpNow();
    return this.indexes;
  }

  /**
   * Brings the indexes up to date with writes committed by other connections, in time slices
   * yielding the event loop every few milliseconds. Concurrent calls share one catch-up. Resolves
   * at once when nothing changed (and for a store without in-memory indexes).
   */
  refresh(): Promise<void> {
    if (!this.settings.inMemoryIndexes || !this.database.isOpen) return Promise.resolve();
    if (this.loaded && this.refreshing === undefined && this.database.readDataVersion() === this.dataVersion) return Promise.resolve();
    this.refreshing ??= this.readSavedBm25()
      .then(() => runInSlices(this.passes(false), new TimeSlice(this.settings.refreshSliceMs)))
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Before the first load: reads the saved BM25 postings, when they match this database (asynchronously). */
  private async readSavedBm25(): Promise<void> {
    if (this.loaded || this.savedBm25Read || !this.bm25Snapshots || this.settings.analyzerName === undefined) return;
    this.savedBm25Read = true;
    const storeId = this.database.readStoreId();
    if (!storeId) return;
    const saved = await this.bm25Snapshots.read({ storeId, orgId: this.settings.orgId, analyzer: this.settings.analyzerName });
    // A search meanwhile may have loaded the indexes at once (`catchUpNow`): then nothing is kept.
    if (!this.loaded) this.savedBm25 = saved;
  }

  /**
   * Applies every change committed since the last catch-up, by this or another connection, at
   * once: the catch-up's steps in a slice without limit. A catch-up suspended in {@link refresh}
   * stops, and goes on from the state this one leaves.
   */
  catchUpNow(): void {
    runToEnd(this.passes(true));
  }

  /** After a write of this connection: applies it, unless the indexes were never loaded (the first search loads them). */
  afterWrite(): void {
    if (this.settings.inMemoryIndexes && this.loaded) this.catchUpNow();
  }

  /**
   * After a write of this connection deleted or replaced rows: removes the saved BM25 postings,
   * which may hold their terms (issue 27), also for a connection without in-memory indexes (an
   * ingestion worker), so that no file keeps them until the serving connection applies the write.
   */
  rowsDeleted(): void {
    if (this.bm25Snapshots) this.bm25Snapshots.changesApplied(true);
    else if (this.settings.path !== undefined) new Bm25SnapshotFiles(this.settings.path).remove();
  }

  /** Makes the next {@link refresh} run a catch-up (this connection's own commits do not change its `data_version`). */
  forceRefresh(): void {
    this.dataVersion = -1;
  }

  /**
   * Stops the HNSW graph's build, and saves BM25 postings and a ready graph that changed since
   * they were last saved, unless a save of them is in progress (blocking: about 0.1 s per 100,000
   * vectors, and 3 to 5 s of copying per million chunks' postings, plus writing and syncing the
   * files); the indexes are not searched any more. Call it before closing the database.
   */
  close(): void {
    if (this.database.isOpen) {
      this.bm25Snapshots?.saveNow(this.bm25Source(), this.bm25Coverage());
      this.hnsw.saveAndDiscard();
    } else this.hnsw.discard();
  }

  /** What a save of the BM25 postings copies: the searched indexes of now (a reload may replace them meanwhile). */
  private bm25Source(): { bm25: Bm25Index; rowIdAt(slot: number): number | undefined } {
    const { bm25, slots } = this.indexes;
    return { bm25, rowIdAt: (slot) => slots.info(slot)?.rowId };
  }

  /** What the BM25 postings hold now, as their snapshot records it; undefined before the first load or without a file identity. */
  private bm25Coverage(): Bm25SnapshotCoverage | undefined {
    const storeId = this.database.isOpen ? this.database.readStoreId() : undefined;
    if (!storeId || !this.loaded || this.settings.analyzerName === undefined) return undefined;
    return { storeId, orgId: this.settings.orgId, analyzer: this.settings.analyzerName, change: this.lastChange };
  }

  /** What the indexes hold now, as a saved HNSW graph of them records it; undefined when they hold no vectors or the file has no identity. */
  private coverage(): HnswSnapshotCoverage | undefined {
    const model = this.indexes.model;
    const storeId = this.database.isOpen ? this.database.readStoreId() : undefined;
    if (!model || !storeId || !this.loaded) return undefined;
    return {
      storeId,
      orgId: this.settings.orgId,
      generation: this.indexes.generation,
      modelId: model.id,
      dimension: model.dimension,
      connectivity: this.settings.vectorIndex.hnsw.connectivity,
      change: this.lastChange,
    };
  }

  /**
   * Documents changed after `change` or after the indexes' last change, whichever is earlier;
   * undefined when the change log was trimmed past `change`, or never reached it (a snapshot of
   * another history).
   */
  private changedSince(change: number): Set<string> | undefined {
    return this.documentsChangedAfter(change, Math.min(change, this.lastChange));
  }

  /**
   * Documents of the change log's entries after `from`; undefined when the log was trimmed past
   * `change`, or never reached it (a snapshot of another history).
   */
  private documentsChangedAfter(change: number, from = change): Set<string> | undefined {
    if (!this.database.isOpen) return undefined;
    const { seq, first } = this.database.statements.lastChange.get() as { seq: number; first: number };
    if (change > Number(seq) || (Number(seq) > change && Number(first) > change + 1)) return undefined;
    const changed = new Set<string>();
    for (const row of this.database.statements.changesSince.iterate(from) as Iterable<{ doc_id: string }>) changed.add(row.doc_id);
    return changed;
  }

  /**
   * The passes of a catch-up, yielding between units of work: a reload when needed, then
   * replays, until nothing new is committed. `force` runs the first pass even when
   * `data_version` is unchanged.
   */
  private *passes(force: boolean): Generator<void, void, void> {
    for (let pass = 0; pass < maximumPasses; pass++) {
      if (!this.database.isOpen) return;
      const dataVersion = this.database.readDataVersion();
      if (!(force && pass === 0) && this.loaded && dataVersion === this.dataVersion) return;
      const epoch = ++this.catchUpEpoch;
      const { first } = this.database.statements.lastChange.get() as { first: number };
      if (!this.loaded || Number(first) > this.lastChange + 1 || this.compactionDue() || this.vectorsSwitched(this.indexes)) {
        yield* this.reload(epoch, dataVersion);
      } else yield* this.replay(epoch, dataVersion);
    }
  }

  /**
   * Builds fresh indexes from the database a page of rows at a time and swaps them in. Rows read
   * across commits may hold two versions of a document changed meanwhile; the replay that follows
   * (changes after the one read at the start) replaces such documents wholly.
   */
  private *reload(epoch: number, dataVersion: number): Generator<void, void, void> {
    const { seq: start } = this.database.statements.lastChange.get() as { seq: number };
    const saved = this.loaded ? undefined : this.savedBm25;
    const changed = saved ? this.documentsChangedAfter(saved.coverage.change) : undefined;
    if (saved && changed) {
      const fresh = this.emptyIndexes(this.database.readStoredModel(), this.database.readGeneration());
      const outcome = yield* this.reloadWithSavedPostings(fresh, saved, changed, epoch);
      if (outcome === "stopped") return;
      this.savedBm25 = undefined;
      if (outcome !== "failed") {
        this.install(fresh, Number(start), dataVersion);
        this.dataVersion = -1;
        // Each restored slot's term ids (for removals) are gathered while searches are served.
        void runInSlices(fresh.bm25.restoredTermsSteps(), new TimeSlice(this.settings.refreshSliceMs));
        const stale = outcome.restored < saved.postings.rowIds.length;
        this.bm25Snapshots?.loaded(saved.coverage.change, outcome.fromDatabase > 0 || stale);
        // Rows of the snapshot deleted or replaced since: their terms leave the disk now (issue 27).
        if (stale) this.bm25Snapshots?.changesApplied(true);
        return;
      }
    }
    this.savedBm25 = undefined;
    // A switch during the reload changes the generation: the pass after this one rebuilds again.
    const fresh = this.emptyIndexes(this.database.readStoredModel(), this.database.readGeneration());
    let after = -1;
    for (;;) {
      const rows = this.database.statements.chunksAfter.all(after, reloadPageRows) as IndexedChunkRow[];
      if (rows.length === 0) break;
      for (const row of rows) this.addSlot(fresh, row, "fresh");
      after = Number((rows[rows.length - 1] as IndexedChunkRow).id);
      yield;
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return;
    }
    this.install(fresh, Number(start), dataVersion);
    // Commits made during the reload: force the replay of everything after `start`.
    this.dataVersion = -1;
    this.bm25Snapshots?.changesApplied(false);
    this.bm25Snapshots?.maybeSave(this.bm25Source(), this.bm25Coverage(), true);
  }

  /**
   * The first load with saved BM25 postings: reads the rows without their terms (slots and
   * vectors as a reload does), restores the postings of rows the snapshot holds whose document did
   * not change since it was saved, and analyses the others' stored terms. Returns how many rows
   * came from each, `stopped` when another catch-up ran meanwhile, `failed` (logged) when the
   * postings are inconsistent.
   */
  private *reloadWithSavedPostings(
    fresh: MemoryIndexes,
    saved: Bm25Snapshot,
    changed: Set<string>,
    epoch: number,
  ): Generator<void, { restored: number; fromDatabase: number } | "stopped" | "failed", void> {
    const started = performance.now();
    const { rowIds } = saved.postings;
    const slotOfRow = new Int32Array(rowIds.length).fill(-1);
    /** Pairs of slot and row id whose terms are read from the database. */
    const fromDatabase: number[] = [];
    let restored = 0;
    let position = 0;
    let after = -1;
    for (;;) {
      const rows = this.database.statements.chunksAfterWithoutTerms.all(after, reloadPageRows) as Omit<IndexedChunkRow, "terms">[];
      if (rows.length === 0) break;
      for (const row of rows) {
        const slot = fresh.slots.add(row);
        this.addVector(fresh, row, slot, "fresh");
        while (position < rowIds.length && (rowIds[position] as number) < row.id) position++;
        if (position < rowIds.length && rowIds[position] === row.id && !changed.has(row.doc_id)) {
          slotOfRow[position] = slot;
          restored++;
        } else fromDatabase.push(slot, row.id);
      }
      after = Number((rows[rows.length - 1] as IndexedChunkRow).id);
      yield;
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return "stopped";
    }
    const steps = fresh.bm25.restore(saved.postings, slotOfRow);
    for (;;) {
      let step: IteratorResult<void, void>;
      try {
        step = steps.next();
      } catch (error) {
        this.settings.logger.warn(`ignored the saved BM25 postings, rebuilding them: ${(error as Error).message}`, {
          component: "embedded-store",
        });
        return "failed";
      }
      if (step.done) break;
      yield;
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return "stopped";
    }
    for (let index = 0; index < fromDatabase.length; index += 2) {
      const row = this.database.statements.termsOfRow.get(fromDatabase[index + 1] as number) as { terms: string } | undefined;
      // A row deleted since it was read: the replay that follows removes its document.
      const terms = row?.terms ?? "";
      fresh.bm25.add(fromDatabase[index] as number, terms === "" ? [] : terms.split(" "));
      if (index % 512 !== 510) continue;
      yield;
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return "stopped";
    }
    this.settings.logger.info("BM25 postings loaded from their snapshot", {
      component: "embedded-store",
      rows: restored,
      rowsAnalysed: fromDatabase.length / 2,
      changedDocuments: changed.size,
      ms: Math.round(performance.now() - started),
    });
    return { restored, fromDatabase: fromDatabase.length / 2 };
  }

  /** Replays the change log since the last catch-up, one document per step (a large one in several, see {@link replaceLargeDocument}). */
  private *replay(epoch: number, dataVersion: number): Generator<void, void, void> {
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
      else if (!(yield* this.replaceLargeDocument(docId, chain(first, rows), epoch))) return;
      yield;
      if (epoch !== this.catchUpEpoch || !this.database.isOpen) return;
    }
    this.lastChange = latest;
    this.dataVersion = dataVersion;
    this.hnsw.maybeStart();
    this.hnsw.changesApplied(latest);
    if (changed.size > 0) {
      this.bm25Snapshots?.changesApplied(false);
      this.bm25Snapshots?.maybeSave(this.bm25Source(), this.bm25Coverage());
    }
  }

  /**
   * Replaces the slots of a large document: its rows are staged a few at a time (hidden from
   * searches, a step between each few), then its old slots are removed and the new ones revealed
   * at once, so searches see the document wholly old or wholly new. Returns false, leaving
   * nothing behind, when another catch-up ran meanwhile.
   */
  private *replaceLargeDocument(docId: string, rows: Iterable<IndexedChunkRow>, epoch: number): Generator<void, boolean, void> {
    const indexes = this.indexes;
    const staged: number[] = [];
    for (const row of rows) {
      staged.push(this.addSlot(indexes, row, "staged"));
      if (staged.length % stagingStep !== 0) continue;
      yield;
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
    this.addVector(indexes, row, slot, mode);
    return slot;
  }

  /** Adds a slot's vector, if its row has one of the indexes' model (see {@link addSlot} for `mode`). */
  private addVector(
    indexes: MemoryIndexes,
    row: Pick<IndexedChunkRow, "embedding">,
    slot: number,
    mode: "live" | "fresh" | "staged",
  ): void {
    const staged = mode === "staged";
    // A row of another dimension was switched by a reindex after `indexes` were built: left out
    // here, the rebuild that follows the switch holds it.
    if (row.embedding && indexes.model && row.embedding.byteLength === indexes.model.dimension * Float32Array.BYTES_PER_ELEMENT) {
      indexes.vectors ??= new ExactVectorIndex(indexes.model.dimension);
      const embedding = row.embedding;
      // A view when the blob is aligned (SQLite gives each its own buffer), else a copy; `set` copies it in.
      const vector =
        embedding.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0
          ? new Float32Array(embedding.buffer, embedding.byteOffset, indexes.model.dimension)
          : new Float32Array(embedding.buffer.slice(embedding.byteOffset, embedding.byteOffset + embedding.byteLength));
      indexes.vectors.set(slot, vector, staged);
      if (mode === "live") this.hnsw.added(slot);
    }
  }

  /** Empties the slots of a document in the searched indexes. */
  private removeDocumentSlots(docId: string): void {
    const indexes = this.indexes;
    const removed = indexes.slots.removeDocument(docId);
    for (const slot of removed) {
      indexes.bm25.remove(slot);
      indexes.vectors?.remove(slot);
      this.hnsw.removed(slot);
    }
    // The saved postings hold the removed terms: deleted at once (issue 27), saved again later.
    if (removed.length > 0) this.bm25Snapshots?.changesApplied(true);
  }

  /** Replaces the slots of a document by its current rows, in one step. */
  private replaceDocument(docId: string, rows: readonly IndexedChunkRow[]): void {
    this.removeDocumentSlots(docId);
    for (const row of rows) this.addSlot(this.indexes, row, "live");
  }

  /** Whether so many slots are dead that a reload (which compacts) is due. */
  private compactionDue(): boolean {
    return this.indexes.slots.dead > Math.max(1000, this.indexes.slots.length * 0.3);
  }
}
