import { describe, expect, it } from "vitest";
import { type IdScore, TopK } from "./top-k.js";

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Reference: sort everything by score descending, then id ascending, and keep k. */
function fullSortTopK(items: readonly IdScore[], k: number): IdScore[] {
  return [...items].sort((left, right) => right.score - left.score || left.id - right.id).slice(0, Math.max(k, 0));
}

function collect(items: readonly IdScore[], k: number): IdScore[] {
  const best = new TopK(k);
  for (const item of items) best.offer(item.id, item.score);
  return best.sorted();
}

describe("mulberry32", () => {
  it("is deterministic for a seed", () => {
    const first = mulberry32(42);
    const second = mulberry32(42);
    const a = [first(), first(), first()];
    expect([second(), second(), second()]).toEqual(a);
    expect(new Set(a).size).toBe(3);
  });
});

describe("TopK", () => {
  it.each([
    { seed: 1, count: 1000, k: 10, distinctScores: 1_000_000 },
    { seed: 2, count: 1000, k: 10, distinctScores: 5 },
    { seed: 3, count: 500, k: 1, distinctScores: 3 },
    { seed: 4, count: 200, k: 200, distinctScores: 20 },
    { seed: 5, count: 50, k: 80, distinctScores: 4 },
    { seed: 6, count: 2000, k: 37, distinctScores: 50 },
  ])(
    "matches a full sort on random data (seed $seed, n=$count, k=$k, $distinctScores distinct scores)",
    ({ seed, count, k, distinctScores }) => {
      const random = mulberry32(seed);
      const ids = Array.from({ length: count }, (_, index) => index);
      // Shuffle the ids so they are not offered in order (Fisher–Yates).
      for (let index = ids.length - 1; index > 0; index--) {
        const other = Math.floor(random() * (index + 1));
        [ids[index], ids[other]] = [ids[other] as number, ids[index] as number];
      }
      // Few distinct scores force many ties; negative scores are included.
      const items = ids.map((id) => ({ id, score: Math.floor(random() * distinctScores) - distinctScores / 2 }));
      const expected = fullSortTopK(items, k);
      expect(expected).toHaveLength(Math.min(k, count));
      expect(collect(items, k)).toEqual(expected);
    },
  );

  it("breaks ties by the lower id, whatever the offer order", () => {
    const items = [
      { id: 9, score: 1 },
      { id: 3, score: 1 },
      { id: 5, score: 2 },
      { id: 1, score: 1 },
      { id: 7, score: 1 },
    ];
    expect(collect(items, 3)).toEqual([
      { id: 5, score: 2 },
      { id: 1, score: 1 },
      { id: 3, score: 1 },
    ]);
    expect(collect([...items].reverse(), 3)).toEqual(collect(items, 3));
  });

  it("keeps nothing when k is 0", () => {
    expect(collect([{ id: 1, score: 5 }], 0)).toEqual([]);
  });

  it("reports the threshold: -Infinity until full, then the k-th best score", () => {
    const best = new TopK(2);
    expect(best.threshold).toBe(Number.NEGATIVE_INFINITY);
    best.offer(1, 5);
    expect(best.threshold).toBe(Number.NEGATIVE_INFINITY);
    best.offer(2, 3);
    expect(best.threshold).toBe(3);
    best.offer(3, 4);
    expect(best.threshold).toBe(4);
    best.offer(4, 1);
    expect(best.threshold).toBe(4);
    expect(best.sorted()).toEqual([
      { id: 1, score: 5 },
      { id: 3, score: 4 },
    ]);
  });
});
