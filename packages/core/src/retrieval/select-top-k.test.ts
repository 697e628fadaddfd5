import { describe, expect, it } from "vitest";
import { mergeResults, withoutRepeatedText } from "./select-top-k.js";

const result = (id: string, score: number, from = "") => ({ chunk: { id }, score, from });

describe("mergeResults", () => {
  it("keeps one entry per chunk, the highest-scored, sorted by score then id", () => {
    const first = [result("a", 0.4, "first"), result("b", 0.7, "first")];
    const second = [result("a", 0.9, "second"), result("c", 0.7, "second"), result("b", 0.2, "second")];
    expect(mergeResults([first, second])).toEqual([result("a", 0.9, "second"), result("b", 0.7, "first"), result("c", 0.7, "second")]);
  });

  it("keeps the first list's entry on equal scores and does not mutate its inputs", () => {
    const lists = [[result("a", 0.5, "first")], [result("a", 0.5, "second")]];
    const copy = structuredClone(lists);
    expect(mergeResults(lists)).toEqual([result("a", 0.5, "first")]);
    expect(lists).toEqual(copy);
  });

  it("merges nothing into nothing", () => {
    expect(mergeResults([])).toEqual([]);
    expect(mergeResults([[], []])).toEqual([]);
  });
});

describe("select-top-k stage", () => {
  it("keeps each query's top-k and merges the lists by chunk id", async () => {
    const { selectTopK } = await import("./select-top-k.js");
    const entry = (id: string, score: number) => ({
      chunk: { id, docId: id, chunkIndex: 0, text: id, title: id, source: "", ownerId: "", acl: "", metadata: {}, contentHash: id },
      score,
      vectorScore: null,
      keywordScore: score,
      accessRule: 3 as const,
    });
    const state = {
      retrievals: [
        {
          query: { text: "q", topK: 2, kind: "question" as const },
          candidates: [],
          results: [entry("a", 0.9), entry("b", 0.5), entry("c", 0.4)],
          vectorUsed: false,
        },
        {
          query: { text: "s", topK: 1, kind: "subquery" as const },
          candidates: [],
          results: [entry("d", 0.7), entry("a", 0.95)],
          vectorUsed: false,
        },
      ],
      chunks: [] as ReturnType<typeof entry>[],
    };
    // biome-ignore lint/suspicious/noExplicitAny: only the fields this stage reads
    await selectTopK.run(state as any, {} as any);
    expect(state.chunks.map((chunk) => [chunk.chunk.id, chunk.score])).toEqual([
      ["a", 0.9],
      ["d", 0.7],
      ["b", 0.5],
    ]);
  });
});

describe("withoutRepeatedText", () => {
  it("keeps the first of results whose texts are equal up to whitespace, in order", () => {
    const result = (id: string, text: string, score: number) => ({ chunk: { id, text }, score });
    const results = [
      result("a", "Same  text.", 0.9),
      result("b", "Other.", 0.8),
      result("c", "Same text.\n", 0.7),
      result("d", "Last.", 0.6),
    ];
    expect(withoutRepeatedText(results).map(({ chunk }) => chunk.id)).toEqual(["a", "b", "d"]);
    expect(results).toHaveLength(4);
  });
});
