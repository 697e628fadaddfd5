import { describe, expect, it } from "vitest";
import { mulberry32 } from "../raptor/cluster-vectors.js";
import { defaultHnswExpansionSearch, hnswExpansionGrowth, hnswExpansionSearchFor } from "../stores/vector-index.js";
import { HnswVectorIndex, isHnswAvailable } from "./hnsw-vector-index.js";

describe("hnswExpansionSearchFor", () => {
  it("is 128 up to 100,000 vectors", () => {
    expect(hnswExpansionSearchFor(0)).toBe(defaultHnswExpansionSearch);
    expect(hnswExpansionSearchFor(20_000)).toBe(128);
    expect(hnswExpansionSearchFor(100_000)).toBe(128);
  });

  it("grows as 128 · (N / 100,000)^α beyond, never shrinking", () => {
    expect(hnswExpansionSearchFor(1_000_000)).toBe(Math.ceil(128 * 10 ** hnswExpansionGrowth));
    expect(hnswExpansionSearchFor(1_000_000)).toBeGreaterThan(hnswExpansionSearchFor(400_000));
    expect(hnswExpansionSearchFor(400_000)).toBeGreaterThan(hnswExpansionSearchFor(100_000));
  });
});

describe.skipIf(!isHnswAvailable())("HnswVectorIndex search list size", () => {
  const dimension = 8;
  const random = mulberry32(7);
  const vectors = Float32Array.from({ length: 300 * dimension }, () => random() - 0.5);

  function graph(expansionSearch?: number): HnswVectorIndex {
    const index = new HnswVectorIndex(dimension, { connectivity: 8, expansionAdd: 64, expansionSearch });
    index.add(
      Array.from({ length: 300 }, (_, key) => key),
      vectors,
    );
    return index;
  }

  it("follows the graph's size unless HNSW_EXPANSION_SEARCH is set", () => {
    expect(graph().searchExpansion).toBe(128);
    expect(graph(40).searchExpansion).toBe(40);
  });

  it("returns k results, best first, when ef is larger than k", () => {
    const index = graph();
    const query = vectors.subarray(5 * dimension, 6 * dimension);
    const results = index.search(query, 3);
    expect(results).toHaveLength(3);
    expect(results[0]?.id).toBe(5);
    expect(results[0]?.score).toBeGreaterThanOrEqual(results[1]?.score as number);
    expect(results[1]?.score).toBeGreaterThanOrEqual(results[2]?.score as number);
  });
});
