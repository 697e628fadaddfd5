import { describe, expect, it } from "vitest";
import { EmbeddingThread, type ThreadModelSettings } from "./embedding-thread.js";

const blockingWorker = new URL("../../test-fixtures/blocking-embedding-worker.mjs", import.meta.url);
/** The fixture holds its thread `threads` milliseconds per call. */
const settings = (blockMs: number): ThreadModelSettings => ({
  modelName: "fixture",
  preset: { pooling: "mean", queryPrefix: "", documentPrefix: "" },
  dtype: "q8",
  threads: blockMs,
});

describe("EmbeddingThread", () => {
  it("answers each call with its vectors, in input order", async () => {
    const thread = new EmbeddingThread(blockingWorker);
    const vectors = await thread.embed(settings(0), ["a", "abc", "ab"]);
    expect(vectors.map((vector) => Array.from(vector))).toEqual([
      [1, 1],
      [3, 1],
      [2, 1],
    ]);
    expect(thread.threadId).toBeGreaterThan(0);
    await thread.close();
    expect(thread.threadId).toBeUndefined();
  });

  it("closes only after every call it was given has settled, even calls still queued", async () => {
    const thread = new EmbeddingThread(blockingWorker);
    // Three calls that each hold the thread; the second and third wait in the queue.
    const calls = [thread.embed(settings(150), ["one"]), thread.embed(settings(150), ["three"]), thread.embed(settings(150), ["fives"])];
    await new Promise((resolve) => setTimeout(resolve, 20));
    await thread.close();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((outcome) => (outcome.status === "fulfilled" ? outcome.value[0]?.[0] : outcome.reason.message))).toEqual([3, 5, 5]);
    // A call after close starts a new thread.
    expect(Array.from((await thread.embed(settings(0), ["xy"]))[0] as Float32Array)).toEqual([2, 1]);
    await thread.close();
  });
});
