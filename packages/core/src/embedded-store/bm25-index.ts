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
 *
 * Top-k is found with dynamic pruning (MaxScore, document at a time; see {@link Bm25Index.search}):
 * each posting list keeps its slots in ascending order and a bound on its term's contribution, so
 * that the slots which cannot enter the top-k are skipped instead of scored. The results are those
 * of scoring every posting ({@link Bm25Index.searchExhaustively}), bit for bit.
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

/**
 * The postings of a {@link Bm25Index} keyed by row (the chunks' SQLite row ids) instead of slots,
 * as `bm25-snapshot.ts` saves them: the live rows and the terms that occur in them. Built by
 * {@link Bm25Index.capture} and put back by {@link Bm25Index.restore}.
 */
export interface Bm25Postings {
  /** Row id of each row, ascending. */
  rowIds: Float64Array;
  /** Each row's length, in terms (|d| of BM25). */
  lengths: Uint32Array;
  /** The terms (none empty of postings); their postings follow in the same order. */
  terms: string[];
  /** Term `t`'s postings are entries `termStarts[t]` to `termStarts[t + 1]` (exclusive); `terms.length + 1` entries. */
  termStarts: Uint32Array;
  /** Per posting, the row (an index into {@link rowIds}) holding the term. */
  postingRows: Uint32Array;
  /** Per posting, the term's frequency in the row: 16 bits when every frequency fits, else 32. */
  frequencies: Uint16Array | Uint32Array;
}

/** Rows whose term ids {@link Bm25Index.restore} gathers in one pass over the terms. */
const transposeBlockRows = 4096;

/** Postings copied or restored between two yields of {@link Bm25Index.capture} and {@link Bm25Index.restore}. */
const postingsPerStep = 65_536;

/**
 * Relative drift of the average length (avgdl) from the one a posting list's contribution bound
 * was computed at beyond which a search computes the bound again (a pass over the list); within
 * it the bound is rescaled, which stays safe but loosens it by up to this share.
 */
const boundMaximumDrift = 0.1;

/**
 * Relative margin added to the contribution bounds of a pruned search, so that float rounding
 * (about 1e-16 per operation) can never make a bound fall below a score it bounds.
 */
const boundSlack = 1e-9;

interface PostingList {
  /** The slots holding the term, ascending unless {@link ascending} is false (dead ones until compacted). */
  slots: Int32Array;
  frequencies: Int32Array;
  size: number;
  dead: number;
  documentFrequency: number;
  /** Whether {@link slots} ascend; an addition below the last slot clears it until a search sorts the list. */
  ascending: boolean;
  /**
   * The largest `tf / (tf + k1 · (1 − b + b · |d| / A))` of the list's postings at avgdl
   * A = {@link boundAverageLength}: the term's highest contribution divided by its weight
   * `idf · (k1 + 1) · qf`. Postings removed since stay counted (a bound, not a maximum).
   */
  ratioBound: number;
  /** The average length the {@link ratioBound} was computed at. */
  boundAverageLength: number;
}

/**
 * Slots per window of {@link Bm25Index.search} by default: the essential lists are scored into the
 * accumulator a window at a time, their slots marked in a bitset of the window, then completed in
 * ascending order; which terms are essential is decided again between windows. 4,096 as the inner
 * window of Lucene's `MaxScoreBulkScorer` (`INNER_WINDOW_SIZE = 1 << 12`, which also marks a
 * window's matches in a bitset).
 */
export const pruningWindowSlots = 4096;

/**
 * Most contributions the window of {@link Bm25Index.search} holds (2 MiB of float64): a query of
 * many distinct terms gets a narrower window (`windowSlots × terms` at most this), so that a
 * pasted paragraph does not make the index keep tens of MiB of scratch.
 */
const maximumWindowContributions = 1 << 18;

/** A query term prepared for scoring: its posting list and weight `idf · (k1 + 1) · qf`. */
interface QueryTerm {
  list: PostingList;
  weight: number;
}

/** In-memory BM25 index over slots. */
export class Bm25Index {
  private readonly terms = new Map<string, number>();
  private readonly postings: PostingList[] = [];
  private slotTerms: (Int32Array | undefined)[] = [];
  /**
   * The term ids of slots put back by {@link restore}, in one array: slot `s`'s are entries
   * `restoredStarts[s]` to `restoredEnds[s]` (no object per slot: a million of them cost memory
   * and collector time).
   */
  private restoredTermIds = new Int32Array(0);
  private restoredStarts = new Uint32Array(0);
  private restoredEnds = new Uint32Array(0);
  /** One past the highest slot ever added or restored. */
  private slotEnd = 0;
  /** The gathering of restored slots' term ids, while it has not ended (see {@link restoredTermsSteps}). */
  private restoring: Generator<void, void, void> | undefined;
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
  /** Scratch of {@link search}: the contributions of a window's slots (zero between searches). */
  private contributionScratch = new Float64Array(0);

  /**
   * @param windowSlots - slots per window of the pruned {@link search}, a multiple of 32; default
   *   {@link pruningWindowSlots}. Tests set small windows to prune within small indexes.
   */
  constructor(
    private readonly parameters: Bm25Parameters,
    private readonly windowSlots = pruningWindowSlots,
  ) {
    if (windowSlots <= 0 || windowSlots % 32 !== 0) throw new RangeError(`BM25 window of ${windowSlots} slots: a positive multiple of 32`);
  }

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
        this.postings.push(emptyList(this.averageLength(terms.length)));
        if (termId >= counts.length) counts = this.termCounts = grow(counts, counts.length * 2);
      }
      if (counts[termId] === 0) {
        if (distinctCount === distinct.length) distinct = this.distinctTerms = grow(distinct, distinct.length * 2);
        distinct[distinctCount++] = termId;
      }
      counts[termId] = (counts[termId] as number) + 1;
    }
    const termIds = distinct.slice(0, distinctCount);
    const { k1, b } = this.parameters;
    const lengthFactor = k1 * (1 - b);
    for (let index = 0; index < distinctCount; index++) {
      const termId = termIds[index] as number;
      const frequency = counts[termId] as number;
      counts[termId] = 0;
      const list = this.postings[termId] as PostingList;
      if (list.size === list.slots.length) {
        list.slots = grow(list.slots, list.size * 2);
        list.frequencies = grow(list.frequencies, list.size * 2);
      }
      if (list.size > 0 && slot < (list.slots[list.size - 1] as number)) list.ascending = false;
      list.slots[list.size] = slot;
      list.frequencies[list.size] = frequency;
      list.size++;
      if (!staged) list.documentFrequency++;
      const ratio = frequency / (frequency + lengthFactor + ((k1 * b) / list.boundAverageLength) * terms.length);
      if (ratio > list.ratioBound) list.ratioBound = ratio;
    }
    this.slotTerms[slot] = termIds;
    this.slotEnd = Math.max(this.slotEnd, slot + 1);
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
    for (const termId of this.termsOf(slot)) (this.postings[termId] as PostingList).documentFrequency++;
  }

  /** Removes `slot` (live or staged); removing a dead or unknown slot is a no-op. */
  remove(slot: number): void {
    if (slot < this.live.length && this.live[slot] === 2) {
      this.live[slot] = 0;
      for (const termId of this.termsOf(slot)) (this.postings[termId] as PostingList).dead++;
      this.forgetTerms(slot);
      return;
    }
    if (slot >= this.live.length || this.live[slot] !== 1) return;
    this.live[slot] = 0;
    this.liveCount--;
    this.totalLength -= this.slotLengths[slot] as number;
    for (const termId of this.termsOf(slot)) {
      const list = this.postings[termId] as PostingList;
      list.documentFrequency--;
      list.dead++;
    }
    this.forgetTerms(slot);
  }

  /** The distinct term ids of `slot` (none for a removed or unknown slot). */
  private termsOf(slot: number): Int32Array {
    const added = this.slotTerms[slot];
    if (added) return added;
    this.finishRestore();
    if (slot >= this.restoredStarts.length) return new Int32Array(0);
    return this.restoredTermIds.subarray(this.restoredStarts[slot], this.restoredEnds[slot]);
  }

  private forgetTerms(slot: number): void {
    this.slotTerms[slot] = undefined;
    if (slot < this.restoredEnds.length) this.restoredEnds[slot] = this.restoredStarts[slot] as number;
  }

  /**
   * The `topK` slots with the highest BM25 score for `queryTerms` (analysed terms) among the
   * slots `mask` allows (all when absent), best first, ties broken by the lower slot. Slots that
   * match no query term are never returned.
   *
   * MaxScore (Turtle & Flood, 1995, "Query evaluation: strategies and optimizations", Information
   * Processing & Management 31(6)), document at a time over windows of slots as Lucene's
   * `MaxScoreBulkScorer` does (see also Mallia et al., 2019, "An Experimental Study of Index
   * Compression and DAAT Query Processing Methods", ECIR). Each query term has an upper bound on
   * its contribution: its weight times its list's {@link PostingList.ratioBound}. Terms are
   * ordered by bound; once the top-k is full, the terms whose bounds sum to less than its lowest
   * score are *non-essential*: a slot holding only those cannot enter. Window by window
   * (`windowSlots` slots from the next posting of an essential list, fewer for queries of many
   * terms: {@link maximumWindowContributions}), the essential
   * lists are scored into the accumulator; then each slot so found, in ascending order, looks up
   * its non-essential terms (galloping search, highest bound first), until its score plus the
   * bounds of the terms left falls below the lowest score of the top-k. Slots the mask
   * disallows, removed or staged are skipped before scoring. Each score offered to the top-k is
   * summed in the order of the query's terms, as {@link searchExhaustively} sums it, so both
   * return the same slots with the same scores, bit for bit.
   */
  search(queryTerms: readonly string[], topK: number, mask?: SlotMask): IdScore[] {
    if (this.liveCount === 0 || topK <= 0) return [];
    const terms = this.queryTermsOf(queryTerms);
    const count = terms.length;
    if (count === 0) return [];
    const averageLength = this.averageLength(0);
    const { k1, b } = this.parameters;
    const lengthFactor = k1 * (1 - b);
    const lengthSlope = (k1 * b) / averageLength;
    const live = this.live;
    const lengths = this.slotLengths;
    const scores = this.scores;
    const windowSlots = Math.max(32, Math.min(this.windowSlots, 32 * Math.floor(maximumWindowContributions / (32 * count))));
    /** One bit per slot of the window: set when an essential list holds it. */
    const found = new Int32Array(windowSlots / 32);
    // Terms by ascending bound; `positions[i]` is term i's place in the query (the order scores are summed in).
    const bounds = terms.map(({ list, weight }) => weight * this.ratioBoundAt(list, averageLength) * (1 + boundSlack));
    const order = Array.from(terms.keys()).sort((left, right) => (bounds[left] as number) - (bounds[right] as number));
    const lists = order.map((term) => (terms[term] as QueryTerm).list);
    const weights = Float64Array.from(order, (term) => (terms[term] as QueryTerm).weight);
    const positions = Int32Array.from(order);
    /** `boundsBelow[i]`: the sum of the bounds of terms 0 to i (in bound order). */
    const boundsBelow = new Float64Array(count);
    let sum = 0;
    for (let term = 0; term < count; term++) {
      sum += bounds[order[term] as number] as number;
      boundsBelow[term] = sum;
    }
    const cursors = new Int32Array(count);
    /** Per slot of the window (row) and query term (column), the slot's contribution; 0 elsewhere. */
    const contributions = this.windowContributions(windowSlots * count);
    const best = new TopK(topK);
    let threshold = Number.NEGATIVE_INFINITY;
    let firstEssential = 0;
    while (firstEssential < count) {
      let windowStart = 0x7fffffff;
      for (let term = firstEssential; term < count; term++) {
        const list = lists[term] as PostingList;
        const cursor = cursors[term] as number;
        if (cursor < list.size) windowStart = Math.min(windowStart, list.slots[cursor] as number);
      }
      if (windowStart === 0x7fffffff) break;
      const windowEnd = windowStart + windowSlots;
      // The essential lists' postings in the window, into the accumulator; `found` marks their slots.
      for (let term = firstEssential; term < count; term++) {
        const { slots, frequencies, size } = lists[term] as PostingList;
        const weight = weights[term] as number;
        const column = positions[term] as number;
        let cursor = cursors[term] as number;
        for (; cursor < size; cursor++) {
          const slot = slots[cursor] as number;
          if (slot >= windowEnd) break;
          if (live[slot] !== 1 || (mask !== undefined && mask[slot] !== 1)) continue;
          const frequency = frequencies[cursor] as number;
          const contribution = (weight * frequency) / (frequency + lengthFactor + lengthSlope * (lengths[slot] as number));
          const offset = slot - windowStart;
          found[offset >>> 5] = (found[offset >>> 5] as number) | (1 << (offset & 31));
          scores[slot] = (scores[slot] as number) + contribution;
          contributions[offset * count + column] = contribution;
        }
        cursors[term] = cursor;
      }
      // Each slot found, in ascending order: the non-essential terms, while it can still enter.
      for (let word = 0; word < found.length; word++) {
        let bits = found[word] as number;
        found[word] = 0;
        while (bits !== 0) {
          const bit = 31 - Math.clz32(bits & -bits);
          bits &= bits - 1;
          const offset = (word << 5) | bit;
          const slot = windowStart + offset;
          const row = offset * count;
          let score = scores[slot] as number;
          scores[slot] = 0;
          let term = firstEssential - 1;
          for (; term >= 0; term--) {
            if (score + (boundsBelow[term] as number) < threshold) break;
            const { slots, frequencies, size } = lists[term] as PostingList;
            const cursor = advance(slots, cursors[term] as number, size, slot);
            cursors[term] = cursor;
            if (cursor >= size || slots[cursor] !== slot) continue;
            const frequency = frequencies[cursor] as number;
            const contribution =
              ((weights[term] as number) * frequency) / (frequency + lengthFactor + lengthSlope * (lengths[slot] as number));
            contributions[row + (positions[term] as number)] = contribution;
            score += contribution;
          }
          if (term >= 0) {
            // Pruned: only the terms after `term` wrote contributions.
            for (term++; term < count; term++) contributions[row + (positions[term] as number)] = 0;
            continue;
          }
          let total = 0;
          for (let column = 0; column < count; column++) {
            total += contributions[row + column] as number;
            contributions[row + column] = 0;
          }
          best.offer(slot, total);
          threshold = best.threshold;
        }
      }
      // A higher threshold makes more terms non-essential from the next window on.
      while (firstEssential < count && (boundsBelow[firstEssential] as number) < threshold) firstEssential++;
    }
    return best.sorted();
  }

  /** The scratch of {@link search}, at least `length` contributions, all 0 (each search leaves the entries it wrote at 0). */
  private windowContributions(length: number): Float64Array {
    if (this.contributionScratch.length < length) this.contributionScratch = new Float64Array(length);
    return this.contributionScratch;
  }

  /**
   * The same results as {@link search}, found by scoring every posting of every query term into
   * an accumulator, term at a time, then selecting the top-k: the reference the pruned search is
   * tested against.
   */
  searchExhaustively(queryTerms: readonly string[], topK: number, mask?: SlotMask): IdScore[] {
    if (this.liveCount === 0 || topK <= 0) return [];
    const terms = this.queryTermsOf(queryTerms);
    const scores = this.scores;
    const touched = this.touched;
    let touchedCount = 0;
    try {
      touchedCount = this.accumulate(terms, mask);
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

  /**
   * The known query terms with a live posting, each once in order of first occurrence (the order
   * scores are summed in), weighted by how often the query repeats it. Compacts lists that are
   * mostly dead and sorts lists an out-of-order addition left unsorted.
   */
  private queryTermsOf(queryTerms: readonly string[]): QueryTerm[] {
    const queryFrequencies = new Map<number, number>();
    for (const term of queryTerms) {
      const termId = this.terms.get(term);
      if (termId !== undefined) queryFrequencies.set(termId, (queryFrequencies.get(termId) ?? 0) + 1);
    }
    const { k1 } = this.parameters;
    const terms: QueryTerm[] = [];
    for (const [termId, queryFrequency] of queryFrequencies) {
      const list = this.postings[termId] as PostingList;
      if (list.documentFrequency === 0) continue;
      if (list.dead > list.size / 2) this.compact(list);
      if (!list.ascending) this.sortList(list);
      const idf = Math.log(1 + (this.liveCount - list.documentFrequency + 0.5) / (list.documentFrequency + 0.5));
      terms.push({ list, weight: idf * (k1 + 1) * queryFrequency });
    }
    return terms;
  }

  /** The average length of the live slots (avgdl), or `fallback` (else 1) while it is 0. */
  private averageLength(fallback: number): number {
    return this.totalLength / this.liveCount || fallback || 1;
  }

  /**
   * A bound on `tf / (tf + k1 · (1 − b + b · |d| / averageLength))` over the list's postings:
   * its {@link PostingList.ratioBound}, computed again when the average length drifted beyond
   * {@link boundMaximumDrift} from the one it was computed at, else rescaled by the drift (the
   * ratio grows at most as fast as the average length, and never reaches 1).
   */
  private ratioBoundAt(list: PostingList, averageLength: number): number {
    const drift = averageLength / list.boundAverageLength;
    if (drift > 1 + boundMaximumDrift || drift < 1 / (1 + boundMaximumDrift)) {
      this.computeRatioBound(list, averageLength);
      return list.ratioBound;
    }
    return Math.min(1, list.ratioBound * Math.max(1, drift));
  }

  /** Sets the list's {@link PostingList.ratioBound} at `averageLength` from its postings (dead ones included). */
  private computeRatioBound(list: PostingList, averageLength: number): void {
    const { k1, b } = this.parameters;
    const lengthFactor = k1 * (1 - b);
    const lengthSlope = (k1 * b) / averageLength;
    let bound = 0;
    for (let index = 0; index < list.size; index++) {
      const frequency = list.frequencies[index] as number;
      const ratio = frequency / (frequency + lengthFactor + lengthSlope * (this.slotLengths[list.slots[index] as number] as number));
      if (ratio > bound) bound = ratio;
    }
    list.ratioBound = bound;
    list.boundAverageLength = averageLength;
  }

  /** Sorts the list's postings by slot (slots are distinct within a list), using the score accumulator as scratch. */
  private sortList(list: PostingList): void {
    const scratch = this.scores;
    const slots = list.slots.subarray(0, list.size);
    for (let index = 0; index < list.size; index++) scratch[slots[index] as number] = list.frequencies[index] as number;
    slots.sort();
    for (let index = 0; index < list.size; index++) {
      const slot = slots[index] as number;
      list.frequencies[index] = scratch[slot] as number;
      scratch[slot] = 0;
    }
    list.ascending = true;
  }

  /** Adds every query term's BM25 contribution into the shared accumulator; returns how many slots it touched. */
  private accumulate(terms: readonly QueryTerm[], mask: SlotMask | undefined): number {
    const { k1, b } = this.parameters;
    const averageLength = this.averageLength(0);
    const scores = this.scores;
    const touched = this.touched;
    const live = this.live;
    const lengths = this.slotLengths;
    const lengthFactor = k1 * (1 - b);
    const lengthSlope = (k1 * b) / averageLength;
    let touchedCount = 0;
    for (const { list, weight } of terms) {
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

  /**
   * The live postings keyed by row id, copied a step at a time (yielding every 65,536 postings or
   * slots): run it with `runInSlices` so that a million chunks' postings (about 10^8) never hold
   * the event loop for more than a slice. Slots live when the copy starts are taken, unless
   * `rowIdOf` no longer knows them by the time they are reached; slots added, revealed or removed
   * meanwhile may be partly in it: the caller records the change log position before starting,
   * and whoever loads the copy takes documents changed after that position from the database
   * again. Terms left without postings (those of deleted documents) are not in the copy.
   *
   * @param rowIdOf - the SQLite row id of a live slot, undefined for a removed one.
   */
  *capture(rowIdOf: (slot: number) => number | undefined): Generator<void, Bm25Postings, void> {
    const slotCount = this.slotEnd;
    const termCount = this.postings.length;
    const rowOfSlot = new Int32Array(slotCount).fill(-1);
    const capacity = this.liveCount;
    let rowIds = new Float64Array(capacity);
    let lengths = new Uint32Array(capacity);
    let rows = 0;
    let sorted = true;
    for (let slot = 0; slot < slotCount; slot++) {
      if ((slot & (postingsPerStep - 1)) === postingsPerStep - 1) yield;
      if (this.live[slot] !== 1 || rows === capacity) continue;
      const rowId = rowIdOf(slot);
      if (rowId === undefined) continue;
      if (rows > 0 && rowId <= (rowIds[rows - 1] as number)) sorted = false;
      rowOfSlot[slot] = rows;
      rowIds[rows] = rowId;
      lengths[rows] = this.slotLengths[slot] as number;
      rows++;
    }
    let total = 0;
    for (let termId = 0; termId < termCount; termId++) total += (this.postings[termId] as PostingList).size;
    const postingRows = new Uint32Array(total);
    let frequencies: Uint16Array | Uint32Array = new Uint16Array(total);
    const termStarts: number[] = [0];
    const terms: string[] = [];
    const vocabulary = this.terms.keys();
    let written = 0;
    let work = 0;
    for (let termId = 0; termId < termCount; termId++) {
      const term = vocabulary.next().value as string;
      const list = this.postings[termId] as PostingList;
      const start = written;
      // No yield inside one list: it may be compacted or grown between two steps, never within one.
      for (let index = 0; index < list.size && written < total; index++) {
        const slot = list.slots[index] as number;
        if (slot >= slotCount) continue;
        const row = rowOfSlot[slot] as number;
        if (row < 0) continue;
        const frequency = list.frequencies[index] as number;
        if (frequency > 0xffff && frequencies instanceof Uint16Array) frequencies = Uint32Array.from(frequencies);
        postingRows[written] = row;
        frequencies[written] = frequency;
        written++;
      }
      if (written > start) {
        terms.push(term);
        termStarts.push(written);
      }
      work += list.size;
      if (work >= postingsPerStep) {
        work = 0;
        yield;
      }
    }
    rowIds = rowIds.subarray(0, rows);
    lengths = lengths.subarray(0, rows);
    const postings: Bm25Postings = {
      rowIds,
      lengths,
      terms,
      termStarts: Uint32Array.from(termStarts),
      postingRows: postingRows.subarray(0, written),
      frequencies: frequencies.subarray(0, written),
    };
    return sorted ? postings : sortedByRowId(postings);
  }

  /**
   * Puts saved postings into this index, which must be empty (no term added yet): row `r` of
   * `postings` becomes slot `slotOfRow[r]`, live; rows mapped to -1 are left out (removed or
   * changed since the postings were saved: the caller adds them from the database). Yields every
   * 65,536 postings, so it can run in slices before the index is searched. Each slot's term ids
   * are gathered afterwards ({@link restoredTermsSteps}).
   *
   * @throws {RangeError} when the postings are inconsistent (a row or term start out of range);
   *   the index is then unusable and the caller rebuilds it from the database.
   */
  *restore(postings: Bm25Postings, slotOfRow: Int32Array): Generator<void, void, void> {
    if (this.postings.length > 0 || this.liveCount > 0) throw new RangeError("BM25 postings can only be restored into an empty index");
    const { rowIds, lengths, terms, termStarts, postingRows, frequencies } = postings;
    const rowCount = rowIds.length;
    if (lengths.length !== rowCount || slotOfRow.length !== rowCount || termStarts.length !== terms.length + 1) {
      throw new RangeError("BM25 postings: section lengths disagree");
    }
    if (termStarts[terms.length] !== postingRows.length || frequencies.length !== postingRows.length) {
      throw new RangeError("BM25 postings: the postings do not end where the terms say");
    }
    let slotEnd = 0;
    let restoredLength = 0;
    let restoredRows = 0;
    for (let row = 0; row < rowCount; row++) {
      const slot = slotOfRow[row] as number;
      slotEnd = Math.max(slotEnd, slot + 1);
      if (slot < 0) continue;
      restoredLength += lengths[row] as number;
      restoredRows++;
    }
    this.ensureSlotCapacity(slotEnd);
    // The contribution bounds are computed at the restored rows' average length.
    const bound = { ...this.parameters, lengths, averageLength: restoredLength / restoredRows || 1 };
    if (this.termCounts.length < terms.length) this.termCounts = new Int32Array(terms.length);
    for (let termId = 0; termId < terms.length; termId++) {
      const start = termStarts[termId] as number;
      const end = termStarts[termId + 1] as number;
      if (end < start) throw new RangeError(`BM25 postings: term ${termId} ends before it starts`);
      this.terms.set(terms[termId] as string, termId);
      this.postings.push(
        frequencies instanceof Uint16Array
          ? restoredList(postingRows, frequencies, slotOfRow, start, end, bound)
          : restoredList(postingRows, frequencies, slotOfRow, start, end, bound),
      );
      if (end - start >= postingsPerStep || (termId & 1023) === 1023) yield;
    }
    if (this.terms.size !== terms.length) throw new RangeError("BM25 postings: a term appears twice");
    this.slotEnd = slotEnd;
    for (let row = 0; row < rowCount; row++) {
      const slot = slotOfRow[row] as number;
      if (slot < 0) continue;
      const length = lengths[row] as number;
      this.slotLengths[slot] = length;
      this.live[slot] = 1;
      this.liveCount++;
      this.totalLength += length;
      if ((row & (postingsPerStep - 1)) === postingsPerStep - 1) yield;
    }
    const steps = this.gatherRestoredTerms(postings, slotOfRow, slotEnd);
    this.restoring = steps;
  }

  /**
   * After {@link restore}: the steps that gather each restored slot's term ids (which only
   * {@link remove} needs), to run in the background once the index is searched. A removal of a
   * restored slot before they ended runs the rest at once. Done at once when nothing is pending.
   */
  restoredTermsSteps(): Iterator<void, void, void> {
    return this.restoring ?? [][Symbol.iterator]();
  }

  /** Runs what is left of the gathering of restored slots' term ids, at once. */
  private finishRestore(): void {
    const steps = this.restoring;
    if (steps) for (let step = steps.next(); !step.done; step = steps.next());
  }

  /**
   * Each restored row's term ids (the transpose of the postings), a block of rows at a time:
   * every term's postings ascend by row, so a block's writes stay within a few MB of the array
   * (written in posting order, nearly every write missed the cache: 8 of 9 s of a restore at a
   * million rows).
   */
  private *gatherRestoredTerms(postings: Bm25Postings, slotOfRow: Int32Array, slotEnd: number): Generator<void, void, void> {
    const { termStarts, postingRows } = postings;
    const rowCount = slotOfRow.length;
    const termsPerRow = new Uint32Array(rowCount + 1);
    for (let index = 0; index < postingRows.length; index++) {
      const row = postingRows[index] as number;
      termsPerRow[row + 1] = (termsPerRow[row + 1] as number) + 1;
      if ((index & (postingsPerStep - 1)) === postingsPerStep - 1) yield;
    }
    for (let row = 0; row < rowCount; row++) termsPerRow[row + 1] = (termsPerRow[row + 1] as number) + (termsPerRow[row] as number);
    const rowTermIds = new Int32Array(postingRows.length);
    const cursor = termsPerRow.slice(0, rowCount);
    const termCursor = termStarts.slice(0, termStarts.length - 1);
    for (let blockStart = 0; blockStart < rowCount; blockStart += transposeBlockRows) {
      transposeBlock(postingRows, termStarts, slotOfRow, termCursor, cursor, rowTermIds, blockStart + transposeBlockRows);
      yield;
    }
    const starts = new Uint32Array(slotEnd);
    const ends = new Uint32Array(slotEnd);
    for (let row = 0; row < rowCount; row++) {
      const slot = slotOfRow[row] as number;
      if (slot < 0) continue;
      starts[slot] = termsPerRow[row] as number;
      // A slot removed meanwhile finished this first (see `termsOf`): never here with it removed.
      ends[slot] = termsPerRow[row + 1] as number;
    }
    this.restoredTermIds = rowTermIds;
    this.restoredStarts = starts;
    this.restoredEnds = ends;
    this.restoring = undefined;
  }

  /** Drops the postings of removed slots (keeping their order) and computes the list's contribution bound again. */
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
    this.computeRatioBound(list, this.averageLength(0));
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

/** A posting list with no postings yet, its contribution bound to be computed at `averageLength`. */
function emptyList(averageLength: number): PostingList {
  return {
    slots: new Int32Array(4),
    frequencies: new Int32Array(4),
    size: 0,
    dead: 0,
    documentFrequency: 0,
    ascending: true,
    ratioBound: 0,
    boundAverageLength: averageLength,
  };
}

/**
 * A restored posting list: the postings `start` to `end` of rows given a slot, as slots, with its
 * contribution bound at `bound.averageLength` (rows' lengths in `bound.lengths`).
 *
 * @throws {RangeError} for a row out of range.
 */
function restoredList(
  postingRows: Uint32Array,
  frequencies: Uint16Array | Uint32Array,
  slotOfRow: Int32Array,
  start: number,
  end: number,
  bound: Bm25Parameters & { lengths: Uint32Array; averageLength: number },
): PostingList {
  // Sized for every posting (rows left out leave room that `add` fills later): one pass.
  const slots = new Int32Array(Math.max(end - start, 4));
  const listFrequencies = new Int32Array(Math.max(end - start, 4));
  const lengthFactor = bound.k1 * (1 - bound.b);
  const lengthSlope = (bound.k1 * bound.b) / bound.averageLength;
  let size = 0;
  let ascending = true;
  let ratioBound = 0;
  for (let index = start; index < end; index++) {
    const row = postingRows[index] as number;
    if (row >= slotOfRow.length) throw new RangeError(`BM25 postings: row ${row} of ${slotOfRow.length}`);
    const slot = slotOfRow[row] as number;
    if (slot < 0) continue;
    if (size > 0 && slot < (slots[size - 1] as number)) ascending = false;
    const frequency = frequencies[index] as number;
    slots[size] = slot;
    listFrequencies[size] = frequency;
    size++;
    const ratio = frequency / (frequency + lengthFactor + lengthSlope * (bound.lengths[row] as number));
    if (ratio > ratioBound) ratioBound = ratio;
  }
  return {
    slots,
    frequencies: listFrequencies,
    size,
    dead: 0,
    documentFrequency: size,
    ascending,
    ratioBound,
    boundAverageLength: bound.averageLength,
  };
}

/**
 * The first index from `from` (below `size`) whose slot is at least `target`, or `size`:
 * galloping (exponential) search then binary search (Bentley & Yao, 1976, "An almost optimal
 * algorithm for unbounded searching"), so that skipping d postings costs O(log d).
 */
function advance(slots: Int32Array, from: number, size: number, target: number): number {
  if (from >= size || (slots[from] as number) >= target) return from;
  let low = from;
  let step = 1;
  let high = from + 1;
  while (high < size && (slots[high] as number) < target) {
    low = high;
    step *= 2;
    high = low + step;
  }
  if (high > size) high = size;
  // slots[low] < target; the answer is in (low, high].
  while (low + 1 < high) {
    const middle = (low + high) >>> 1;
    if ((slots[middle] as number) < target) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * One block of the transpose of {@link Bm25Index.restore}: appends, for every term, its postings
 * of rows below `blockEnd` (from `termCursor`, which it advances) to those rows' term ids.
 */
function transposeBlock(
  postingRows: Uint32Array,
  termStarts: Uint32Array,
  slotOfRow: Int32Array,
  termCursor: Uint32Array,
  rowCursor: Uint32Array,
  rowTermIds: Int32Array,
  blockEnd: number,
): void {
  const termCount = termCursor.length;
  for (let termId = 0; termId < termCount; termId++) {
    const end = termStarts[termId + 1] as number;
    let index = termCursor[termId] as number;
    for (; index < end; index++) {
      const row = postingRows[index] as number;
      if (row >= blockEnd) break;
      if ((slotOfRow[row] as number) < 0) continue;
      const position = rowCursor[row] as number;
      rowTermIds[position] = termId;
      rowCursor[row] = position + 1;
    }
    termCursor[termId] = index;
  }
}

/** `postings` with its rows in ascending row id order (slots given out of row order: rare). */
function sortedByRowId(postings: Bm25Postings): Bm25Postings {
  const order = Array.from(postings.rowIds.keys()).sort(
    (left, right) => (postings.rowIds[left] as number) - (postings.rowIds[right] as number),
  );
  const newRow = new Uint32Array(order.length);
  order.forEach((row, position) => {
    newRow[row] = position;
  });
  return {
    ...postings,
    rowIds: Float64Array.from(order, (row) => postings.rowIds[row] as number),
    lengths: Uint32Array.from(order, (row) => postings.lengths[row] as number),
    postingRows: postings.postingRows.map((row) => newRow[row] as number),
  };
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
