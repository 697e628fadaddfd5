import { describe, expect, it } from "vitest";
import { ExactVectorIndex } from "./exact-vector-index.js";

const vector = (...values: number[]) => Float32Array.from(values);

/*
 * slot 0: (1, 0, 0)
 * slot 1: (1, 1, 0)  cosine with (1, 0, 0) = 1/√2
 * slot 2: (0, 0, 1)  cosine with (1, 0, 0) = 0
 * slot 3: (-1, 0, 0) cosine with (1, 0, 0) = -1
 */
function sampleIndex(): ExactVectorIndex {
  const index = new ExactVectorIndex(3);
  index.set(0, vector(1, 0, 0));
  index.set(1, vector(1, 1, 0));
  index.set(2, vector(0, 0, 1));
  index.set(3, vector(-1, 0, 0));
  return index;
}

describe("ExactVectorIndex", () => {
  it("ranks every vector by exact cosine similarity", () => {
    const results = sampleIndex().search(vector(1, 0, 0), 10);
    expect(results.map((result) => result.id)).toEqual([0, 1, 2, 3]);
    expect(results[0]?.score).toBeCloseTo(1, 6);
    expect(results[1]?.score).toBeCloseTo(Math.SQRT1_2, 6);
    expect(results[2]?.score).toBeCloseTo(0, 6);
    expect(results[3]?.score).toBeCloseTo(-1, 6);
  });

  it("computes the cosine of arbitrary vectors", () => {
    const index = new ExactVectorIndex(2);
    index.set(0, vector(3, 4));
    // cos((3, 4), (4, 3)) = 24 / 25
    expect(index.search(vector(4, 3), 1)[0]?.score).toBeCloseTo(24 / 25, 6);
  });

  it("normalises stored vectors, so their length does not matter", () => {
    const index = new ExactVectorIndex(2);
    index.set(0, vector(300, 400));
    index.set(1, vector(0.001, 0));
    const results = index.search(vector(1, 0), 10);
    // The tiny (0.001, 0) is a perfect match; the long (300, 400) has cosine 0.6.
    expect(results.map((result) => result.id)).toEqual([1, 0]);
    expect(results[0]?.score).toBeCloseTo(1, 6);
    expect(results[1]?.score).toBeCloseTo(0.6, 6);
  });

  it("normalises the query, so scaling it does not change the scores", () => {
    const index = sampleIndex();
    const unit = index.search(vector(1, 1, 0), 10);
    const scaled = index.search(vector(50, 50, 0), 10);
    expect(scaled.map((result) => result.id)).toEqual(unit.map((result) => result.id));
    scaled.forEach((result, position) => {
      expect(result.score).toBeCloseTo(unit[position]?.score as number, 6);
    });
    expect(scaled[0]).toEqual({ id: 1, score: expect.closeTo(1, 6) });
  });

  it("does not mutate the vectors it is given", () => {
    const index = new ExactVectorIndex(2);
    const stored = vector(3, 4);
    const query = vector(6, 8);
    index.set(0, stored);
    index.search(query, 1);
    expect([...stored]).toEqual([3, 4]);
    expect([...query]).toEqual([6, 8]);
  });

  it("returns only the topK best", () => {
    expect(
      sampleIndex()
        .search(vector(1, 0, 0), 2)
        .map((result) => result.id),
    ).toEqual([0, 1]);
    expect(sampleIndex().search(vector(1, 0, 0), 0)).toEqual([]);
  });

  it("breaks ties by the lower slot", () => {
    const index = new ExactVectorIndex(2);
    index.set(7, vector(0, 1));
    index.set(2, vector(0, 2));
    index.set(4, vector(0, 3));
    expect(index.search(vector(0, 1), 3).map((result) => result.id)).toEqual([2, 4, 7]);
  });

  it("keeps a staged vector out of searches and its size until revealed, with and without a mask", () => {
    const index = new ExactVectorIndex(2);
    index.set(0, Float32Array.from([1, 0]));
    index.set(1, Float32Array.from([0, 1]), true);
    expect(index.size).toBe(1);
    expect(index.has(1)).toBe(false);
    expect(index.search(Float32Array.from([0, 1]), 5).map((result) => result.id)).toEqual([0]);
    expect(index.search(Float32Array.from([0, 1]), 5, Uint8Array.from([1, 1])).map((result) => result.id)).toEqual([0]);
    index.reveal(1);
    expect(index.size).toBe(2);
    expect(index.search(Float32Array.from([0, 1]), 1).map((result) => result.id)).toEqual([1]);
    index.set(2, Float32Array.from([1, 1]), true);
    index.remove(2);
    index.reveal(2);
    expect(index.size).toBe(2);
    expect(index.search(Float32Array.from([1, 1]), 5).map((result) => result.id)).not.toContain(2);
  });

  it("filters with the mask before ranking", () => {
    const results = sampleIndex().search(vector(1, 0, 0), 2, Uint8Array.from([0, 0, 1, 1]));
    expect(results.map((result) => result.id)).toEqual([2, 3]);
  });

  it("treats slots beyond the mask's length as not allowed, and never returns empty slots", () => {
    const index = new ExactVectorIndex(2, 8);
    index.set(5, vector(1, 0));
    index.set(1, vector(0, 1));
    expect(index.search(vector(1, 0), 10, Uint8Array.from([1, 1, 1])).map((result) => result.id)).toEqual([1]);
    expect(index.search(vector(1, 0), 10).map((result) => result.id)).toEqual([5, 1]);
  });

  it("uses the WebAssembly SIMD kernel and agrees with a plain dot product on odd dimensions", () => {
    const dimension = 37;
    const index = new ExactVectorIndex(dimension, 4);
    expect(index.accelerated).toBe(true);
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
    const stored = Array.from({ length: 50 }, () => Float32Array.from({ length: dimension }, random));
    stored.forEach((stored, slot) => {
      index.set(slot, stored);
    });
    const query = Float32Array.from({ length: dimension }, random);
    const unit = (values: Float32Array) => {
      const norm = Math.hypot(...values);
      return [...values].map((value) => value / norm);
    };
    const expected = stored
      .map((values, slot) => ({ slot, score: unit(values).reduce((sum, value, index) => sum + value * (unit(query)[index] as number), 0) }))
      .sort((left, right) => right.score - left.score)
      .slice(0, 5);
    const results = index.search(query, 5);
    expect(results.map((result) => result.id)).toEqual(expected.map((entry) => entry.slot));
    results.forEach((result, rank) => {
      expect(result.score).toBeCloseTo(expected[rank]?.score as number, 5);
    });
  });

  it("throws a RangeError when a stored vector has the wrong dimension", () => {
    const index = new ExactVectorIndex(3);
    expect(() => index.set(0, vector(1, 0))).toThrow(RangeError);
    expect(() => index.set(0, vector(1, 0))).toThrow("vector has 2 dimensions, the index 3");
    expect(index.size).toBe(0);
  });

  it("throws a RangeError when the query has the wrong dimension", () => {
    expect(() => sampleIndex().search(vector(1, 0, 0, 0), 5)).toThrow(RangeError);
    expect(() => sampleIndex().search(vector(1, 0, 0, 0), 5)).toThrow("query has 4 dimensions, the index 3");
  });

  it("removes a vector from size, has and search results", () => {
    const index = sampleIndex();
    expect(index.size).toBe(4);
    index.remove(0);
    expect(index.size).toBe(3);
    expect(index.has(0)).toBe(false);
    expect(index.has(1)).toBe(true);
    expect(index.search(vector(1, 0, 0), 10).map((result) => result.id)).toEqual([1, 2, 3]);
  });

  it("treats removing a missing or out-of-range slot as a no-op", () => {
    const index = sampleIndex();
    index.remove(0);
    index.remove(0);
    index.remove(10_000);
    expect(index.size).toBe(3);
    expect(index.has(10_000)).toBe(false);
  });

  it("replaces the vector of an existing slot without changing the size", () => {
    const index = sampleIndex();
    index.set(2, vector(1, 0, 0));
    expect(index.size).toBe(4);
    const results = index.search(vector(1, 0, 0), 2);
    expect(results).toEqual([
      { id: 0, score: expect.closeTo(1, 6) },
      { id: 2, score: expect.closeTo(1, 6) },
    ]);
  });

  it("grows past its initial capacity and keeps earlier vectors", () => {
    const index = new ExactVectorIndex(2, 1);
    index.set(0, vector(1, 0));
    index.set(9, vector(0, 1));
    expect(index.size).toBe(2);
    expect(index.search(vector(0, 1), 1)).toEqual([{ id: 9, score: expect.closeTo(1, 6) }]);
    expect(index.search(vector(1, 0), 1)).toEqual([{ id: 0, score: expect.closeTo(1, 6) }]);
  });

  it("returns [] when empty", () => {
    expect(new ExactVectorIndex(3).search(vector(1, 0, 0), 5)).toEqual([]);
  });
});
