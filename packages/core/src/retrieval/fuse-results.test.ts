import { describe, expect, it } from "vitest";
import type { ChunkRecord, ScoredChunk } from "../stores/chunk-record.js";
import { type FusedChunk, fuseReciprocalRank, fuseWeighted } from "./fuse-results.js";

function chunk(id: string): ChunkRecord {
  return {
    id,
    docId: id.split("::")[0] as string,
    chunkIndex: 0,
    text: `text of ${id}`,
    title: `title of ${id}`,
    source: "",
    ownerId: "",
    acl: "",
    metadata: {},
    contentHash: "hash",
  };
}

const scored = (id: string, score: number): ScoredChunk => ({ chunk: chunk(id), score });

/** The comparable part of a fused result. */
const summary = (fused: FusedChunk[]) =>
  fused.map((item) => ({ id: item.chunk.id, score: item.score, vectorScore: item.vectorScore, keywordScore: item.keywordScore }));

describe("fuseWeighted", () => {
  // Vector a 0.9, b 0.7, c 0.5 → min-max a 1, b 0.5, c 0.
  // Keyword b 10, d 4, a 2     → min-max b 1, d 0.25, a 0.
  const vector = [scored("a", 0.9), scored("b", 0.7), scored("c", 0.5)];
  const keyword = [scored("b", 10), scored("d", 4), scored("a", 2)];

  it("sums the weighted normalised scores and sorts by the sum", () => {
    const fused = fuseWeighted({ vector, keyword, weightVector: 0.6, weightKeyword: 0.4, normalization: "min-max" });
    // a = 0.6·1 + 0.4·0 = 0.6; b = 0.6·0.5 + 0.4·1 = 0.7; c = 0.6·0 = 0; d = 0.4·0.25 = 0.1
    const result = summary(fused);
    expect(result.map((item) => item.id)).toEqual(["b", "a", "d", "c"]);
    expect(result[0]).toEqual({ id: "b", score: expect.closeTo(0.7, 12), vectorScore: 0.7, keywordScore: 10 });
    expect(result[1]).toEqual({ id: "a", score: expect.closeTo(0.6, 12), vectorScore: 0.9, keywordScore: 2 });
    expect(result[2]).toEqual({ id: "d", score: expect.closeTo(0.1, 12), vectorScore: null, keywordScore: 4 });
    expect(result[3]).toEqual({ id: "c", score: 0, vectorScore: 0.5, keywordScore: null });
  });

  it("gives a chunk found by one list only that list's weighted share", () => {
    const fused = fuseWeighted({
      vector: [scored("v", 0.8), scored("both", 0.2)],
      keyword: [scored("both", 3), scored("k", 7)],
      weightVector: 0.3,
      weightKeyword: 0.7,
      normalization: "min-max",
    });
    // v = 0.3·1; k = 0.7·1; both = 0.3·0 + 0.7·0 = 0
    expect(summary(fused)).toEqual([
      { id: "k", score: expect.closeTo(0.7, 12), vectorScore: null, keywordScore: 7 },
      { id: "v", score: expect.closeTo(0.3, 12), vectorScore: 0.8, keywordScore: null },
      { id: "both", score: 0, vectorScore: 0.2, keywordScore: 3 },
    ]);
  });

  it("applies the weights: changing them reorders the result", () => {
    const vectorHeavy = fuseWeighted({ vector, keyword, weightVector: 0.9, weightKeyword: 0.1, normalization: "min-max" });
    // a = 0.9, b = 0.45 + 0.1 = 0.55, d = 0.025, c = 0
    expect(summary(vectorHeavy).map((item) => [item.id, Number(item.score.toFixed(6))])).toEqual([
      ["a", 0.9],
      ["b", 0.55],
      ["d", 0.025],
      ["c", 0],
    ]);
    const keywordOnly = fuseWeighted({ vector, keyword, weightVector: 0, weightKeyword: 1, normalization: "min-max" });
    // b = 1, d = 0.25, then a and c tie at 0 and fall back to chunk id order
    expect(summary(keywordOnly).map((item) => [item.id, item.score])).toEqual([
      ["b", 1],
      ["d", 0.25],
      ["a", 0],
      ["c", 0],
    ]);
  });

  it("normalises each list separately, so raw scales do not matter", () => {
    const fused = fuseWeighted({
      vector: [scored("x", 0.31), scored("y", 0.3)],
      keyword: [scored("y", 1000), scored("x", 999)],
      weightVector: 0.5,
      weightKeyword: 0.5,
      normalization: "min-max",
    });
    expect(summary(fused).map((item) => [item.id, item.score])).toEqual([
      ["x", 0.5],
      ["y", 0.5],
    ]);
  });

  it("breaks ties by chunk id", () => {
    const fused = fuseWeighted({
      vector: [scored("doc-b::0", 0.4)],
      keyword: [scored("doc-a::0", 12)],
      weightVector: 0.5,
      weightKeyword: 0.5,
      normalization: "min-max",
    });
    // Single-item lists normalise to 1, so both fuse to 0.5.
    expect(summary(fused).map((item) => [item.id, item.score])).toEqual([
      ["doc-a::0", 0.5],
      ["doc-b::0", 0.5],
    ]);
  });

  it("uses z-score normalisation when asked", () => {
    const fused = fuseWeighted({
      vector: [scored("a", 1), scored("b", 2), scored("c", 3)],
      keyword: [],
      weightVector: 1,
      weightKeyword: 1,
      normalization: "z-score",
    });
    // Φ(√1.5) = 0.8896643, Φ(0) = 0.5, Φ(−√1.5) = 0.1103357
    const result = summary(fused);
    expect(result.map((item) => item.id)).toEqual(["c", "b", "a"]);
    expect(Math.abs((result[0]?.score as number) - 0.8896643)).toBeLessThan(1e-6);
    expect(result[1]?.score).toBeCloseTo(0.5, 8);
    expect(Math.abs((result[2]?.score as number) - 0.1103357)).toBeLessThan(1e-6);
  });

  it("returns [] when both lists are empty", () => {
    expect(fuseWeighted({ vector: [], keyword: [], weightVector: 0.5, weightKeyword: 0.5, normalization: "min-max" })).toEqual([]);
  });

  it("keeps the chunk object it was given", () => {
    const item = scored("a", 1);
    const [fused] = fuseWeighted({ vector: [item], keyword: [], weightVector: 1, weightKeyword: 1, normalization: "min-max" });
    expect(fused?.chunk).toBe(item.chunk);
  });

  it("keeps a deep z-score list in score order where Φ rounds to 1", () => {
    // 398 weak matches and two strong ones: both strong z-scores exceed 8.3, where Φ is exactly 1.
    const keyword = [scored("a", 900), scored("b", 1000), ...Array.from({ length: 398 }, (_, index) => scored(`w${index}`, 1))];
    const fused = fuseWeighted({ vector: [], keyword, weightVector: 0, weightKeyword: 1, normalization: "z-score" });
    expect(fused[0]?.score).toBe(1);
    expect(fused[1]?.score).toBe(1);
    expect(fused.slice(0, 3).map((item) => item.chunk.id)).toEqual(["b", "a", "w0"]);
  });
});

describe("fuseReciprocalRank", () => {
  it("sums weight / (60 + rank) with ranks from 1", () => {
    const fused = fuseReciprocalRank([
      { results: [scored("a", 0.9), scored("b", 0.8), scored("c", 0.7)], weight: 1 },
      { results: [scored("c", 12), scored("a", 5)], weight: 1 },
    ]);
    // a = 1/61 + 1/62, c = 1/63 + 1/61, b = 1/62
    expect(summary(fused)).toEqual([
      { id: "a", score: expect.closeTo(1 / 61 + 1 / 62, 15), vectorScore: 0.9, keywordScore: 5 },
      { id: "c", score: expect.closeTo(1 / 63 + 1 / 61, 15), vectorScore: 0.7, keywordScore: 12 },
      { id: "b", score: expect.closeTo(1 / 62, 15), vectorScore: 0.8, keywordScore: null },
    ]);
  });

  it("applies the list weights", () => {
    const fused = fuseReciprocalRank([
      { results: [scored("a", 0.9), scored("b", 0.8)], weight: 1 },
      { results: [scored("b", 3), scored("a", 2)], weight: 3 },
    ]);
    // a = 1/61 + 3/62, b = 1/62 + 3/61
    expect(summary(fused).map((item) => [item.id, item.score])).toEqual([
      ["b", expect.closeTo(1 / 62 + 3 / 61, 15)],
      ["a", expect.closeTo(1 / 61 + 3 / 62, 15)],
    ]);
  });

  it("accepts another k", () => {
    const fused = fuseReciprocalRank([{ results: [scored("a", 1), scored("b", 0.5)], weight: 1 }], 1);
    expect(summary(fused).map((item) => [item.id, item.score])).toEqual([
      ["a", 1 / 2],
      ["b", 1 / 3],
    ]);
  });

  it("breaks ties by chunk id", () => {
    const fused = fuseReciprocalRank([
      { results: [scored("z", 1)], weight: 1 },
      { results: [scored("m", 1)], weight: 1 },
    ]);
    expect(summary(fused).map((item) => [item.id, item.score])).toEqual([
      ["m", 1 / 61],
      ["z", 1 / 61],
    ]);
  });
});
