/**
 * An in-memory inverted index scored with Okapi BM25 (Robertson & Zaragoza, 2009, "The
 * Probabilistic Relevance Framework: BM25 and Beyond"), in Lucene's variant:
 *
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t, d) · (k1 + 1) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * N and avgdl are taken over all live chunks of the organisation (not only the filtered ones),
 * as Lucene and Elasticsearch do. A query term repeated n times counts n times.
 *
 * Documents live in "slots" numbered from 0. Slots are never reused: a removed slot is marked
 * dead and skipped; its postings are compacted lazily. Filtering happens inside the posting
 * loop, before scoring, so filtered top-k is exact. A slot may be added *staged*: its postings
 * are in place but it is neither searched nor counted in N, avgdl or document frequencies until
 * {@link Bm25Index.reveal} (the embedded store stages a large document in small steps and
 * reveals it at once).
 */
import { type IdScore, TopK } from "../retrieval/top-k.js";

/** BM25 parameters. */
export interface Bm25Parameters {
  /** Term-frequency saturation; Anserini's BEIR default 0.9, Lucene's default 1.2. */
  k1: number;
  /** Length normalisation in [0, 1]; Anserini's BEIR default 0.4, Lucene's default 0.75. */
  b: number;
}

/**
 * Which slots a search may return: one byte per slot, 1 = allowed. Slots beyond its length are
 * not allowed. Built once per search by the store from access, document and metadata filters.
 */
export type SlotMask = Uint8Array;

interface PostingList {
  slots: Int32Array;
  frequencies: Int32Array;
  size: number;
  dead: number;
  documentFrequency: number;
}

/** In-memory BM25 index over slots. */
export class Bm25Index {
  private readonly terms = new Map<string, number>();
  private readonly postings: PostingList[] = [];
  private slotTerms: (Int32Array | undefined)[] = [];
  private slotLengths = new Float64Array(1024);
  /** Per slot: 0 absent or removed, 1 live, 2 staged (postings in place, not searched or counted). */
  private live = new Uint8Array(1024);
  private liveCount = 0;
  private totalLength = 0;
  private scores = new Float64Array(1024);
  private touched = new Int32Array(1024);
  /** Scratch of {@link add}: occurrences of each term id in the slot being added (zero between calls). */
  private termCounts = new Int32Array(1024);
  /** Scratch of {@link add}: the slot's distinct term ids, in order of first occurrence. */
  private distinctTerms = new Int32Array(256);

  constructor(private readonly parameters: Bm25Parameters) {}

  /** Number of live slots. */
  get size(): number {
    return this.liveCount;
  }

  /** Adds `slot` with its analysed `terms`; `staged` keeps it out of searches and statistics until {@link reveal}. The slot must be new. */
  add(slot: number, terms: readonly string[], staged = false): void {
    this.ensureSlotCapacity(slot + 1);
    // Term frequencies counted in scratch arrays kept between calls (no map per slot): reopening
    // an organisation adds every chunk, and this loop is most of that time.
    let counts = this.termCounts;
    let distinct = this.distinctTerms;
    let distinctCount = 0;
    for (const term of terms) {
      let termId = this.terms.get(term);
      if (termId === undefined) {
        termId = this.postings.length;
        this.terms.set(term, termId);
        this.postings.push({ slots: new Int32Array(4), frequencies: new Int32Array(4), size: 0, dead: 0, documentFrequency: 0 });
        if (termId >= counts.length) counts = this.termCounts = grow(counts, counts.length * 2);
      }
      if (counts[termId] === 0) {
        if (distinctCount === distinct.length) distinct = this.distinctTerms = grow(distinct, distinct.length * 2);
        distinct[distinctCount++] = termId;
      }
      counts[termId] = (counts[termId] as number) + 1;
    }
    const termIds = distinct.slice(0, distinctCount);
    for (let index = 0; index < distinctCount; index++) {
      const termId = termIds[index] as number;
      const frequency = counts[termId] as number;
      counts[termId] = 0;
      const list = this.postings[termId] as PostingList;
      if (list.size === list.slots.length) {
        list.slots = grow(list.slots, list.size * 2);
        list.frequencies = grow(list.frequencies, list.size * 2);
      }
      list.slots[list.size] = slot;
      list.frequencies[list.size] = frequency;
      list.size++;
      if (!staged) list.documentFrequency++;
    }
    this.slotTerms[slot] = termIds;
    this.slotLengths[slot] = terms.length;
    if (staged) {
      this.live[slot] = 2;
      return;
    }
    this.live[slot] = 1;
    this.liveCount++;
    this.totalLength += terms.length;
  }

  /** Makes a staged slot live: searched, and counted in N, avgdl and document frequencies. */
  reveal(slot: number): void {
    if (slot >= this.live.length || this.live[slot] !== 2) return;
    this.live[slot] = 1;
    this.liveCount++;
    this.totalLength += this.slotLengths[slot] as number;
    for (const termId of this.slotTerms[slot] ?? []) (this.postings[termId] as PostingList).documentFrequency++;
  }

  /** Removes `slot` (live or staged); removing a dead or unknown slot is a no-op. */
  remove(slot: number): void {
    if (slot < this.live.length && this.live[slot] === 2) {
      this.live[slot] = 0;
      for (const termId of this.slotTerms[slot] ?? []) (this.postings[termId] as PostingList).dead++;
      this.slotTerms[slot] = undefined;
      return;
    }
    if (slot >= this.live.length || this.live[slot] !== 1) return;
    this.live[slot] = 0;
    this.liveCount--;
    this.totalLength -= this.slotLengths[slot] as number;
    for (const termId of this.slotTerms[slot] ?? []) {
      const list = this.postings[termId] as PostingList;
      list.documentFrequency--;
      list.dead++;
    }
    this.slotTerms[slot] = undefined;
  }

  /**
   * The `topK` slots with the highest BM25 score for `queryTerms` (analysed terms) among the
   * slots `mask` allows (all when absent). Slots that match no query term are never returned.
   */
  search(queryTerms: readonly string[], topK: number, mask?: SlotMask): IdScore[] {
    if (this.liveCount === 0 || topK <= 0) return [];
    const queryFrequencies = new Map<number, number>();
    for (const term of queryTerms) {
      const termId = this.terms.get(term);
      if (termId !== undefined) queryFrequencies.set(termId, (queryFrequencies.get(termId) ?? 0) + 1);
    }
    const scores = this.scores;
    const touched = this.touched;
    let touchedCount = 0;
    try {
      touchedCount = this.accumulate(queryFrequencies, mask);
    } catch (error) {
      // Leave the shared accumulator clean for the next search, then rethrow.
      scores.fill(0);
      throw error;
    }
    const best = new TopK(topK);
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index] as number;
      best.offer(slot, scores[slot] as number);
      scores[slot] = 0;
    }
    return best.sorted();
  }

  /**
   * The number of live slots `mask` allows (all when absent) that hold at least one of
   * `queryTerms`, or are among `include`; each slot once. Walks the query terms' posting lists,
   * as {@link search} does, without scoring.
   */
  count(queryTerms: readonly string[], mask?: SlotMask, include: readonly number[] = []): number {
    const seen = new Uint8Array(this.live.length);
    const counts = (slot: number) => this.live[slot] === 1 && (mask === undefined || mask[slot] === 1) && seen[slot] === 0;
    let total = 0;
    for (const termId of new Set(queryTerms.map((term) => this.terms.get(term)))) {
      if (termId === undefined) continue;
      const list = this.postings[termId] as PostingList;
      if (list.documentFrequency === 0) continue;
      for (let index = 0; index < list.size; index++) {
        const slot = list.slots[index] as number;
        if (!counts(slot)) continue;
        seen[slot] = 1;
        total++;
      }
    }
    for (const slot of include) {
      if (slot < 0 || slot >= seen.length || !counts(slot)) continue;
      seen[slot] = 1;
      total++;
    }
    return total;
  }

  /** Adds every query term's BM25 contribution into the shared accumulator; returns how many slots it touched. */
  private accumulate(queryFrequencies: Map<number, number>, mask: SlotMask | undefined): number {
    const { k1, b } = this.parameters;
    const averageLength = this.totalLength / this.liveCount || 1;
    const scores = this.scores;
    const touched = this.touched;
    const live = this.live;
    const lengths = this.slotLengths;
    let touchedCount = 0;
    for (const [termId, queryFrequency] of queryFrequencies) {
      const list = this.postings[termId] as PostingList;
      if (list.documentFrequency === 0) continue;
      if (list.dead > list.size / 2) this.compact(list);
      const idf = Math.log(1 + (this.liveCount - list.documentFrequency + 0.5) / (list.documentFrequency + 0.5));
      const weight = idf * (k1 + 1) * queryFrequency;
      const lengthFactor = k1 * (1 - b);
      const lengthSlope = (k1 * b) / averageLength;
      const slots = list.slots;
      const frequencies = list.frequencies;
      for (let index = 0; index < list.size; index++) {
        const slot = slots[index] as number;
        if (live[slot] !== 1) continue;
        if (mask !== undefined && mask[slot] !== 1) continue;
        const frequency = frequencies[index] as number;
        const contribution = (weight * frequency) / (frequency + lengthFactor + lengthSlope * (lengths[slot] as number));
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot] = (scores[slot] as number) + contribution;
      }
    }
    return touchedCount;
  }

  private compact(list: PostingList): void {
    let write = 0;
    for (let read = 0; read < list.size; read++) {
      const slot = list.slots[read] as number;
      if (this.live[slot] === 0) continue;
      list.slots[write] = slot;
      list.frequencies[write] = list.frequencies[read] as number;
      write++;
    }
    list.size = write;
    list.dead = 0;
  }

  private ensureSlotCapacity(capacity: number): void {
    if (capacity <= this.live.length) return;
    const next = Math.max(capacity, this.live.length * 2);
    this.live = grow(this.live, next);
    this.slotLengths = grow(this.slotLengths, next);
    this.scores = grow(this.scores, next);
    this.touched = grow(this.touched, next);
  }
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
