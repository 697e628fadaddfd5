import { createEnglishAnalyzer } from "@docqa/core/retrieval";
import { describe, expect, it } from "vitest";
import type { ChunkCollection } from "./milvus-collections.js";
import { MilvusTextAnalysis } from "./milvus-text-analysis.js";

const collection = (textAnalysis: string): ChunkCollection => ({
  name: "docqa_chunks_org",
  record: { embeddingModel: null, textAnalysis, tokenizer: "whitespace" },
  dimension: 4,
});

describe("MilvusTextAnalysis", () => {
  const analysis = new MilvusTextAnalysis(createEnglishAnalyzer(), true);

  it("analyses queries with the analyzer the collection was built with: this store's, or the earlier one it records", () => {
    expect(analysis.bm25Query(collection("docqa:english-porter-v2"), "Pokémon cafés")).toBe("pokemon cafe");
    // A collection built before diacritics were folded keeps its terms and is searched as it was built.
    expect(analysis.bm25Query(collection("docqa:english-porter-v1"), "Pokémon cafés")).toBe("pokémon cafés");
    expect(analysis.bm25Query(collection("milvus:english"), "Pokémon cafés")).toBe("Pokémon cafés");
  });

  it("refuses a collection analysed by an analyzer it cannot recreate", () => {
    expect(() => analysis.bm25Query(collection("docqa:english-porter-v2-customstop"), "query")).toThrow(/re-ingest/);
  });
});
