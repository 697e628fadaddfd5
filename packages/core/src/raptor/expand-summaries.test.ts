import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPredictState } from "../pipeline/run-predict.js";
import type { RetrievedChunk } from "../retrieval/retrieval-settings.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { expandSummaries, leavesPerSummary } from "./expand-summaries.js";

const ann = { userName: "ann@example.org", roles: [], groups: ["staff"] };

/** A summary node over `docIds`, as RAPTOR stores it. */
function summary(docIds: string[], score: number): RetrievedChunk {
  return {
    chunk: {
      id: "raptor:x::0",
      docId: "raptor:x",
      chunkIndex: 0,
      text: "Leave and travel rules.",
      title: "Summary of Leave; Travel",
      source: "raptor",
      ownerId: "",
      acl: "|user:_all_|",
      metadata: { raptor_level: 1, raptor_documents: docIds.map((doc_id) => ({ doc_id, title: doc_id })) },
      contentHash: "x",
    },
    score,
    vectorScore: null,
    keywordScore: score,
    accessRule: 3,
  };
}

describe("expand-summaries stage", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    test = await createTestRuntime({
      config: { ingestion: { chunkSize: 80, chunkOverlap: 0 } },
      documents: {
        leave: {
          title: "Leave",
          content: "New employees receive 20 vacation days.\n\nVacation days are requested in the HR portal.",
          metadata: { acl: "|user:_all_|" },
        },
        secret: { title: "Secret", content: "Board members receive 40 vacation days.", metadata: { acl: "|group:board|" } },
        travel: { title: "Travel", content: "Meals are reimbursed up to 60 euros per day.", metadata: { acl: "|group:staff|" } },
      },
    });
  });
  afterAll(() => test.close());

  const stateWith = (chunks: RetrievedChunk[]) => {
    const state = createPredictState(test.runtime, { orgId: "org", principal: ann, query: "How many vacation days do employees receive?" });
    state.chunks = chunks;
    return state;
  };

  it("replaces a summary, at its rank, by the best readable chunks of the documents it summarises", async () => {
    const state = stateWith([summary(["leave", "secret"], 0.9)]);
    await expandSummaries.run(state, test.runtime);
    expect(state.chunks.map(({ chunk }) => chunk.docId)).toEqual(["leave", "leave"]);
    expect(state.chunks[0]?.chunk.text).toBe("New employees receive 20 vacation days.");
    // The summary's rank is kept; the board's document is never used (ann is not in group board).
    expect(state.chunks.every((result) => result.score === 0.9)).toBe(true);
    expect(state.chunks.length).toBeLessThanOrEqual(leavesPerSummary);
  });

  it("leaves out chunks already in the list and drops a summary with no readable chunk under it", async () => {
    const first = stateWith([summary(["leave"], 0.9)]);
    await expandSummaries.run(first, test.runtime);
    const [leaf] = first.chunks as [RetrievedChunk];
    const state = stateWith([leaf, summary(["leave"], 0.5), summary(["secret"], 0.4)]);
    await expandSummaries.run(state, test.runtime);
    expect(state.chunks.map(({ chunk }) => chunk.id)).toEqual([leaf.chunk.id, "leave::1"]);
  });

  it("leaves a list without summaries as it is", async () => {
    const state = stateWith([]);
    await expandSummaries.run(state, test.runtime);
    expect(state.chunks).toEqual([]);
  });
});
