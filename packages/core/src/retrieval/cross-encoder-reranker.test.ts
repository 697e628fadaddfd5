import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BroadcastChannel, threadId as callerThreadId } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { textChunk } from "../testing/text-chunk.js";
import { CrossEncoderReranker } from "./cross-encoder-reranker.js";

/**
 * The reranker thread's entry stand-in: each batch of `batchSize` passages holds its thread the
 * milliseconds of the model name (`block-150`) and scores each passage its length / 1000.
 */
const blockingWorker = new URL("../../test-fixtures/blocking-model-worker.mjs", import.meta.url);
const inThread = (blockMs: number, batchSize = 8) =>
  new CrossEncoderReranker({ modelName: `block-${blockMs}`, batchSize, thread: "worker", workerUrl: blockingWorker });

const chunk = (text: string, title = "") => textChunk(text, { title });
const chunks = (count: number) => Array.from({ length: count }, (_, index) => chunk("x".repeat(index + 1)));

/** The fixture's report after each batch: the query and the scores computed so far in its call. */
const progress = new BroadcastChannel("blocking-model-worker");
const reports: { query: string; scored: number }[] = [];
const listeners = new Set<(report: { query: string; scored: number }) => void>();
progress.onmessage = (event) => {
  const report = (event as { data: { query: string; scored: number } }).data;
  reports.push(report);
  for (const listener of listeners) listener(report);
};
progress.unref();
afterAll(() => progress.close());

/** Resolves with the fixture's first report on `query`. */
const reported = (query: string) =>
  new Promise<void>((resolve) => {
    const listener = (report: { query: string }) => {
      if (report.query !== query) return;
      listeners.delete(listener);
      resolve();
    };
    listeners.add(listener);
  });

describe("CrossEncoderReranker in a reranker thread", () => {
  it("sends the query and each chunk's indexed text (2,000 characters at most) and returns the thread's scores in order", async () => {
    const reranker = inThread(0, 2);
    expect(reranker.thread).toBe("worker");
    const scores = await reranker.score("what?", [chunk("abc", "Title"), chunk("y".repeat(2500)), chunk("z")]);
    // "Title\nabc" is 9 characters; the 2,500-character chunk is cut to 2,000.
    expect(scores).toEqual([0.009, 2, 0.001]);
    expect(reranker.threadId).toBeGreaterThan(0);
    expect(reranker.threadId).not.toBe(callerThreadId);
    expect(await reranker.score("what?", [])).toEqual([]);
    await reranker.dispose();
    expect(reranker.threadId).toBeUndefined();
  });

  it("leaves the calling thread free while the model runs: it only posts the pairs", async () => {
    const reranker = inThread(200);
    await reranker.load();
    const before = process.threadCpuUsage();
    const scores = await reranker.score("free?", chunks(16));
    const { user, system } = process.threadCpuUsage(before);
    expect(scores).toHaveLength(16);
    // Two batches held the reranker thread for 200 ms each; this thread spent a small part of that.
    expect(user + system).toBeLessThan(400_000 / 4);
    await reranker.dispose();
  });

  it("stops between forward passes when the signal aborts, rejects with its reason, and keeps the thread", async () => {
    const reranker = inThread(100);
    await reranker.load();
    const thread = reranker.threadId;
    const controller = new AbortController();
    const scoring = reranker.score("abort me", chunks(80), controller.signal);
    await reported("abort me");
    controller.abort(new DocqaError("model_timeout", "the request timed out"));
    await expect(scoring).rejects.toMatchObject({ code: "model_timeout" });
    // Reports of one thread arrive in order: once the next call's report is in, all of this one's are.
    const next = reported("after abort");
    expect(await reranker.score("after abort", [chunk("ab")])).toEqual([0.002]);
    await next;
    const scored = reports.filter((report) => report.query === "abort me").map((report) => report.scored);
    expect(scored[0]).toBe(8);
    expect(scored.at(-1)).toBeLessThan(80);
    expect(reranker.threadId).toBe(thread);
    // A signal aborted before the call posts nothing.
    await expect(reranker.score("never", chunks(1), AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    await reranker.dispose();
  });

  it("disposes only once the calls it was given have settled", async () => {
    const reranker = inThread(100);
    const scoring = reranker.score("close during", chunks(24));
    await reported("close during");
    await reranker.dispose();
    expect(reranker.threadId).toBeUndefined();
    expect(await scoring).toEqual(chunks(24).map((_, index) => (index + 1) / 1000));
  });

  it("surfaces a model the thread cannot load as model_unavailable", async () => {
    const fixture = new CrossEncoderReranker({ modelName: "absent", thread: "worker", workerUrl: blockingWorker });
    await expect(fixture.score("q", [chunk("a")])).rejects.toMatchObject({ code: "model_unavailable", component: "reranker" });
    await fixture.dispose();

    // The built entry loads the model with the real code path, in its thread.
    const missing = mkdtempSync(join(tmpdir(), "docqa-models-"));
    const real = new CrossEncoderReranker({ modelName: "Xenova/absent-reranker", localModelPath: missing, thread: "worker" });
    expect(real.thread).toBe("worker");
    const loading = real.load();
    await expect(loading).rejects.toMatchObject({ code: "model_unavailable", component: "reranker" });
    await expect(loading).rejects.toThrow(`cannot load reranker model Xenova/absent-reranker from ${missing}/Xenova/absent-reranker`);
    await real.dispose();
  });
});
