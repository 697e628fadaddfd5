import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PerfEvent, RagEndEvent } from "../logging/perf-log.js";
import { initialPredictStateFields, predictResultSchema, predictStateFields } from "../service/predict-result.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { defaultPredictStages } from "./default-stages.js";
import { insertAfter } from "./edit-stages.js";
import type { PredictState } from "./request-state.js";
import { createPredictState, runPredict } from "./run-predict.js";
import { runStages } from "./run-stages.js";
import type { Stage } from "./stage.js";

const ann = { userName: "Ann@Example.org", roles: [], groups: [] };

describe("the predict pipeline", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    test = await createTestRuntime({
      documents: {
        vacation: {
          title: "Vacation policy",
          content: "New employees receive 20 vacation days in their first year.",
          metadata: { acl: "|user:_all_|" },
        },
        travel: {
          title: "Travel policy",
          content: "Travel expenses are reimbursed within 30 days of the claim.",
          metadata: { acl: "|user:_all_|" },
        },
      },
    });
  });
  afterAll(() => test.close());

  it("returns every field the result schema requires, the query as received once", async () => {
    const result = await runPredict(
      defaultPredictStages,
      test.runtime,
      { orgId: "org", principal: ann, query: "  How many vacation days do new employees get?  ", requestId: "req-0" },
      () => {},
    );
    expect(predictResultSchema.strict().safeParse(result).error).toBeUndefined();
    expect(result.originalQuery).toBe("  How many vacation days do new employees get?  ");
    expect(result.generation.promptVersion).toBeNull();
    expect(result.stages.map((stage) => stage.stage)).toEqual(defaultPredictStages.map((stage) => stage.name));
  });

  it("starts each request with fresh result fields on the state, and copies what a stage writes into the result", async () => {
    expect(Object.keys(initialPredictStateFields()).sort()).toEqual(Object.keys(predictStateFields.shape).sort());
    expect(initialPredictStateFields().subqueries).not.toBe(initialPredictStateFields().subqueries);
    const probe: Stage<PredictState> = {
      name: "probe",
      run: (state) => {
        state.droppedCitations = ["doc_99"];
        state.subqueries = ["probe sub-query"];
      },
    };
    const result = await runPredict(
      [...defaultPredictStages, probe],
      test.runtime,
      { orgId: "org", principal: ann, query: "How many vacation days do new employees get?", requestId: "req-fields" },
      () => {},
    );
    expect(result.droppedCitations).toEqual(["doc_99"]);
    expect(result.subqueries).toEqual(["probe sub-query"]);
  });

  it("writes rag_start, retrieval_done after the last retrieval stage, and rag_end with every field", async () => {
    const events: PerfEvent[] = [];
    const order: string[] = [];
    const probe: Stage<PredictState> = {
      name: "probe",
      run: () => {
        order.push(`probe after ${events.map((event) => event.event).join(",")}`);
      },
    };
    const stages = insertAfter("select-top-k", probe)(defaultPredictStages);
    const result = await runPredict(
      stages,
      test.runtime,
      { orgId: "org", principal: ann, query: "How many vacation days do new employees get?", requestId: "req-1" },
      (event) => events.push(event),
    );
    expect(events.map((event) => event.event)).toEqual(["rag_start", "retrieval_done", "rag_end"]);
    // The probe inherits the retrieval phase of the stage before it, so retrieval_done follows it.
    expect(order).toEqual(["probe after rag_start"]);
    const end = events[2] as RagEndEvent;
    expect(Object.keys(end).sort()).toEqual(
      [
        "abstained",
        "abstention_check",
        "abstention_reason",
        "answer_mode",
        "context_chars",
        "context_ms",
        "docs_count",
        "event",
        "fallback_reason",
        "llm_ms",
        "model",
        "num_ctx",
        "num_predict",
        "post_ms",
        "prompt_version",
        "query_hash",
        "query_rewrite",
        "request_id",
        "retrieval_ms",
        "total_ms",
        "ts",
        "unsupported_citations",
      ].sort(),
    );
    expect(end).toMatchObject({
      request_id: "req-1",
      model: "extractive",
      answer_mode: "extractive",
      query_rewrite: "unchanged",
      docs_count: 2,
      abstained: false,
      abstention_reason: null,
      abstention_check: null,
      unsupported_citations: 0,
    });
    expect(Number.isInteger(end.total_ms) && Number.isInteger(end.retrieval_ms)).toBe(true);
    expect(result.stages?.map((timing) => timing.stage)).toEqual(stages.map((stage) => stage.name));
    expect(result.answer.callout_answer).toContain("20 vacation days");
    expect(Object.values(result.sources).map((source) => source.metadata.doc_id)).toContain("vacation");
  });

  it("answers with the empty-context answer, without calling the answerer, when nothing is readable", async () => {
    const calls: string[] = [];
    const counting = await createTestRuntime({
      answerer: {
        name: "counting",
        async answer() {
          calls.push("answer");
          throw new Error("must not be called");
        },
      },
    });
    try {
      const result = await runPredict(
        defaultPredictStages,
        counting.runtime,
        { orgId: "org", principal: ann, query: "vacation" },
        () => {},
      );
      expect(result.answerMode).toBe("empty-context");
      expect(result.abstained).toBe(true);
      expect(result.abstentionReason).toBe("no_documents");
      expect(result.sources).toEqual({});
      expect(result.answer.positive_list).toEqual([]);
      expect(calls).toEqual([]);
    } finally {
      await counting.close();
    }
  });

  it("records the turn in the thread, and rewrites a follow-up from it", async () => {
    const first = await runPredict(
      defaultPredictStages,
      test.runtime,
      { orgId: "org", principal: ann, query: "How are travel expenses reimbursed?" },
      () => {},
    );
    await (await test.runtime.memory()).settled();
    const state = createPredictState(test.runtime, { orgId: "org", principal: ann, query: "and how quickly?", threadId: first.threadId });
    await runStages(defaultPredictStages.slice(0, 3), state, test.runtime);
    expect(state.history.map((turn) => [turn.question, turn.citedDocIds])).toEqual([["How are travel expenses reimbursed?", ["travel"]]]);
    expect(state.rewriteMethod).toBe("heuristic");
    expect(state.query).toContain("travel");
  });

  it("uses a client's history when the thread has none, and gives an anonymous principal a fresh thread", async () => {
    const state = createPredictState(test.runtime, {
      orgId: "org",
      principal: { userName: "", roles: [], groups: [] },
      query: "and contractors?",
      history: [
        { role: "user", content: "How many vacation days?" },
        { role: "assistant", content: "20 days." },
      ],
    });
    await runStages(defaultPredictStages.slice(0, 2), state, test.runtime);
    expect(state.conversation).toBeUndefined();
    expect(state.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(state.history.map((turn) => [turn.question, turn.answer])).toEqual([["How many vacation days?", "20 days."]]);
  });

  it("rejects an empty or too long question with invalid_request before retrieving", async () => {
    await expect(
      runPredict(defaultPredictStages, test.runtime, { orgId: "org", principal: ann, query: " \u0000 " }, () => {}),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(
      runPredict(
        defaultPredictStages,
        test.runtime,
        { orgId: "org", principal: ann, query: "x".repeat(test.runtime.config.retrieval.maxQueryChars + 1) },
        () => {},
      ),
    ).rejects.toThrow(/MAX_QUERY_CHARS/);
  });

  it("plans sub-queries of a compound question with SUBQUERY_TOP_K each", async () => {
    const state = createPredictState(test.runtime, {
      orgId: "org",
      principal: ann,
      query: "How many vacation days do I get, and how are travel expenses reimbursed?",
    });
    await runStages(defaultPredictStages.slice(0, 4), state, test.runtime);
    expect(state.queries.map((query) => [query.kind, query.topK])).toEqual([
      ["question", test.runtime.config.retrieval.retrieverTopK],
      ["subquery", test.runtime.config.retrieval.subqueryTopK],
      ["subquery", test.runtime.config.retrieval.subqueryTopK],
    ]);
    expect(state.subqueries).toEqual(["How many vacation days do I get", "how are travel expenses reimbursed"]);
  });
});
