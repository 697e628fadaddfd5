/**
 * Exact (brute-force) nearest-neighbour search over unit-length float32 vectors held in one
 * contiguous `Float32Array`, scored by inner product (= cosine similarity for unit vectors).
 * Filtering happens before scoring, so a filtered top-k is exact at any selectivity.
 */
import { type IdScore, TopK } from "../retrieval/top-k.js";
import type { SlotPredicate } from "./bm25-index.js";

/** In-memory exact vector index over slots. */
export class ExactVectorIndex {
  private vectors: Float32Array;
  private present: Uint8Array;
  private count = 0;

  /** @param dimension - vector length; every vector added must have it. */
  constructor(
    readonly dimension: number,
    initialCapacity = 1024,
  ) {
    this.vectors = new Float32Array(initialCapacity * dimension);
    this.present = new Uint8Array(initialCapacity);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.count;
  }

  /** Stores `vector` (normalised to unit length) at `slot`. */
  set(slot: number, vector: Float32Array): void {
    if (vector.length !== this.dimension) {
      throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimension}`);
    }
    this.ensureCapacity(slot + 1);
    let norm = 0;
    for (let index = 0; index < vector.length; index++) norm += (vector[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = slot * this.dimension;
    for (let index = 0; index < vector.length; index++) this.vectors[offset + index] = (vector[index] as number) * scale;
    if (this.present[slot] !== 1) this.count++;
    this.present[slot] = 1;
  }

  /** Removes the vector at `slot`, if any. */
  remove(slot: number): void {
    if (slot < this.present.length && this.present[slot] === 1) {
      this.present[slot] = 0;
      this.count--;
    }
  }

  /** Whether `slot` holds a vector. */
  has(slot: number): boolean {
    return slot < this.present.length && this.present[slot] === 1;
  }

  /**
   * The `topK` slots with the highest inner product with `query` (normalised here) among the
   * slots `accept` allows.
   */
  search(query: Float32Array, topK: number, accept?: SlotPredicate): IdScore[] {
    if (query.length !== this.dimension) {
      throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimension}`);
    }
    let norm = 0;
    for (let index = 0; index < query.length; index++) norm += (query[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const unitQuery = new Float32Array(this.dimension);
    for (let index = 0; index < query.length; index++) unitQuery[index] = (query[index] as number) * scale;

    const best = new TopK(topK);
    const dimension = this.dimension;
    const vectors = this.vectors;
    const present = this.present;
    const slots = present.length;
    for (let slot = 0; slot < slots; slot++) {
      if (present[slot] !== 1) continue;
      if (accept !== undefined && !accept(slot)) continue;
      const offset = slot * dimension;
      let dot = 0;
      for (let index = 0; index < dimension; index++) {
        dot += (unitQuery[index] as number) * (vectors[offset + index] as number);
      }
      best.offer(slot, dot);
    }
    return best.sorted();
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.present.length) return;
    const next = Math.max(slots, this.present.length * 2);
    const vectors = new Float32Array(next * this.dimension);
    vectors.set(this.vectors);
    this.vectors = vectors;
    const present = new Uint8Array(next);
    present.set(this.present);
    this.present = present;
  }
}
