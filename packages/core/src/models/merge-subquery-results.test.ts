import { describe, expect, it } from "vitest";
import { mergeSubqueryResults, retrieveSubqueries } from "./merge-subquery-results.js";

const result = (id: string, score: number, from = "") => ({ chunk: { id }, score, from });

describe("mergeSubqueryResults", () => {
  it("keeps one entry per chunk, the highest-scored, sorted by score then id", () => {
    const first = [result("a", 0.4, "first"), result("b", 0.7, "first")];
    const second = [result("a", 0.9, "second"), result("c", 0.7, "second"), result("b", 0.2, "second")];
    expect(mergeSubqueryResults([first, second])).toEqual([
      result("a", 0.9, "second"),
      result("b", 0.7, "first"),
      result("c", 0.7, "second"),
    ]);
  });

  it("keeps the first list's entry on equal scores and does not mutate its inputs", () => {
    const lists = [[result("a", 0.5, "first")], [result("a", 0.5, "second")]];
    const copy = structuredClone(lists);
    expect(mergeSubqueryResults(lists)).toEqual([result("a", 0.5, "first")]);
    expect(lists).toEqual(copy);
  });

  it("merges nothing into nothing", () => {
    expect(mergeSubqueryResults([])).toEqual([]);
    expect(mergeSubqueryResults([[], []])).toEqual([]);
  });
});

describe("retrieveSubqueries", () => {
  it("keeps each query's top-k and runs at most `concurrency` retrievals at once", async () => {
    let running = 0;
    let peak = 0;
    const retrieve = async (query: string) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      return [result(`${query}-low`, 0.1), result(`${query}-high`, 0.9), result("shared", query === "q2" ? 0.95 : 0.5)];
    };
    const retrieval = await retrieveSubqueries(["q1", "q2", "q3", "q4", "q5"], retrieve, { topK: 2, concurrency: 2 });
    expect(peak).toBe(2);
    expect(retrieval.perQuery.map((entry) => [entry.query, entry.results.map((item) => item.chunk.id)])).toEqual([
      ["q1", ["q1-high", "shared"]],
      ["q2", ["shared", "q2-high"]],
      ["q3", ["q3-high", "shared"]],
      ["q4", ["q4-high", "shared"]],
      ["q5", ["q5-high", "shared"]],
    ]);
    expect(retrieval.merged.map((item) => [item.chunk.id, item.score])).toEqual([
      ["shared", 0.95],
      ["q1-high", 0.9],
      ["q2-high", 0.9],
      ["q3-high", 0.9],
      ["q4-high", 0.9],
      ["q5-high", 0.9],
    ]);
    expect(retrieval.perQuery.every((entry) => entry.milliseconds >= 15)).toBe(true);
  });

  it("rejects with the first retrieval error", async () => {
    const failure = new Error("store down");
    await expect(
      retrieveSubqueries(["ok", "bad"], async (query) => (query === "bad" ? Promise.reject(failure) : [result(query, 1)]), { topK: 1 }),
    ).rejects.toBe(failure);
  });

  it("does not start retrievals after the signal aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const calls: string[] = [];
    await expect(
      retrieveSubqueries(
        ["a", "b"],
        async (query) => {
          calls.push(query);
          return [];
        },
        { topK: 1, signal: controller.signal },
      ),
    ).rejects.toThrow("gone");
    expect(calls).toEqual([]);
  });
});
