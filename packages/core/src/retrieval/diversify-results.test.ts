import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPredictStages, defaultSearchStages } from "../pipeline/default-stages.js";
import { insertAfter } from "../pipeline/edit-stages.js";
import { createSearchState, runPredict } from "../pipeline/run-predict.js";
import { runStages } from "../pipeline/run-stages.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { diversifyResults } from "./diversify-results.js";

const reader = { userName: "reader@example.org", roles: [], groups: [] };
const everyone = { acl: "|user:_all_|" };

describe("mmr stage (diversifyResults)", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    test = await createTestRuntime({
      documents: {
        "handbook-2023": {
          title: "Handbook 2023",
          content: "Remote work is allowed two days per week with manager approval.",
          metadata: everyone,
        },
        "handbook-2024": {
          title: "Handbook 2024",
          content: "Remote work is allowed two days per week with manager approval!",
          metadata: everyone,
        },
        coworking: { title: "Coworking", content: "Remote work from a coworking space is allowed.", metadata: everyone },
        cafeteria: { title: "Cafeteria", content: "The cafeteria serves soup on Mondays.", metadata: everyone },
        parking: { title: "Parking", content: "Parking permits are renewed in January.", metadata: everyone },
      },
      // z-score fusion keeps the coworking chunk's relevance close to the handbooks' (min-max, the
      // default, puts it nearer the unrelated chunks), the case MMR is for.
      config: { retrieval: { scoreNormalization: "z-score" } },
    });
  });
  afterAll(() => test.close());

  it("is one line of configuration: inserted after rerank, it runs in the retrieval phase", async () => {
    const stages = insertAfter("rerank", diversifyResults())(defaultPredictStages);
    const result = await runPredict(stages, test.runtime, { orgId: "org", principal: reader, query: "remote work allowed" }, () => {});
    expect(result.stages?.find((timing) => timing.stage === "mmr")?.phase).toBe("retrieval");
  });

  it("replaces a near-duplicate in the top-k by a different relevant chunk", async () => {
    const topTwo = async (stages: typeof defaultSearchStages) => {
      const state = createSearchState(test.runtime, {
        orgId: "org",
        principal: reader,
        query: "remote work allowed days per week",
        limit: 2,
      });
      await runStages(stages, state, test.runtime);
      return state.chunks.map((chunk) => chunk.chunk.docId).sort();
    };
    expect(await topTwo(defaultSearchStages)).toEqual(["handbook-2023", "handbook-2024"]);
    expect(await topTwo(insertAfter("rerank", diversifyResults({ lambda: 0.5 }))(defaultSearchStages))).toEqual([
      "coworking",
      "handbook-2023",
    ]);
  });
});
