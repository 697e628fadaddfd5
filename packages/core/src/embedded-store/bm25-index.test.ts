import { describe, expect, it } from "vitest";
import { mulberry32 } from "../raptor/cluster-vectors.js";
import { Bm25Index, type SlotMask } from "./bm25-index.js";
import { runToEnd } from "./time-slice.js";

const k1 = 1.2;
const b = 0.75;

/** idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) */
function idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** One term's contribution: idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)) */
function termScore(termIdf: number, termFrequency: number, documentLength: number, averageLength: number): number {
  return (termIdf * termFrequency * (k1 + 1)) / (termFrequency + k1 * (1 - b + (b * documentLength) / averageLength));
}

/*
 * The toy corpus (already analysed terms):
 *   slot 0: cat sat mat                  dl = 3
 *   slot 1: cat cat dog                  dl = 3
 *   slot 2: dog bird bird fish tree sun  dl = 6
 * N = 3, avgdl = (3 + 3 + 6) / 3 = 4; df(cat) = 2, df(dog) = 2, df(bird) = 1.
 */
function toyIndex(): Bm25Index {
  const index = new Bm25Index({ k1, b });
  index.add(0, ["cat", "sat", "mat"]);
  index.add(1, ["cat", "cat", "dog"]);
  index.add(2, ["dog", "bird", "bird", "fish", "tree", "sun"]);
  return index;
}

describe("Bm25Index", () => {
  it("counts live slots", () => {
    expect(toyIndex().size).toBe(3);
    expect(new Bm25Index({ k1, b }).size).toBe(0);
  });

  it("scores a single term by hand-computed Okapi BM25", () => {
    // idf(cat) = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln(1.6)
    // slot 1: tf 2, dl 3 → ln(1.6) · 2 · 2.2 / (2 + 1.2 · (0.25 + 0.75 · 3/4)) = ln(1.6) · 4.4 / 2.975
    // slot 0: tf 1, dl 3 → ln(1.6) · 2.2 / 1.975
    const results = toyIndex().search(["cat"], 10);
    expect(results.map((result) => result.id)).toEqual([1, 0]);
    expect(results[0]?.score).toBeCloseTo((Math.log(1.6) * 4.4) / 2.975, 12);
    expect(results[1]?.score).toBeCloseTo((Math.log(1.6) * 2.2) / 1.975, 12);
    expect(results[1]?.score).toBeCloseTo(0.523548, 6);
    expect(results[0]?.score).toBeCloseTo(termScore(idf(3, 2), 2, 3, 4), 12);
  });

  it("sums the terms of a multi-term query and ranks by the total", () => {
    const idfCat = idf(3, 2);
    const idfDog = idf(3, 2);
    const idfBird = idf(3, 1);
    // slot 2 ≈ 0.3902 + 1.1823 = 1.5726, slot 1 ≈ 0.6951 + 0.5235 = 1.2187, slot 0 ≈ 0.524
    const expected = [
      { id: 2, score: termScore(idfDog, 1, 6, 4) + termScore(idfBird, 2, 6, 4) },
      { id: 1, score: termScore(idfCat, 2, 3, 4) + termScore(idfDog, 1, 3, 4) },
      { id: 0, score: termScore(idfCat, 1, 3, 4) },
    ];
    expect(expected[0]?.score).toBeCloseTo(1.5726, 4);
    expect(expected[1]?.score).toBeCloseTo(1.2187, 4);
    const results = toyIndex().search(["cat", "dog", "bird"], 10);
    expect(results.map((result) => result.id)).toEqual([2, 1, 0]);
    results.forEach((result, position) => {
      expect(result.score).toBeCloseTo(expected[position]?.score as number, 12);
    });
  });

  it("penalises longer documents for the same term frequency", () => {
    // dog: tf 1 in slot 1 (dl 3) and slot 2 (dl 6)
    const results = toyIndex().search(["dog"], 10);
    expect(results.map((result) => result.id)).toEqual([1, 2]);
    expect(results[0]?.score).toBeCloseTo(termScore(idf(3, 2), 1, 3, 4), 12);
    expect(results[1]?.score).toBeCloseTo(termScore(idf(3, 2), 1, 6, 4), 12);
  });

  it("counts a repeated query term twice", () => {
    const index = toyIndex();
    const once = index.search(["cat"], 10);
    const twice = index.search(["cat", "cat"], 10);
    expect(twice.map((result) => result.id)).toEqual([1, 0]);
    expect(twice[0]?.score).toBeCloseTo(2 * (once[0]?.score as number), 12);
    expect(twice[1]?.score).toBeCloseTo(2 * (once[1]?.score as number), 12);
  });

  it("returns the same scores on repeated searches (score buffers are reset)", () => {
    const index = toyIndex();
    const first = index.search(["cat", "dog"], 10);
    const second = index.search(["cat", "dog"], 10);
    expect(second).toEqual(first);
  });

  it("returns only the topK best slots", () => {
    const results = toyIndex().search(["cat", "dog", "bird"], 2);
    expect(results.map((result) => result.id)).toEqual([2, 1]);
  });

  it("never returns slots that match no query term", () => {
    expect(
      toyIndex()
        .search(["bird"], 10)
        .map((result) => result.id),
    ).toEqual([2]);
  });

  it("returns [] for terms the index does not know", () => {
    expect(toyIndex().search(["zebra", "unicorn"], 10)).toEqual([]);
    expect(toyIndex().search([], 10)).toEqual([]);
  });

  it("ignores unknown terms mixed with known ones", () => {
    const index = toyIndex();
    expect(index.search(["zebra", "bird"], 10)).toEqual(index.search(["bird"], 10));
  });

  it("returns [] for topK = 0 and for an empty index", () => {
    expect(toyIndex().search(["cat"], 0)).toEqual([]);
    expect(new Bm25Index({ k1, b }).search(["cat"], 5)).toEqual([]);
  });

  it("updates N, df and avgdl when a slot is removed", () => {
    const index = toyIndex();
    index.remove(2);
    expect(index.size).toBe(2);
    // Now N = 2, avgdl = (3 + 3) / 2 = 3, df(dog) = 1, df(cat) = 2.
    const dog = index.search(["dog"], 10);
    expect(dog.map((result) => result.id)).toEqual([1]);
    expect(dog[0]?.score).toBeCloseTo(termScore(idf(2, 1), 1, 3, 3), 12);
    const cat = index.search(["cat"], 10);
    expect(cat.map((result) => result.id)).toEqual([1, 0]);
    expect(cat[0]?.score).toBeCloseTo(termScore(idf(2, 2), 2, 3, 3), 12);
    expect(cat[1]?.score).toBeCloseTo(termScore(idf(2, 2), 1, 3, 3), 12);
    // The score differs from the one before the removal.
    expect(cat[1]?.score).not.toBeCloseTo(termScore(idf(3, 2), 1, 3, 4), 6);
  });

  it("returns [] for a term whose only document was removed", () => {
    const index = toyIndex();
    index.remove(2);
    expect(index.search(["bird"], 10)).toEqual([]);
  });

  it("treats removing an unknown or already removed slot as a no-op", () => {
    const index = toyIndex();
    index.remove(2);
    index.remove(2);
    index.remove(99_999);
    expect(index.size).toBe(2);
    expect(index.search(["dog"], 10)[0]?.score).toBeCloseTo(termScore(idf(2, 1), 1, 3, 3), 12);
  });

  it("stays correct after most of a posting list is removed (compaction)", () => {
    const index = new Bm25Index({ k1, b });
    // Slot s holds "cat" (s % 3 + 1) times and one word of its own.
    for (let slot = 0; slot < 10; slot++) index.add(slot, [...Array(1 + (slot % 3)).fill("cat"), `word${slot}`]);
    for (let slot = 0; slot < 8; slot++) index.remove(slot);
    // Survivors: slot 8 (tf 3, dl 4) and slot 9 (tf 1, dl 2); N = 2, avgdl = 3, df(cat) = 2.
    const first = index.search(["cat"], 10);
    expect(first).toEqual([
      { id: 8, score: expect.closeTo(termScore(idf(2, 2), 3, 4, 3), 12) },
      { id: 9, score: expect.closeTo(termScore(idf(2, 2), 1, 2, 3), 12) },
    ]);
    // Adding after compaction: slot 10 (tf 2, dl 2); N = 3, avgdl = 8 / 3, df(cat) = 3.
    index.add(10, ["cat", "cat"]);
    const second = index.search(["cat"], 10);
    const expected = [
      { id: 8, score: termScore(idf(3, 3), 3, 4, 8 / 3) },
      { id: 10, score: termScore(idf(3, 3), 2, 2, 8 / 3) },
      { id: 9, score: termScore(idf(3, 3), 1, 2, 8 / 3) },
    ].sort((left, right) => right.score - left.score);
    expect(second.map((result) => result.id)).toEqual(expected.map((result) => result.id));
    second.forEach((result, position) => {
      expect(result.score).toBeCloseTo(expected[position]?.score as number, 12);
    });
    expect(index.search(["word3"], 10)).toEqual([]);
  });

  it("keeps a staged slot out of searches and statistics until revealed; removing it leaves no trace", () => {
    const index = toyIndex();
    const before = index.search(["cat"], 10);
    index.add(3, ["cat", "cat", "cat"], true);
    expect(index.size).toBe(3);
    expect(index.search(["cat"], 10)).toEqual(before);
    index.reveal(3);
    expect(index.size).toBe(4);
    // N = 4, avgdl = 15 / 4, df(cat) = 3: slot 3 now ranks first.
    const averageLength = 15 / 4;
    expect(index.search(["cat"], 1)).toEqual([{ id: 3, score: termScore(idf(4, 3), 3, 3, averageLength) }]);
    index.add(4, ["cat"], true);
    index.remove(4);
    index.reveal(4);
    expect(index.size).toBe(4);
    expect(index.search(["cat"], 10).map((result) => result.id)).not.toContain(4);
  });

  it("keeps staged postings through a compaction of their list", () => {
    const index = new Bm25Index({ k1, b });
    for (let slot = 0; slot < 10; slot++) index.add(slot, ["word"]);
    index.add(10, ["word"], true);
    for (let slot = 0; slot < 9; slot++) index.remove(slot);
    // Most of the list is dead: this search compacts it, and must keep the staged slot's posting.
    expect(index.search(["word"], 10).map((result) => result.id)).toEqual([9]);
    index.reveal(10);
    expect(
      index
        .search(["word"], 10)
        .map((result) => result.id)
        .sort(),
    ).toEqual([10, 9].sort());
  });

  it("grows past its initial slot capacity", () => {
    const index = new Bm25Index({ k1, b });
    index.add(5000, ["rare"]);
    index.add(0, ["common"]);
    expect(index.search(["rare"], 5).map((result) => result.id)).toEqual([5000]);
    expect(index.size).toBe(2);
  });

  describe("slot mask", () => {
    const maskOf = (slots: number, allowed: (slot: number) => boolean) =>
      Uint8Array.from({ length: slots }, (_, slot) => (allowed(slot) ? 1 : 0));

    it("filters before scoring, keeping N and avgdl of all live slots", () => {
      const index = toyIndex();
      const results = index.search(
        ["cat"],
        1,
        maskOf(3, (slot) => slot !== 1),
      );
      // Slot 1 ranks first unfiltered; the filtered top-1 is slot 0 with its unfiltered score.
      expect(results).toHaveLength(1);
      expect(results[0]?.id).toBe(0);
      expect(results[0]?.score).toBeCloseTo(termScore(idf(3, 2), 1, 3, 4), 12);
    });

    it("returns the best allowed slots even when they rank below k disallowed ones", () => {
      const index = new Bm25Index({ k1, b });
      // Slot s holds "term" s + 1 times, padded to the same length, so the score rises with s.
      for (let slot = 0; slot < 20; slot++) {
        index.add(slot, [...Array(slot + 1).fill("term"), ...Array(20 - slot).fill(`pad${slot}`)]);
      }
      const unfiltered = index.search(["term"], 5);
      expect(unfiltered.map((result) => result.id)).toEqual([19, 18, 17, 16, 15]);
      const filtered = index.search(
        ["term"],
        3,
        maskOf(20, (slot) => slot % 2 === 0 && slot < 12),
      );
      expect(filtered.map((result) => result.id)).toEqual([10, 8, 6]);
      const all = index.search(["term"], 20);
      for (const result of filtered) {
        expect(result.score).toBe(all.find((candidate) => candidate.id === result.id)?.score);
      }
    });

    it("treats slots beyond the mask's length as not allowed", () => {
      expect(
        toyIndex()
          .search(
            ["cat"],
            10,
            maskOf(1, () => true),
          )
          .map((result) => result.id),
      ).toEqual([0]);
    });

    it("returns [] when the mask allows no slot", () => {
      expect(
        toyIndex().search(
          ["cat", "dog"],
          10,
          maskOf(3, () => false),
        ),
      ).toEqual([]);
    });
  });

  describe("pruned top-k (MaxScore) against the exhaustive search", () => {
    /** A vocabulary small enough for long posting lists, with a Zipf-like skew. */
    const vocabulary = Array.from({ length: 60 }, (_, index) => `t${index}`);

    /** A random document: 1 to 40 terms, or a copy of an earlier one (equal scores: ties). */
    function randomTerms(random: () => number, earlier: string[][], lengthScale: number): string[] {
      if (earlier.length > 0 && random() < 0.15) return earlier[Math.floor(random() * earlier.length)] as string[];
      const length = 1 + Math.floor(random() * 40 * lengthScale);
      return Array.from({ length }, () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] as string);
    }

    /** A random query: 1 to 8 terms, some repeated, some unknown to the index. */
    function randomQuery(random: () => number): string[] {
      const length = 1 + Math.floor(random() * 8);
      const query = Array.from({ length }, () =>
        random() < 0.1 ? `unknown${Math.floor(random() * 3)}` : (vocabulary[Math.floor(vocabulary.length * random())] as string),
      );
      if (random() < 0.3) query.push(query[0] as string);
      return query;
    }

    /** No mask, a mask allowing a random share (0 to 100 %) of slots, or one shorter than the slots. */
    function randomMask(random: () => number, slots: number): SlotMask | undefined {
      const kind = random();
      if (kind < 0.3) return undefined;
      const share = random();
      const length = kind < 0.4 ? Math.floor(slots * random()) : slots;
      return Uint8Array.from({ length }, () => (random() < share ? 1 : 0));
    }

    /** Compares both searches on random queries; returns how many results they gave. */
    function compare(index: Bm25Index, random: () => number, slots: number, queries: number): number {
      let results = 0;
      for (let query = 0; query < queries; query++) {
        const terms = randomQuery(random);
        const k = random() < 0.2 ? 1 + Math.floor(random() * slots * 2) : 1 + Math.floor(random() * 5);
        const mask = randomMask(random, slots);
        const exhaustive = index.searchExhaustively(terms, k, mask);
        // Same slots, same order, bit-identical scores.
        expect(index.search(terms, k, mask)).toEqual(exhaustive);
        results += exhaustive.length;
      }
      return results;
    }

    it("returns the same slots, scores and tie order on random indexes with removals, staging and masks", () => {
      let results = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const random = mulberry32(seed);
        // Windows of 32 to 256 slots: the threshold and the essential terms change many times per search.
        const index = new Bm25Index({ k1: 0.9 + random(), b: random() }, 32 * (1 + Math.floor(random() * 8)));
        const documents: string[][] = [];
        const staged: number[] = [];
        const slotCount = 50 + Math.floor(random() * 600);
        // Slots are added mostly in order, some out of order (as a reopen adds changed rows after restoring the rest).
        const slots = Array.from({ length: slotCount }, (_, slot) => slot);
        for (let swap = 0; swap < slotCount / 20; swap++) {
          const left = Math.floor(random() * slotCount);
          const right = Math.floor(random() * slotCount);
          [slots[left], slots[right]] = [slots[right] as number, slots[left] as number];
        }
        let added = 0;
        for (const phase of [0.2, 1, 5]) {
          // Each phase adds a share of the slots with longer documents (the average length drifts), then removes, reveals and searches.
          const end = phase === 5 ? slotCount : Math.floor(slotCount * phase * 0.6);
          for (; added < end; added++) {
            const slot = slots[added] as number;
            const terms = randomTerms(random, documents, phase);
            documents.push(terms);
            const stage = random() < 0.1;
            index.add(slot, terms, stage);
            if (stage) staged.push(slot);
          }
          for (let removal = 0; removal < added * random() * 0.4; removal++) index.remove(slots[Math.floor(random() * added)] as number);
          for (const slot of staged.splice(0, Math.floor(staged.length * random()))) index.reveal(slot);
          results += compare(index, random, slotCount, 25);
        }
      }
      expect(results).toBeGreaterThan(10_000);
    });

    it("returns the same results for queries of hundreds of distinct terms (a narrower window)", () => {
      const random = mulberry32(77);
      const words = Array.from({ length: 500 }, (_, index) => `w${index}`);
      const index = new Bm25Index({ k1: 0.9, b: 0.4 });
      for (let slot = 0; slot < 6000; slot++) {
        index.add(
          slot,
          Array.from({ length: 1 + Math.floor(random() * 30) }, () => words[Math.floor(words.length * random() ** 2)] as string),
        );
      }
      for (const size of [100, 300, 500]) {
        const query = words.slice(0, size);
        const exhaustive = index.searchExhaustively(query, 10);
        expect(exhaustive).toHaveLength(10);
        expect(index.search(query, 10)).toEqual(exhaustive);
      }
    });

    it("returns the same results after a capture and restore, with rows added afterwards out of order", () => {
      let results = 0;
      for (let seed = 100; seed < 110; seed++) {
        const random = mulberry32(seed);
        const parameters = { k1: 0.9, b: 0.4 };
        const original = new Bm25Index(parameters);
        const documents: string[][] = [];
        for (let slot = 0; slot < 500; slot++) {
          const terms = randomTerms(random, documents, 1);
          documents.push(terms);
          original.add(slot, terms);
        }
        for (let removal = 0; removal < 50; removal++) original.remove(Math.floor(random() * 500));
        const postings = runToEnd(original.capture((slot) => slot + 1));
        // A reopening restores most rows, and adds the others (changed documents) after, with the slots they had in row order.
        const restored = new Bm25Index(parameters, 64);
        const left = new Set<number>();
        const slotOfRow = Int32Array.from(postings.rowIds, (rowId) => {
          if (random() < 0.1) {
            left.add(rowId - 1);
            return -1;
          }
          return rowId - 1;
        });
        runToEnd(restored.restore(postings, slotOfRow));
        for (const slot of left) restored.add(slot, documents[slot] as string[]);
        results += compare(restored, random, 500, 60);
        for (let query = 0; query < 20; query++) {
          const terms = randomQuery(random);
          expect(restored.search(terms, 10)).toEqual(original.searchExhaustively(terms, 10));
        }
      }
      expect(results).toBeGreaterThan(3_000);
    });
  });
});
