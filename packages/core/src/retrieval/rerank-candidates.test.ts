import { describe, expect, it } from "vitest";
import type { RetrievalState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import { rerankCandidates } from "./rerank-results.js";
import type { Reranker } from "./reranker.js";
import type { RetrievedChunk } from "./retrieval-settings.js";

const result = (docId: string, score: number): RetrievedChunk => ({
  chunk: {
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text: docId,
    title: docId,
    source: "test",
    ownerId: "",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: docId,
  },
  score,
  vectorScore: null,
  keywordScore: score,
  accessRule: 3,
});

function stateWith(results: RetrievedChunk[], reranker?: Reranker): RetrievalState {
  return {
    orgId: "org",
    principal: { userName: "ann@example.org", roles: [], groups: [] },
    requestId: "r",
    signal: undefined,
    input: "q",
    question: "q",
    query: "q",
    filter: undefined,
    settings: {
      vectorTopK: 8,
      bm25TopK: 8,
      retrieverTopK: 5,
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "z-score",
      reranker: reranker ? { reranker, topK: 2, threshold: 0.5, depth: 3 } : undefined,
    },
    queries: [],
    retrievals: [{ query: { text: "which one", topK: 5, kind: "question" }, candidates: [], results, vectorUsed: false }],
    chunks: [],
    timings: [],
  };
}

describe("rerank stage", () => {
  it("does nothing without a reranker", async () => {
    const results = [result("a", 0.9), result("b", 0.8)];
    const state = stateWith(results);
    await rerankCandidates.run(state, {} as Runtime);
    expect(state.retrievals[0]?.results).toBe(results);
  });

  it("scores RERANK_DEPTH results against the query and keeps RERANK_TOP_K above the threshold, best first", async () => {
    const scored: string[][] = [];
    const reranker: Reranker = {
      name: "scripted",
      async score(query, chunks) {
        scored.push([query, ...chunks.map((chunk) => chunk.docId)]);
        const scores: Record<string, number> = { a: 0.6, b: 0.2, c: 0.9, d: 1 };
        return chunks.map((chunk) => scores[chunk.docId] ?? 0);
      },
    };
    const state = stateWith([result("a", 0.9), result("b", 0.8), result("c", 0.7), result("d", 0.6)], reranker);
    await rerankCandidates.run(state, {} as Runtime);
    expect(scored).toEqual([["which one", "a", "b", "c"]]);
    expect(state.retrievals[0]?.results.map((kept) => [kept.chunk.docId, kept.rerankScore])).toEqual([
      ["c", 0.9],
      ["a", 0.6],
    ]);
  });
});
