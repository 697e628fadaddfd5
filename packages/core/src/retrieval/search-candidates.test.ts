import { describe, expect, it } from "vitest";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { silentLogger } from "../logging/logger.js";
import type { ChunkRecord, ScoredChunk } from "../stores/chunk-record.js";
import { stagedDocumentStores } from "../stores/document-stores.js";
import type { HybridSearchRequest } from "../stores/vector-index.js";
import { overrideMethods } from "../telemetry/override-methods.js";
import type { RetrievalSettings } from "./retrieval-settings.js";
import { searchCandidates } from "./search-candidates.js";

const model = { id: "test-model", dimension: 2 };

function chunk(docId: string): ChunkRecord {
  return {
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text: docId,
    title: "",
    source: "",
    ownerId: "",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: `${docId}:v1`,
  };
}

/** A staged store serving both lists, counting its calls; `hybrid` decides what `searchHybrid` answers. */
function hybridStore(hybrid: (request: HybridSearchRequest) => ScoredChunk[] | undefined) {
  const calls = { vector: 0, text: 0, hybrid: [] as HybridSearchRequest[] };
  const vectorList: ScoredChunk[] = [
    { chunk: chunk("a"), score: 0.9 },
    { chunk: chunk("b"), score: 0.5 },
  ];
  const textList: ScoredChunk[] = [
    { chunk: chunk("b"), score: 7 },
    { chunk: chunk("c"), score: 3 },
  ];
  const store = {
    name: "fake",
    writes: "staged" as const,
    searchByVector: async () => {
      calls.vector++;
      return vectorList;
    },
    searchByText: async () => {
      calls.text++;
      return textList;
    },
    searchHybrid: async (_orgId: string, request: HybridSearchRequest) => {
      calls.hybrid.push(request);
      return hybrid(request);
    },
    contentHashes: async (_orgId: string, docIds: readonly string[]) =>
      new Map(docIds.filter((docId) => docId !== "hidden").map((docId) => [docId, `${docId}:v1`])),
  };
  return { store, calls };
}

const settings: RetrievalSettings = {
  vectorTopK: 8,
  bm25TopK: 8,
  retrieverTopK: 5,
  weightVector: 0.5,
  weightBm25: 0.5,
  normalization: "min-max",
  hybridSearch: "engine",
};

async function run(store: ReturnType<typeof hybridStore>["store"], overrides: Partial<RetrievalSettings> = {}, wrap = false) {
  const wrapped = wrap ? overrideMethods(store, {}) : store;
  const stores = stagedDocumentStores({
    vector: wrapped as never,
    keyword: (wrap ? overrideMethods(store, {}) : store) as never,
    registry: store as never,
  });
  const embeddings = { status: "ready", model } as unknown as EmbeddingState;
  return searchCandidates(
    { stores, embeddings, logger: silentLogger },
    {
      orgId: "org",
      principal: { userName: "ann@example.org", roles: [], groups: [] },
      query: "question",
      queryVector: Float32Array.from([1, 0]),
      queryModel: model,
      settings: { ...settings, ...overrides },
    },
    { vector: 30, keyword: 30 },
  );
}

describe("searchCandidates with HYBRID_SEARCH=engine", () => {
  it("asks a store serving both lists for one hybrid request with the weights, depths and ACL filter, and keeps committed versions", async () => {
    const { store, calls } = hybridStore(() => [
      { chunk: chunk("b"), score: 0.9 },
      { chunk: chunk("hidden"), score: 0.6 },
      { chunk: chunk("a"), score: 0.5 },
    ]);
    const result = await run(store, {}, true);
    expect(calls.vector + calls.text).toBe(0);
    expect(calls.hybrid).toHaveLength(1);
    expect(calls.hybrid[0]).toMatchObject({
      text: "question",
      depth: { vector: 30, keyword: 30 },
      weights: { vector: 0.5, keyword: 0.5 },
      topK: 60,
      filter: { principal: { userName: "ann@example.org" } },
    });
    expect(result.fused.map((item) => [item.chunk.docId, item.score, item.vectorScore, item.keywordScore])).toEqual([
      ["b", 0.9, null, null],
      ["a", 0.5, null, null],
    ]);
    expect(result.hidden).toBe(1);
    expect(result.exhausted).toBe(true);
  });

  it("fuses two searches in docqa when the store cannot answer, or the settings are not the engine's", async () => {
    for (const [overrides, hybridAnswers] of [
      [{}, false],
      [{ hybridSearch: "node" }, true],
      [{ normalization: "z-score" }, true],
      [{ fusion: "rrf" }, true],
      [{ weightBm25: 0 }, true],
    ] as [Partial<RetrievalSettings>, boolean][]) {
      const { store, calls } = hybridStore(() => (hybridAnswers ? [{ chunk: chunk("z"), score: 1 }] : undefined));
      const result = await run(store, overrides);
      expect(calls.vector, JSON.stringify(overrides)).toBe(1);
      expect(result.fused.map((item) => item.chunk.docId)).not.toContain("z");
      expect(result.fused.length).toBeGreaterThan(0);
    }
  });
});
