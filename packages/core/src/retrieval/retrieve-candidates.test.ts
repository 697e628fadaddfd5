import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSearchState } from "../pipeline/run-predict.js";
import { runStages } from "../pipeline/run-stages.js";
import type { Runtime } from "../pipeline/runtime.js";
import { planQuery } from "../query-planning/decompose-question.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { SearchOptions } from "../stores/vector-index.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { filterAccess } from "./filter-readable.js";
import { retrieveCandidates } from "./search-candidates.js";

const reader = { userName: "reader@example.org", roles: [], groups: [] };

describe("retrieve stage", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    // 30 documents about lighthouses the reader may not open (owner only), then 3 readable ones
    // that match the query less well: the retrieval depth of 8 alone would hold no readable one
    // if the index did not pre-filter by principal.
    const documents: Record<string, { title: string; content: string; metadata?: { acl: string } }> = {};
    for (let index = 0; index < 30; index++) {
      documents[`private-${index}`] = {
        title: `Lighthouse log ${index}`,
        content: `Lighthouse keeper lighthouse lamp lighthouse entry ${index}.`,
      };
    }
    for (let index = 0; index < 3; index++) {
      documents[`public-${index}`] = {
        title: `Harbour notice ${index}`,
        content: `The lighthouse near the harbour opens for visitors on day ${index}.`,
        metadata: { acl: "|user:_all_|" },
      };
    }
    test = await createTestRuntime({ documents, config: { retrieval: { vectorTopK: 8, bm25TopK: 8, retrieverTopK: 5 } } });
  });
  afterAll(() => test.close());

  it("retrieves only what the principal may read, pre-filtered in the index, fused from both retrievers", async () => {
    const state = createSearchState(test.runtime, { orgId: "org", principal: reader, query: "lighthouse" });
    await runStages([planQuery, retrieveCandidates], state, test.runtime);
    expect(state.retrievals).toHaveLength(1);
    const [retrieval] = state.retrievals;
    expect(retrieval?.vectorUsed).toBe(true);
    expect(retrieval?.candidates.map((candidate) => candidate.chunk.docId).sort()).toEqual(["public-0", "public-1", "public-2"]);
    expect(retrieval?.candidates.every((candidate) => candidate.keywordScore !== null)).toBe(true);
    expect(retrieval?.results).toEqual([]);
  });

  it("fills the owner's top-k from their own documents", async () => {
    const state = createSearchState(test.runtime, {
      orgId: "org",
      principal: { ...reader, userName: "owner@example.org" },
      query: "lighthouse keeper",
    });
    await runStages([planQuery, retrieveCandidates, filterAccess], state, test.runtime);
    expect(state.retrievals[0]?.results.length).toBeGreaterThanOrEqual(5);
    expect(state.retrievals[0]?.results.every((result) => result.accessRule === 2)).toBe(true);
  });

  it("retrieves with BM25 only when there is no embedding model", async () => {
    const bm25Only = await createTestRuntime({
      embeddings: null,
      documents: { a: { title: "A", content: "Alpha beta gamma.", metadata: { acl: "|user:_all_|" } } },
    });
    try {
      const state = createSearchState(bm25Only.runtime, { orgId: "org", principal: reader, query: "beta" });
      await runStages([planQuery, retrieveCandidates], state, bm25Only.runtime);
      expect(state.retrievals[0]?.vectorUsed).toBe(false);
      expect(state.retrievals[0]?.candidates.map((candidate) => [candidate.chunk.docId, candidate.vectorScore])).toEqual([["a", null]]);
    } finally {
      await bm25Only.close();
    }
  });

  it("retrieves every planned query, in the order of the plan", async () => {
    const state = createSearchState(test.runtime, { orgId: "org", principal: reader, query: "harbour" });
    state.queries = [
      { text: "harbour visitors", topK: 2, kind: "question" },
      { text: "lighthouse day 2", topK: 1, kind: "subquery" },
    ];
    await runStages([retrieveCandidates], state, test.runtime);
    expect(state.retrievals.map((retrieval) => retrieval.query.text)).toEqual(["harbour visitors", "lighthouse day 2"]);
  });
});

describe("retrieve stage candidate depth", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    // Twenty one-chunk documents about badges; the even ones readable by group staff only.
    const documents: Record<string, { title: string; content: string; metadata: { acl: string } }> = {};
    for (let index = 0; index < 20; index++) {
      documents[`d${index}`] = {
        title: `Badge rule ${index}`,
        content: `Badges open door ${index} of the office.`,
        metadata: { acl: index % 2 === 0 ? "|group:staff|" : "|user:_all_|" },
      };
    }
    test = await createTestRuntime({ documents, config: { retrieval: { vectorTopK: 2, bm25TopK: 2, fusionCandidates: 0 } } });
  });
  afterAll(() => test.close());

  const search = async (runtime: Runtime, groups: string[], fusionCandidates: number) => {
    const state = createSearchState(runtime, {
      orgId: "org",
      principal: { ...reader, groups },
      query: "which door do badges open",
      limit: 10,
      retrieval: { vectorTopK: 2, bm25TopK: 2, fusionCandidates },
    });
    await runStages([planQuery, retrieveCandidates], state, runtime);
    return state.retrievals[0]?.candidates ?? [];
  };

  /** The store's searches without the principal pre-filter, as an engine that cannot express an ACL natively. */
  const withoutPrefilter = (stores: DocumentStores): DocumentStores => {
    const unfiltered = (options: SearchOptions): SearchOptions => ({ ...options, filter: {} });
    const vector = stores.vector as NonNullable<DocumentStores["vector"]>;
    return {
      ...stores,
      vector: {
        ...vector,
        searchByVector: (orgId, query, model, options) => vector.searchByVector(orgId, query, model, unfiltered(options)),
      },
      keyword: {
        ...stores.keyword,
        searchByText: (orgId, query, options) => stores.keyword.searchByText(orgId, query, unfiltered(options)),
      },
    };
  };

  it("keeps the configured depths when access control removed nothing, even below the query's top-k", async () => {
    const candidates = await search(test.runtime, ["staff"], 0);
    expect(candidates.filter((candidate) => candidate.vectorScore !== null)).toHaveLength(2);
    expect(candidates.filter((candidate) => candidate.keywordScore !== null)).toHaveLength(2);
  });

  it("asks each retriever for FUSION_CANDIDATES when that is deeper than its top-K", async () => {
    const candidates = await search(test.runtime, ["staff"], 6);
    expect(candidates.filter((candidate) => candidate.vectorScore !== null)).toHaveLength(6);
    expect(candidates.filter((candidate) => candidate.keywordScore !== null)).toHaveLength(6);
  });

  it("searches deeper when access control removed candidates and too few remain", async () => {
    const runtime = { ...test.runtime, stores: withoutPrefilter(test.runtime.stores) };
    const candidates = await search(runtime, [], 0);
    expect(candidates.filter((candidate) => candidate.keywordScore !== null).length).toBeGreaterThan(2);
    const readable = candidates.filter((candidate) => Number(candidate.chunk.docId.slice(1)) % 2 === 1);
    expect(readable.length).toBeGreaterThanOrEqual(5);
  });
});
