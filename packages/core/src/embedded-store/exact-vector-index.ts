/**
 * Exact (brute-force) nearest-neighbour search over unit-length float32 vectors, scored by inner
 * product (= cosine similarity for unit vectors). The vectors live in one contiguous block of
 * WebAssembly memory and are scanned by a SIMD kernel (`dot-products.wat`, four f32x4
 * accumulators), so a scan runs close to memory bandwidth; a plain JavaScript loop is the fallback
 * where WebAssembly SIMD is unavailable. Filtering happens before scoring through a slot mask, so
 * a filtered top-k is exact at any selectivity.
 *
 * Capacity is bounded by 32-bit WebAssembly memory (4 GiB): about 2.7 million 384-dimension
 * vectors per organisation.
 */
import { type IdScore, TopK } from "../retrieval/top-k.js";
import type { SlotMask } from "./bm25-index.js";
import { dotProductsWasm } from "./dot-products-wasm.js";

type ScoresFunction = (query: number, matrix: number, dimension: number, rows: number, out: number, mask: number) => void;

const pageBytes = 65_536;
let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null when this runtime lacks WebAssembly SIMD. */
function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(dotProductsWasm, "base64"));
    } catch {
      compiled = null;
    }
  }
  return compiled ?? null;
}

/** In-memory exact vector index over slots. */
export class ExactVectorIndex {
  /** Stored row length: the dimension rounded up to a multiple of 16 (zero-padded). */
  private readonly stride: number;
  private readonly instance: WebAssembly.Instance | null;
  private memory: WebAssembly.Memory | null;
  private capacity = 0;
  private matrix!: Float32Array;
  /** Per slot: 0 none, 1 present, 2 staged (stored, not searched until {@link reveal}). */
  private present: Uint8Array = new Uint8Array(0);
  private count = 0;
  private stagedCount = 0;

  /** @param dimension - vector length; every vector added must have it. */
  constructor(
    readonly dimension: number,
    initialCapacity = 1024,
  ) {
    this.stride = Math.ceil(dimension / 16) * 16;
    const module = kernelModule();
    this.instance = module ? new WebAssembly.Instance(module) : null;
    this.memory = this.instance ? (this.instance.exports.memory as WebAssembly.Memory) : null;
    this.ensureCapacity(initialCapacity);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.count;
  }

  /** Whether the SIMD kernel is in use (false: JavaScript fallback). */
  get accelerated(): boolean {
    return this.instance !== null;
  }

  /** Stores `vector` (normalised to unit length) at `slot`; `staged` keeps it out of searches until {@link reveal}. */
  set(slot: number, vector: Float32Array, staged = false): void {
    if (vector.length !== this.dimension) {
      throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimension}`);
    }
    this.ensureCapacity(slot + 1);
    let norm = 0;
    for (let index = 0; index < vector.length; index++) norm += (vector[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = this.matrixOffset() / 4 + slot * this.stride;
    for (let index = 0; index < vector.length; index++) this.matrix[offset + index] = (vector[index] as number) * scale;
    if (this.present[slot] === 2) this.stagedCount--;
    if (staged) {
      if (this.present[slot] === 1) this.count--;
      this.present[slot] = 2;
      this.stagedCount++;
      return;
    }
    if (this.present[slot] !== 1) this.count++;
    this.present[slot] = 1;
  }

  /** Makes a staged vector searchable. */
  reveal(slot: number): void {
    if (slot < this.present.length && this.present[slot] === 2) {
      this.present[slot] = 1;
      this.stagedCount--;
      this.count++;
    }
  }

  /** Removes the vector at `slot` (present or staged), if any. */
  remove(slot: number): void {
    if (slot >= this.present.length) return;
    if (this.present[slot] === 1) this.count--;
    else if (this.present[slot] === 2) this.stagedCount--;
    else return;
    this.present[slot] = 0;
  }

  /** A copy of the unit vector at `slot` (undefined when the slot holds none). */
  vectorAt(slot: number): Float32Array | undefined {
    if (!this.has(slot)) return undefined;
    const offset = this.matrixOffset() / 4 + slot * this.stride;
    return this.matrix.slice(offset, offset + this.dimension);
  }

  /** Whether `slot` holds a vector. */
  has(slot: number): boolean {
    return slot < this.present.length && this.present[slot] === 1;
  }

  /**
   * The `topK` slots with the highest inner product with `query` (normalised here) among the
   * slots `mask` allows (all when absent; slots beyond the mask's length are not allowed).
   */
  search(query: Float32Array, topK: number, mask?: SlotMask): IdScore[] {
    if (query.length !== this.dimension) {
      throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimension}`);
    }
    let norm = 0;
    for (let index = 0; index < query.length; index++) norm += (query[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const rows = this.present.length;
    const best = new TopK(topK);
    if (this.instance && this.memory) {
      const bytes = new Uint8Array(this.memory.buffer);
      const floats = new Float32Array(this.memory.buffer);
      floats.fill(0, 0, this.stride);
      for (let index = 0; index < query.length; index++) floats[index] = (query[index] as number) * scale;
      const maskOffset = this.maskOffset();
      if (mask) {
        for (let slot = 0; slot < rows; slot++) bytes[maskOffset + slot] = this.present[slot] === 1 && mask[slot] === 1 ? 1 : 0;
      } else if (this.stagedCount > 0) {
        for (let slot = 0; slot < rows; slot++) bytes[maskOffset + slot] = this.present[slot] === 1 ? 1 : 0;
      } else {
        bytes.set(this.present, maskOffset);
      }
      const scoresOffset = this.scoresOffset();
      (this.instance.exports.scores as ScoresFunction)(0, this.matrixOffset(), this.stride, rows, scoresOffset, maskOffset);
      const scores = new Float32Array(this.memory.buffer, scoresOffset, rows);
      for (let slot = 0; slot < rows; slot++) {
        const score = scores[slot] as number;
        if (score >= best.threshold && bytes[maskOffset + slot] === 1) best.offer(slot, score);
      }
      return best.sorted();
    }
    const unitQuery = new Float32Array(this.dimension);
    for (let index = 0; index < query.length; index++) unitQuery[index] = (query[index] as number) * scale;
    for (let slot = 0; slot < rows; slot++) {
      if (this.present[slot] !== 1 || (mask !== undefined && mask[slot] !== 1)) continue;
      const offset = slot * this.stride;
      let dot = 0;
      for (let index = 0; index < this.dimension; index++) dot += (unitQuery[index] as number) * (this.matrix[offset + index] as number);
      best.offer(slot, dot);
    }
    return best.sorted();
  }

  /** Byte offset of the matrix: after the query row. */
  private matrixOffset(): number {
    return this.memory ? this.stride * 4 : 0;
  }

  private scoresOffset(): number {
    return this.matrixOffset() + this.capacity * this.stride * 4;
  }

  private maskOffset(): number {
    return this.scoresOffset() + this.capacity * 4;
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.capacity) return;
    const next = Math.max(slots, this.capacity * 2, 16);
    if (this.memory) {
      const needed = this.stride * 4 + next * this.stride * 4 + next * 4 + next;
      const pages = Math.ceil(needed / pageBytes);
      const current = this.memory.buffer.byteLength / pageBytes;
      if (pages > current) this.memory.grow(pages - current);
      this.matrix = new Float32Array(this.memory.buffer);
    } else {
      const matrix = new Float32Array(next * this.stride);
      if (this.matrix) matrix.set(this.matrix);
      this.matrix = matrix;
    }
    const present = new Uint8Array(next);
    present.set(this.present);
    this.present = present;
    this.capacity = next;
  }
}
