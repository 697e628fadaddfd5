import { describe, expect, it } from "vitest";
import type { EmbeddingThreadResult, EmbeddingThreadTask } from "../embeddings/transformers-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { RerankerThreadTask } from "../retrieval/cross-encoder-reranker.js";
import { ModelThread } from "./model-thread.js";

const blockingWorker = new URL("../../test-fixtures/blocking-model-worker.mjs", import.meta.url);
/** An embedding call; the fixture holds its thread `blockMs` milliseconds. */
const embedTask = (blockMs: number, texts: string[]): EmbeddingThreadTask => ({
  kind: "embed",
  settings: { modelName: "fixture", preset: { pooling: "mean", queryPrefix: "", documentPrefix: "" }, dtype: "q8", threads: blockMs },
  texts,
});
const firstComponent = (result: EmbeddingThreadResult) => result.data[0];

describe("ModelThread", () => {
  it("answers each call with the entry's result", async () => {
    const thread = new ModelThread<EmbeddingThreadTask, EmbeddingThreadResult>(blockingWorker, "embeddings");
    const { data, dimension } = await thread.run(embedTask(0, ["a", "abc", "ab"]));
    expect([Array.from(data), dimension]).toEqual([[1, 1, 3, 1, 2, 1], 2]);
    expect(thread.threadId).toBeGreaterThan(0);
    await thread.close();
    expect(thread.threadId).toBeUndefined();
  });

  it("closes only after every call it was given has settled, even calls still queued", async () => {
    const thread = new ModelThread<EmbeddingThreadTask, EmbeddingThreadResult>(blockingWorker, "embeddings");
    // Three calls that each hold the thread; the second and third wait in the queue.
    const calls = [thread.run(embedTask(150, ["one"])), thread.run(embedTask(150, ["three"])), thread.run(embedTask(150, ["fives"]))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    await thread.close();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((outcome) => (outcome.status === "fulfilled" ? firstComponent(outcome.value) : outcome.reason.message))).toEqual([
      3, 5, 5,
    ]);
    // A call after close starts a new thread.
    expect(Array.from((await thread.run(embedTask(0, ["xy"]))).data)).toEqual([2, 1]);
    await thread.close();
  });

  it("rebuilds the entry's error as a DocqaError, and a failure of the entry itself as internal_error", async () => {
    const thread = new ModelThread<RerankerThreadTask, number[]>(blockingWorker, "reranker");
    const task = (modelName: string): RerankerThreadTask => ({
      kind: "rerank",
      settings: { modelName, batchSize: 8 },
      query: "q",
      passages: ["p"],
      cancel: new Int32Array(new SharedArrayBuffer(4)),
    });
    const absent = await thread.run(task("absent")).catch((error: unknown) => error);
    expect(DocqaError.isInstance(absent) && [absent.code, absent.component, absent.publicMessage]).toEqual([
      "model_unavailable",
      "reranker",
      "cannot load reranker model absent",
    ]);
    const crashed = await thread.run(task("crash")).catch((error: unknown) => error);
    expect(DocqaError.isInstance(crashed) && [crashed.code, crashed.component]).toEqual(["internal_error", "reranker"]);
    expect((crashed as Error).message).toContain("the reranker model thread failed: the fixture crashed");
    // The thread still answers.
    expect(await thread.run(task("block-0"))).toEqual([0.001]);
    await thread.close();
  });
});
