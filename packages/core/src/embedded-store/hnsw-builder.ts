/**
 * The HNSW graph the embedded store adds beside its exact vector index for large organisations
 * (`VECTOR_INDEX`, `HNSW_MIN_VECTORS`): built in the background in small steps so that requests
 * keep being served (exact scans answer until the graph covers every slot), kept up to date as
 * slots are added and removed, saved beside the database and loaded from there on the next
 * start, and searched with over-fetching when a filter hides part of the vectors.
 */
import type { Logger } from "../logging/logger.js";
import type { IdScore } from "../retrieval/top-k.js";
import type { SlotMask } from "./bm25-index.js";
import type { ExactVectorIndex } from "./exact-vector-index.js";
import type { HnswSnapshotCoverage, HnswSnapshotFiles } from "./hnsw-snapshot.js";
import { type HnswSettings, HnswVectorIndex, isHnswAvailable } from "./hnsw-vector-index.js";
import { SnapshotSchedule } from "./snapshot-files.js";

/** When the embedded store adds an HNSW graph beside its exact vector index (`VECTOR_INDEX`). */
export interface VectorIndexSettings {
  /** `auto` (default): from `minVectors` vectors on; `exact`: never; `hnsw`: always. */
  mode: "auto" | "exact" | "hnsw";
  /** `HNSW_MIN_VECTORS`, default 20000. */
  minVectors: number;
  hnsw: HnswSettings;
}

/** What a build reads from the store, live (the store may grow or close while it runs). */
export interface HnswSource {
  /** Number of slots, removed ones included. */
  slotCount(): number;
  /** The exact vector index holding each slot's unit vector, if any. */
  vectors(): ExactVectorIndex | undefined;
  /** The SQLite row id of a live slot (its key in the graph); undefined for a removed or staged slot. */
  rowIdAt(slot: number): number | undefined;
  /** The document of a live slot. */
  documentAt(slot: number): string | undefined;
  /** False once the store is closed: a build then stops. */
  isOpen(): boolean;
  /** The state of the database the in-memory indexes hold now, which a saved graph of them covers; undefined when it cannot be saved. */
  coverage(): HnswSnapshotCoverage | undefined;
  /**
   * The documents changed after change `change` of the log (and after the indexes' own last
   * change, when earlier), or undefined when the log no longer reaches back to it or never did.
   */
  changedSince(change: number): Set<string> | undefined;
}

/** Share of allowed vectors below which a filtered search scans exactly instead of using HNSW. */
const hnswMinimumSelectivity = 0.05;
/**
 * Slots added to the HNSW graph per step of a background build; the event loop runs between
 * steps, so a step (about 0.2 s on one core) bounds the pause a request can see during a build.
 */
const hnswBuildBatch = 200;
/** Slots checked against a loaded snapshot per step when none needs adding (a map lookup each). */
const hnswCheckBatch = 20_000;
/**
 * Share of a saved graph's vectors removed or replaced since it was built from scratch beyond
 * which it is rebuilt instead of loaded (the same share of dead slots makes the in-memory indexes
 * reload): removed vectors stay in the graph as nodes searches pass through.
 */
const snapshotMaximumRemovedShare = 0.3;

/** A snapshot being brought up to date with the slots, while the graph loaded from it is not searched yet. */
interface Reconciliation {
  /** The row ids the loaded graph holds, ascending. */
  keys: Float64Array;
  /** Documents whose rows are added again (changed after the snapshot was saved). */
  changed: Set<string>;
  /** Slots from here on were added after the graph was loaded: always added again. */
  slotsAtLoad: number;
}

/**
 * The HNSW graph of one organisation: built or being built, or none. The graph is keyed by the
 * chunks' SQLite row ids, which stay the same across restarts (slots do not), and mapped to slots
 * here. With `snapshots`, a ready graph is saved beside the database (see `hnsw-snapshot.ts`), and
 * a start first tries the saved one: loaded, then checked slot by slot in the background (rows of
 * documents changed since it was saved, and slots added since, added again; row ids it holds that
 * are no longer live, removed), which takes seconds where a build takes minutes.
 *
 * When the graph is saved: when it becomes ready (after a build, or a check that changed it),
 * after 5,000 changes of the log applied since the last save (at most once in ten minutes, see
 * {@link SnapshotSchedule}), and when the store closes. Writing the file blocks the event loop
 * once (usearch's `save`, about 0.1 s per 100,000 vectors of 384 dimensions); its checksum, sync
 * and renames run asynchronously, except when closing.
 */
export class HnswBuilder {
  /** The HNSW graph being built or built; `hnswReady` once it covers every slot. */
  private hnsw: HnswVectorIndex | undefined;
  private hnswReady = false;
  /** Slots below this have been offered to the graph. */
  private hnswPosition = 0;
  /** Incremented on every rebuild, so a stale background build stops. */
  private hnswGeneration = 0;
  /** The slot of each key (row id) in the graph. */
  private slotOfKey = new Map<number, number>();
  /** The key (row id) of each slot in the graph; -1 for none. */
  private keyOfSlot = new Float64Array(0);
  private reconciliation: Reconciliation | undefined;
  /** Whether the graph changed since it was loaded or last saved. */
  private dirty = false;
  /** When the graph is saved again after changes. */
  private readonly schedule = new SnapshotSchedule();
  private saving: Promise<void> | undefined;
  /** Vectors removed from (or replaced in) the graph since it was built from scratch. */
  private removedSinceBuild = 0;

  /** @param snapshots - where the graph is saved and loaded from; none: never saved. */
  constructor(
    private readonly settings: VectorIndexSettings,
    private readonly logger: Logger,
    private readonly source: HnswSource,
    private readonly snapshots?: HnswSnapshotFiles,
  ) {}

  /** The state of the graph: `none`, `building` or `ready`. */
  get status(): "none" | "building" | "ready" {
    return this.hnswReady ? "ready" : this.hnsw ? "building" : "none";
  }

  /** A save of the graph in progress, if any (resolves when its files are in place; never rejects). */
  get pendingSave(): Promise<void> | undefined {
    return this.saving;
  }

  /**
   * HNSW search with over-fetching for filters: `k' = max(4k, 64, 2k / selectivity)` candidates,
   * filtered by the mask. Returns undefined (use the exact scan) when the graph is not ready, the
   * filter allows under 5 % of the vectors (an exact scan of so few is as fast and exact), or too
   * few candidates pass the filter.
   *
   * @param vectors - the exact index (for its size and which slots hold vectors).
   * @param maskAllowed - slots `mask` allows, when known (see `SlotTable.maskAllowed`).
   */
  search(
    vectors: ExactVectorIndex,
    vector: Float32Array,
    topK: number,
    mask: SlotMask | undefined,
    maskAllowed: number | undefined,
  ): IdScore[] | undefined {
    if (!this.hnswReady || !this.hnsw || vectors.size === 0) return undefined;
    const allowed = mask ? (maskAllowed ?? vectors.size) : vectors.size;
    const selectivity = Math.min(1, allowed / vectors.size);
    if (selectivity < hnswMinimumSelectivity) return undefined;
    const depth = Math.min(vectors.size, Math.max(4 * topK, 64, Math.ceil((2 * topK) / selectivity)));
    let norm = 0;
    for (const value of vector) norm += value * value;
    const unit = vector.map((value) => value / Math.sqrt(norm || 1));
    const results: IdScore[] = [];
    for (const { id: key, score } of this.hnsw.search(unit, depth)) {
      const slot = this.slotOfKey.get(key);
      if (slot !== undefined && vectors.has(slot) && (!mask || mask[slot] === 1)) results.push({ id: slot, score });
    }
    return results.length >= Math.min(topK, allowed) ? results.slice(0, topK) : undefined;
  }

  /**
   * Starts building the HNSW graph in the background when the settings ask for one: from the
   * saved snapshot when one matches the database, else from the vectors.
   */
  maybeStart(): void {
    const settings = this.settings;
    const vectors = this.source.vectors();
    if (this.hnsw || !vectors || settings.mode === "exact" || !isHnswAvailable()) return;
    if (settings.mode === "auto" && vectors.size < settings.minVectors) return;
    const generation = ++this.hnswGeneration;
    const graph = new HnswVectorIndex(vectors.dimension, settings.hnsw);
    this.hnsw = graph;
    this.hnswPosition = 0;
    this.slotOfKey = new Map();
    this.keyOfSlot = new Float64Array(0);
    this.reconciliation = undefined;
    this.dirty = true;
    this.removedSinceBuild = 0;
    const step = () => {
      if (generation !== this.hnswGeneration || !this.source.isOpen()) return;
      if (this.buildStep(graph)) setImmediate(step);
    };
    void this.loadSnapshot(graph, generation).then(() => {
      if (generation === this.hnswGeneration) setImmediate(step);
    });
  }

  /**
   * Offers a slot that was just given a vector: a graph that has reached the slot's position adds
   * it directly; a build in progress will reach it.
   */
  added(slot: number): void {
    if (!this.hnsw) return;
    if (slot < this.hnswPosition) this.put(this.hnsw, slot);
    else if (this.hnswReady) {
      this.put(this.hnsw, slot);
      this.hnswPosition = slot + 1;
    }
  }

  /** Removes a slot from the graph, if the graph has reached it. */
  removed(slot: number): void {
    if (!this.hnsw || slot >= this.hnswPosition || slot >= this.keyOfSlot.length) return;
    const key = this.keyOfSlot[slot] as number;
    if (key < 0) return;
    this.keyOfSlot[slot] = -1;
    if (this.slotOfKey.get(key) !== slot) return;
    this.slotOfKey.delete(key);
    this.hnsw.remove(key);
    this.removedSinceBuild++;
    this.dirty = true;
  }

  /**
   * Called after the indexes applied the change log up to `change`: saves a ready graph that
   * changed when 5,000 changes were applied since the last save, and ten
   * minutes have passed since it ({@link SnapshotSchedule}).
   */
  changesApplied(change: number): void {
    if (this.hnswReady && this.dirty && this.schedule.due(change)) this.save();
  }

  /** Drops the graph and stops a build in progress. A save in progress goes on (it writes files only). */
  discard(): void {
    this.hnswGeneration++;
    this.hnsw = undefined;
    this.hnswReady = false;
    this.hnswPosition = 0;
    this.slotOfKey = new Map();
    this.keyOfSlot = new Float64Array(0);
    this.reconciliation = undefined;
  }

  /**
   * For closing: saves a ready graph that changed since it was last saved, at once (blocking),
   * unless a save is already in progress, then drops it. A failure is logged: the snapshot on
   * disk stays the previous one, or none.
   */
  saveAndDiscard(): void {
    const graph = this.hnsw;
    const coverage = this.source.coverage();
    if (this.snapshots && graph && this.hnswReady && this.dirty && !this.saving && coverage) {
      try {
        this.snapshots.writeNow(graph, this.keys(), coverage, this.removedSinceBuild);
      } catch (error) {
        this.logger.warn(`could not save the HNSW graph: ${(error as Error).message}`, { component: "embedded-store" });
      }
    }
    this.discard();
  }

  /**
   * Reads the saved snapshot, and when it matches the database, loads it into `graph` (one
   * blocking read of the file) and sets up its check against the slots. Leaves an empty graph to
   * build otherwise.
   */
  private async loadSnapshot(graph: HnswVectorIndex, generation: number): Promise<void> {
    if (!this.snapshots) return;
    try {
      const current = this.source.coverage();
      if (!current) return;
      const snapshot = await this.snapshots.read(
        (saved) =>
          saved.storeId === current.storeId &&
          saved.orgId === current.orgId &&
          saved.generation === current.generation &&
          saved.modelId === current.modelId &&
          saved.dimension === current.dimension &&
          saved.connectivity === current.connectivity,
      );
      if (!snapshot || generation !== this.hnswGeneration || !this.source.isOpen()) {
        this.logger.info("no saved HNSW graph matches the database: building it", { component: "embedded-store" });
        return;
      }
      if (snapshot.removedSinceBuild > snapshotMaximumRemovedShare * Math.max(1, snapshot.keys.length)) {
        this.logger.info("the saved HNSW graph has had too many vectors removed: rebuilding it", {
          component: "embedded-store",
          removedSinceBuild: snapshot.removedSinceBuild,
          vectors: snapshot.keys.length,
        });
        return;
      }
      // Checked again after the asynchronous read: the indexes may have been replaced meanwhile.
      const now = this.source.coverage();
      const changed = this.source.changedSince(snapshot.coverage.change);
      if (!now || now.generation !== snapshot.coverage.generation || now.modelId !== snapshot.coverage.modelId || !changed) return;
      const started = performance.now();
      graph.load(snapshot.graphPath);
      this.reconciliation = { keys: snapshot.keys, changed, slotsAtLoad: this.source.slotCount() };
      this.schedule.savedChange = snapshot.coverage.change;
      this.removedSinceBuild = snapshot.removedSinceBuild;
      this.dirty = false;
      this.logger.info("HNSW vector index loaded from its snapshot", {
        component: "embedded-store",
        vectors: graph.size,
        changedDocuments: changed.size,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      this.logger.warn(`ignored the saved HNSW graph, rebuilding it: ${(error as Error).message}`, { component: "embedded-store" });
      // The failed load may have left part of a graph: start from an empty one.
      if (generation === this.hnswGeneration && this.hnsw === graph) this.restartEmpty(generation);
    }
  }

  /** After a failed load: the same build, over a new empty graph. */
  private restartEmpty(generation: number): void {
    const vectors = this.source.vectors();
    if (!vectors || generation !== this.hnswGeneration) return;
    const fresh = new HnswVectorIndex(vectors.dimension, this.settings.hnsw);
    this.hnsw = fresh;
    this.reconciliation = undefined;
    this.dirty = true;
    this.removedSinceBuild = 0;
    const step = () => {
      if (generation !== this.hnswGeneration || !this.source.isOpen()) return;
      if (this.buildStep(fresh)) setImmediate(step);
    };
    setImmediate(step);
  }

  /**
   * One step of a build (or of the check of a loaded snapshot): offers the next slots to the
   * graph. Returns true while slots remain.
   */
  private buildStep(graph: HnswVectorIndex): boolean {
    if (graph !== this.hnsw) return false;
    const reconciliation = this.reconciliation;
    const end = Math.min(this.source.slotCount(), this.hnswPosition + hnswCheckBatch);
    let added = 0;
    let slot = this.hnswPosition;
    for (; slot < end && added < hnswBuildBatch; slot++) {
      if (!this.source.vectors()?.has(slot)) continue;
      const key = this.source.rowIdAt(slot);
      if (key === undefined) continue;
      if (
        reconciliation &&
        slot < reconciliation.slotsAtLoad &&
        this.slotOfKey.get(key) === undefined &&
        holds(reconciliation.keys, key) &&
        !reconciliation.changed.has(this.source.documentAt(slot) as string)
      ) {
        this.map(slot, key);
        continue;
      }
      this.put(graph, slot);
      added++;
    }
    this.hnswPosition = slot;
    if (this.hnswPosition < this.source.slotCount()) return true;
    if (reconciliation) {
      // Row ids the snapshot holds that are no longer live (removed since it was saved).
      for (const key of reconciliation.keys) {
        if (!this.slotOfKey.has(key)) {
          graph.remove(key);
          this.removedSinceBuild++;
          this.dirty = true;
        }
      }
      this.reconciliation = undefined;
    }
    this.hnswReady = true;
    this.logger.info("HNSW vector index ready", { component: "embedded-store", vectors: graph.size });
    if (this.dirty) this.save();
    return false;
  }

  /** Adds a slot's vector under its row id, replacing what the graph held under that key. */
  private put(graph: HnswVectorIndex, slot: number): void {
    const key = this.source.rowIdAt(slot);
    const vector = this.source.vectors()?.vectorAt(slot);
    if (key === undefined || !vector) return;
    const owner = this.slotOfKey.get(key);
    if (owner !== undefined && owner < this.keyOfSlot.length) this.keyOfSlot[owner] = -1;
    // A key the loaded snapshot may hold, or another slot's (a row id SQLite gave again).
    if ((owner !== undefined || this.reconciliation) && graph.remove(key) > 0) this.removedSinceBuild++;
    graph.add([key], vector);
    this.map(slot, key);
    this.dirty = true;
  }

  private map(slot: number, key: number): void {
    if (slot >= this.keyOfSlot.length) {
      const grown = new Float64Array(Math.max(slot + 1, this.keyOfSlot.length * 2, 1024)).fill(-1);
      grown.set(this.keyOfSlot);
      this.keyOfSlot = grown;
    }
    this.keyOfSlot[slot] = key;
    this.slotOfKey.set(key, slot);
  }

  /** The keys in the graph. */
  private keys(): Float64Array {
    return Float64Array.from(this.slotOfKey.keys());
  }

  /** Saves the ready graph in the background, unless a save is in progress or there is nowhere to save. */
  private save(): void {
    const graph = this.hnsw;
    const coverage = this.source.coverage();
    if (!this.snapshots || !graph || !this.hnswReady || this.saving || !coverage) return;
    const keys = this.keys();
    this.dirty = false;
    this.schedule.began(coverage.change);
    const started = performance.now();
    this.saving = this.snapshots
      .write(graph, keys, coverage, this.removedSinceBuild)
      .then(() => {
        this.logger.info("HNSW vector index saved", {
          component: "embedded-store",
          vectors: keys.length,
          ms: Math.round(performance.now() - started),
        });
      })
      .catch((error: unknown) => {
        this.dirty = true;
        this.logger.warn(`could not save the HNSW graph: ${(error as Error).message}`, { component: "embedded-store" });
      })
      .finally(() => {
        this.saving = undefined;
      });
  }
}

/** Whether the ascending `keys` hold `key` (binary search). */
function holds(keys: Float64Array, key: number): boolean {
  let low = 0;
  let high = keys.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = keys[middle] as number;
    if (value === key) return true;
    if (value < key) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
