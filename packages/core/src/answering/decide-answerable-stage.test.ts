import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPredictStages } from "../pipeline/default-stages.js";
import { createPredictState } from "../pipeline/run-predict.js";
import { runStages } from "../pipeline/run-stages.js";
import type { Runtime } from "../pipeline/runtime.js";
import { createTestRuntime, type TestRuntime } from "../testing/create-test-runtime.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import type { Answerer, AnswerRequest } from "./answerer.js";
import { decideAnswerableStage, effectiveChecks } from "./decide-answerable.js";
import { generateAnswer } from "./generate-answer.js";
import { rankEvidenceStage } from "./rank-evidence.js";

const ann = { userName: "ann@example.org", roles: [], groups: [] };
const documents = {
  vacation: {
    title: "Vacation policy",
    content: "New employees receive 20 vacation days in their first year. The most common vacation request is a long weekend.",
    metadata: { acl: "|user:_all_|" },
  },
};

/** The runtime with some answering settings changed. */
function withAnswering(runtime: Runtime, answering: Partial<Runtime["config"]["answering"]>): Runtime {
  return { ...runtime, config: { ...runtime.config, answering: { ...runtime.config.answering, ...answering } } };
}

/** Runs the predict stages up to and including `decide-answerable`. */
async function decide(runtime: Runtime, question: string) {
  const stages = defaultPredictStages.slice(0, defaultPredictStages.findIndex((stage) => stage.name === "decide-answerable") + 1);
  const state = createPredictState(runtime, { orgId: "org", principal: ann, query: question });
  await runStages(stages, state, runtime);
  return state;
}

describe("decide-answerable stage", () => {
  let test: TestRuntime;
  let bm25Only: TestRuntime;
  beforeAll(async () => {
    [test, bm25Only] = await Promise.all([createTestRuntime({ documents }), createTestRuntime({ documents, embeddings: null })]);
  });
  afterAll(async () => {
    await Promise.all([test.close(), bm25Only.close()]);
  });

  it("ranks the context's units and lets an answerable question through, with the dense signal when a model is loaded", async () => {
    const state = await decide(test.runtime, "How many vacation days do new employees get?");
    expect(state.evidence?.units[0]?.text).toBe("New employees receive 20 vacation days in their first year.");
    expect(state.evidence?.denseUsed).toBe(true);
    expect(state.answerability).toMatchObject({ answerable: true, reason: null, check: null });
    expect(state.answerability?.signals.features?.denseMax).toBeGreaterThan(0);
    const lexical = await decide(bm25Only.runtime, "How many vacation days do new employees get?");
    expect(lexical.evidence?.denseUsed).toBe(false);
    expect(lexical.evidence?.scorer).toBe("lexical");
    expect(lexical.answerability?.signals.features?.denseMax).toBe(0);
    expect(lexical.answerability?.signals.relevance).toBeGreaterThan(0);
  });

  it("reuses retrieval's query vector only when retrieval embedded the question with the dense signal's model", async () => {
    const question = "How many vacation days do new employees get?";
    const stages = defaultPredictStages.slice(
      0,
      defaultPredictStages.findIndex((stage) => stage.name === "rank-evidence"),
    );
    const prepared = async () => {
      const state = createPredictState(test.runtime, { orgId: "org", principal: ann, query: question });
      await runStages(stages, state, test.runtime);
      return state;
    };
    const reference = await decide(test.runtime, question);
    const denseOf = (state: Awaited<ReturnType<typeof prepared>>) => state.evidence?.units.map((unit) => unit.dense);
    // A vector from another model (an index that still holds another model's vectors): embedded again.
    const other = await prepared();
    const retrieval = other.retrievals[0] as NonNullable<(typeof other.retrievals)[0]>;
    expect(retrieval.queryModel).toBeDefined();
    retrieval.queryVector = new Float32Array(retrieval.queryVector?.length ?? 0).fill(0.5);
    retrieval.queryModel = { id: "another-model", dimension: retrieval.queryVector.length };
    await rankEvidenceStage.run(other, test.runtime);
    // Equal up to retrieval's float32 rounding of the reference's query vector.
    const expected = denseOf(reference) as (number | null)[];
    expect(expected.length).toBeGreaterThan(0);
    for (const [index, value] of (denseOf(other) ?? []).entries()) expect(value).toBeCloseTo(expected[index] as number, 6);
    // The same model's vector is reused as it is (here a stand-in, so the dense signal changes).
    const same = await prepared();
    const reused = same.retrievals[0] as NonNullable<(typeof same.retrievals)[0]>;
    reused.queryVector = new Float32Array(reused.queryVector?.length ?? 0).fill(0.5);
    await rankEvidenceStage.run(same, test.runtime);
    expect(Math.abs((denseOf(same)?.[0] as number) - (expected[0] as number))).toBeGreaterThan(0.01);
  });

  it("decides no_documents, low_relevance and not_answerable", async () => {
    const nothing = createPredictState(test.runtime, { orgId: "org", principal: ann, query: "anything" });
    await rankEvidenceStage.run(nothing, test.runtime);
    await decideAnswerableStage.run(nothing, test.runtime);
    expect(nothing.answerability).toMatchObject({ answerable: false, reason: "no_documents", check: "no_context" });
    expect((await decide(bm25Only.runtime, "How do I bake sourdough bread with vacation yeast?")).answerability).toMatchObject({
      reason: "low_relevance",
      check: "relevance",
    });
    // ABSTAIN_MIN_ANSWERABILITY above every probability: the answerability model decides.
    const strict = withAnswering(bm25Only.runtime, { abstainMinAnswerability: 1 });
    expect((await decide(strict, "How many vacation days do new employees get?")).answerability).toMatchObject({
      reason: "not_answerable",
      check: "answerability",
    });
    // ABSTAIN_MIN_RELEVANCE 0 turns the relevance check off.
    const lenient = withAnswering(bm25Only.runtime, { abstainMinRelevance: 0 });
    expect((await decide(lenient, "How do I bake sourdough bread with vacation yeast?")).answerability).toMatchObject({ answerable: true });
  });

  it("runs only the relevance checks before a model answerer, and none with ABSTENTION_CHECKS=off", async () => {
    const model: Answerer = {
      name: "openai",
      answer: async () => ({ answer: {} as never, mode: "model", model: "m", abstained: false, numPredict: null, numCtx: null }),
    };
    expect(effectiveChecks({ config: test.runtime.config, answerer: model })).toBe("relevance");
    expect(effectiveChecks(test.runtime)).toBe("all");
    const beforeModel = { ...withAnswering(bm25Only.runtime, { abstainMinAnswerability: 1 }), answerer: model };
    expect((await decide(beforeModel, "How many vacation days do new employees get?")).answerability).toMatchObject({ answerable: true });
    expect((await decide(beforeModel, "How do I bake sourdough bread with vacation yeast?")).answerability).toMatchObject({
      reason: "low_relevance",
    });
    // The model is asked, and told the decision an extractive answer in place of its own would get.
    const requests: AnswerRequest[] = [];
    const recording: Answerer = {
      ...model,
      answer: async (request) => {
        requests.push(request);
        return model.answer(request);
      },
    };
    const state = await decide({ ...beforeModel, answerer: recording }, "How many vacation days do new employees get?");
    await generateAnswer.run(state, { ...beforeModel, answerer: recording });
    expect(requests[0]?.fallbackDecision).toMatchObject({ answerable: false, reason: "not_answerable", check: "answerability" });
    const off = withAnswering(bm25Only.runtime, { abstentionChecks: "off" });
    expect((await decide(off, "How do I bake sourdough bread with vacation yeast?")).answerability).toMatchObject({ answerable: true });
  });
});

describe("decide-answerable stage with the dense-signal cache (DENSE_CACHE_ENTRIES)", () => {
  const question = "How many vacation days do new employees get?";
  let cached: TestRuntime;
  let uncached: TestRuntime;
  let model: DeterministicEmbeddings;
  beforeAll(async () => {
    model = new DeterministicEmbeddings({ dimension: 64, record: true });
    [cached, uncached] = await Promise.all([
      createTestRuntime({ documents, embeddings: model }),
      createTestRuntime({ documents, config: { answering: { denseCacheEntries: 0 } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([cached.close(), uncached.close()]);
  });

  it("embeds each passage once: a repeated question embeds nothing again, another one only itself, with the dense signals of no cache", async () => {
    expect(uncached.runtime.passageVectors).toBeUndefined();
    const before = model.documentBatches.length;
    const first = await decide(cached.runtime, question);
    const sentences = first.evidence?.units.map((unit) => unit.text) ?? [];
    expect(sentences).toHaveLength(2);
    expect(model.documentBatches.slice(before)).toEqual([[question, ...sentences]]);
    const second = await decide(cached.runtime, question);
    expect(model.documentBatches.length).toBe(before + 1);
    const other = "What is the most common vacation request?";
    await decide(cached.runtime, other);
    expect(model.documentBatches.slice(before + 1)).toEqual([[other]]);

    const dense = (state: typeof first) => state.evidence?.units.map((unit) => [unit.text, unit.dense]);
    const reference = await decide(uncached.runtime, question);
    expect(dense(first)).toEqual(dense(reference));
    expect(dense(second)).toEqual(dense(reference));
    expect(dense(first)?.every(([, value]) => typeof value === "number")).toBe(true);
  });

  it("keys by organisation: another organisation's identical question embeds its passages again", async () => {
    const before = model.documentBatches.length;
    await decide(cached.runtime, question);
    expect(model.documentBatches.length).toBe(before);
    const state = createPredictState(cached.runtime, { orgId: "other-org", principal: ann, query: question });
    // The other organisation's context holds the same text (given, as it holds no documents).
    state.context = (await decide(cached.runtime, question)).context;
    await rankEvidenceStage.run(state, cached.runtime);
    expect(model.documentBatches.slice(before)).toEqual([[question, ...(state.evidence?.units.map((unit) => unit.text) ?? [])]]);
  });
});
