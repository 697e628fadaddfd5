import { describe, expect, it } from "vitest";
import type { RetrievalState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import { filterAccess } from "./filter-readable.js";
import type { FusedChunk } from "./fuse-results.js";

const chunk = (docId: string, ownerId: string, acl: string, metadata: Record<string, unknown> = {}): FusedChunk => ({
  chunk: {
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text: docId,
    title: docId,
    source: "test",
    ownerId,
    acl,
    metadata,
    contentHash: docId,
  } satisfies ChunkRecord,
  score: 1,
  vectorScore: null,
  keywordScore: 1,
});

function stateWith(candidates: FusedChunk[], filter?: RetrievalState["filter"]): RetrievalState {
  return {
    orgId: "org",
    principal: { userName: "ann@example.org", roles: ["manager"], groups: ["finance"] },
    requestId: "r",
    signal: undefined,
    input: "q",
    question: "q",
    query: "q",
    filter,
    settings: { vectorTopK: 8, bm25TopK: 8, retrieverTopK: 5, weightVector: 0.5, weightBm25: 0.5, normalization: "z-score" },
    queries: [{ text: "q", topK: 5, kind: "question" }],
    retrievals: [{ query: { text: "q", topK: 5, kind: "question" }, candidates, results: [], vectorUsed: false }],
    chunks: [],
    timings: [],
  };
}

describe("access-filter stage", () => {
  it("keeps what the seven rules grant, in order, each with the rule that granted it", async () => {
    const state = stateWith([
      chunk("denied", "ann@example.org", "|deny:ann@example.org|"),
      chunk("owned", "ann@example.org", ""),
      chunk("everyone", "bob@example.org", "|user:_all_|"),
      chunk("named", "bob@example.org", "|user:ANN@example.org|"),
      chunk("role", "bob@example.org", "|role:manager|"),
      chunk("group", "bob@example.org", "|group:finance|"),
      chunk("nothing", "bob@example.org", "|role:admin|"),
      chunk("no-acl", "bob@example.org", ""),
    ]);
    await filterAccess.run(state, {} as Runtime);
    expect(state.retrievals[0]?.results.map((result) => [result.chunk.docId, result.accessRule])).toEqual([
      ["owned", 2],
      ["everyone", 3],
      ["named", 4],
      ["role", 5],
      ["group", 6],
    ]);
  });

  it("checks metadata filters the index could not push down", async () => {
    const state = stateWith([chunk("pdf", "ann@example.org", "", { type: "pdf" }), chunk("md", "ann@example.org", "", { type: "md" })], {
      metadata: [{ key: "type", op: "eq", value: "md" }],
    });
    await filterAccess.run(state, {} as Runtime);
    expect(state.retrievals[0]?.results.map((result) => result.chunk.docId)).toEqual(["md"]);
  });
});
