import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPredictState } from "../pipeline/run-predict.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { checkCitationsStage } from "./check-citations.js";

const ann = { userName: "ann@example.org", roles: [], groups: [] };
const source = (text: string) => ({ title: "Policy", source: "", page_content: text, metadata: {} });

describe("check-citations stage", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    test = await createTestRuntime();
  });
  afterAll(() => test.close());

  it("reports the cited statements their source does not support, and nothing for supported ones", () => {
    const state = createPredictState(test.runtime, { orgId: "org", principal: ann, query: "q" });
    state.sources = { doc_1: source("New employees receive 20 vacation days."), doc_2: source("Meals are reimbursed up to 60 euros.") };
    state.answer = {
      callout_answer: "New employees receive 20 vacation days. [Source: doc_1]",
      positive_list: ["Contractors receive 30 vacation days. [Source: doc_2]"],
      negative_list: [],
      info_list: [],
      keywords: [],
    };
    checkCitationsStage.run(state, test.runtime);
    expect(state.unsupportedCitations.map(({ key, text }) => ({ key, text }))).toEqual([
      { key: "doc_2", text: "Contractors receive 30 vacation days." },
    ]);
  });

  it("honours CITATION_MIN_OVERLAP and leaves a state without an answer as it is", () => {
    const state = createPredictState(test.runtime, { orgId: "org", principal: ann, query: "q" });
    checkCitationsStage.run(state, test.runtime);
    expect(state.unsupportedCitations).toEqual([]);
    state.sources = { doc_1: source("New employees receive 20 vacation days.") };
    state.answer = {
      callout_answer: "New employees get 20 days. [Source: doc_1]",
      positive_list: [],
      negative_list: [],
      info_list: [],
      keywords: [],
    };
    // Terms new, employe, get, 20, dai: four of five are in the source (0.8).
    checkCitationsStage.run(state, {
      ...test.runtime,
      config: { ...test.runtime.config, answering: { ...test.runtime.config.answering, citationMinOverlap: 0.9 } },
    });
    expect(state.unsupportedCitations).toHaveLength(1);
    checkCitationsStage.run(state, test.runtime);
    expect(state.unsupportedCitations).toEqual([]);
  });
});
