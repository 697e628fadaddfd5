/**
 * The HNSW graph the embedded store adds beside its exact vector index for large organisations
 * (`VECTOR_INDEX`, `HNSW_MIN_VECTORS`): built in the background in small steps so that requests
 * keep being served (exact scans answer until the graph covers every slot), kept up to date as
 * slots are added and removed, and searched with over-fetching when a filter hides part of the
 * vectors.
 */
import type { Logger } from "../logging/logger.js";
import type { IdScore } from "../retrieval/top-k.js";
import type { SlotMask } from "./bm25-index.js";
import type { ExactVectorIndex } from "./exact-vector-index.js";
import { type HnswSettings, HnswVectorIndex, isHnswAvailable } from "./hnsw-vector-index.js";

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
  /** False once the store is closed: a build then stops. */
  isOpen(): boolean;
}

/** Share of allowed vectors below which a filtered search scans exactly instead of using HNSW. */
const hnswMinimumSelectivity = 0.05;
/**
 * Slots added to the HNSW graph per step of a background build; the event loop runs between
 * steps, so a step (about 0.2 s on one core) bounds the pause a request can see during a build.
 */
const hnswBuildBatch = 200;

/** The HNSW graph of one organisation: built or being built, or none. */
export class HnswBuilder {
  /** The HNSW graph being built or built; `hnswReady` once it covers every slot. */
  private hnsw: HnswVectorIndex | undefined;
  private hnswReady = false;
  /** Slots below this have been offered to the graph. */
  private hnswPosition = 0;
  /** Incremented on every rebuild, so a stale background build stops. */
  private hnswGeneration = 0;

  constructor(
    private readonly settings: VectorIndexSettings,
    private readonly logger: Logger,
    private readonly source: HnswSource,
  ) {}

  /** The state of the graph: `none`, `building` or `ready`. */
  get status(): "none" | "building" | "ready" {
    return this.hnswReady ? "ready" : this.hnsw ? "building" : "none";
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
    const results = this.hnsw.search(unit, depth).filter((result) => vectors.has(result.id) && (!mask || mask[result.id] === 1));
    return results.length >= Math.min(topK, allowed) ? results.slice(0, topK) : undefined;
  }

  /** Starts building the HNSW graph in the background when the settings ask for one. */
  maybeStart(): void {
    const settings = this.settings;
    const vectors = this.source.vectors();
    if (this.hnsw || !vectors || settings.mode === "exact" || !isHnswAvailable()) return;
    if (settings.mode === "auto" && vectors.size < settings.minVectors) return;
    const generation = ++this.hnswGeneration;
    const graph = new HnswVectorIndex(vectors.dimension, settings.hnsw);
    this.hnsw = graph;
    this.hnswPosition = 0;
    const step = () => {
      if (generation !== this.hnswGeneration || !this.source.isOpen()) return;
      const end = Math.min(this.source.slotCount(), this.hnswPosition + hnswBuildBatch);
      const slots: number[] = [];
      const rows: Float32Array[] = [];
      for (let slot = this.hnswPosition; slot < end; slot++) {
        const row = this.source.vectors()?.vectorAt(slot);
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
      if (this.hnswPosition >= this.source.slotCount()) {
        this.hnswReady = true;
        this.logger.info("HNSW vector index ready", { component: "embedded-store", vectors: graph.size });
        return;
      }
      setImmediate(step);
    };
    setImmediate(step);
  }

  /**
   * Offers a slot that was just given a vector: a graph that has reached the slot's position adds
   * it directly; a build in progress will reach it.
   */
  added(slot: number): void {
    if (this.hnsw && slot < this.hnswPosition) this.hnsw.add([slot], this.vectorAt(slot));
    else if (this.hnswReady && this.hnsw) {
      this.hnsw.add([slot], this.vectorAt(slot));
      this.hnswPosition = slot + 1;
    }
  }

  /** Removes a slot from the graph, if the graph has reached it. */
  removed(slot: number): void {
    if (this.hnsw && slot < this.hnswPosition) this.hnsw.remove(slot);
  }

  /** Drops the graph and stops a build in progress. */
  discard(): void {
    this.hnswGeneration++;
    this.hnsw = undefined;
    this.hnswReady = false;
    this.hnswPosition = 0;
  }

  private vectorAt(slot: number): Float32Array {
    return this.source.vectors()?.vectorAt(slot) as Float32Array;
  }
}
