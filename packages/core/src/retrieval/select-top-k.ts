/**
 * Stage `select-top-k` (spec `POST /predict` step 6, `RETRIEVER_TOP_K`; decomposition: "keep
 * `SUBQUERY_TOP_K` documents per sub-query, merge and deduplicate"): each query keeps its top-k
 * results, a chunk whose text repeats a better-ranked one's taking no place (long documents repeat
 * boilerplate paragraphs word for word, and four copies of one would fill the context); the lists
 * are merged by chunk id, keeping a chunk's best score, best first.
 */

import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { RetrievedChunk } from "./retrieval-settings.js";

/** Writes `chunks`. */
export const selectTopK: Stage<RetrievalState> = {
  name: "select-top-k",
  phase: "retrieval",
  run(state) {
    const lists = state.retrievals.map((retrieval) => withoutRepeatedText(retrieval.results).slice(0, retrieval.query.topK));
    state.chunks = lists.length === 1 ? (lists[0] as RetrievedChunk[]) : mergeResults(lists);
  },
};

/** The results without those whose text (whitespace collapsed) repeats an earlier result's, in order. Inputs are not mutated. */
export function withoutRepeatedText<T extends { chunk: { text: string } }>(results: readonly T[]): T[] {
  const seen = new Set<string>();
  return results.filter((result) => {
    const text = result.chunk.text.replace(/\s+/g, " ").trim();
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/**
 * Merges result lists: one entry per chunk id, the one with the highest score (the first list's
 * on ties), sorted by score descending, ties broken by chunk id. Inputs are not mutated.
 *
 * @example
 * ```ts
 * mergeResults([[{ chunk: a, score: 0.4 }], [{ chunk: a, score: 0.9 }, { chunk: b, score: 0.5 }]]);
 * // [{ chunk: a, score: 0.9 }, { chunk: b, score: 0.5 }]
 * ```
 */
export function mergeResults<T extends { chunk: { id: string }; score: number }>(lists: readonly (readonly T[])[]): T[] {
  const best = new Map<string, T>();
  for (const list of lists) {
    for (const result of list) {
      const current = best.get(result.chunk.id);
      if (!current || result.score > current.score) best.set(result.chunk.id, result);
    }
  }
  return [...best.values()].sort(
    (left, right) => right.score - left.score || (left.chunk.id < right.chunk.id ? -1 : left.chunk.id > right.chunk.id ? 1 : 0),
  );
}
