/**
 * Retrieval for decomposed questions (spec: "retrieve for each, keep `SUBQUERY_TOP_K` documents
 * per sub-query, merge and deduplicate"): sub-queries are retrieved in parallel, at most
 * `MAX_RETRIEVAL_THREADS` at a time, and their results merged by chunk id.
 */
import pLimit from "p-limit";

/** What the merge needs of a result: a chunk with an id, and a score (higher is better). */
export interface MergeableResult {
  chunk: { id: string };
  score: number;
}

/**
 * Merges result lists: one entry per chunk id, the one with the highest score (the first list's
 * on ties), sorted by score descending, ties broken by chunk id. Inputs are not mutated.
 *
 * @example
 * ```ts
 * mergeSubqueryResults([[{ chunk: a, score: 0.4 }], [{ chunk: a, score: 0.9 }, { chunk: b, score: 0.5 }]]);
 * // [{ chunk: a, score: 0.9 }, { chunk: b, score: 0.5 }]
 * ```
 */
export function mergeSubqueryResults<T extends MergeableResult>(lists: readonly (readonly T[])[]): T[] {
  const best = new Map<string, T>();
  for (const list of lists) {
    for (const result of list) {
      const current = best.get(result.chunk.id);
      if (!current || result.score > current.score) best.set(result.chunk.id, result);
    }
  }
  return [...best.values()].sort((left, right) => right.score - left.score || compare(left.chunk.id, right.chunk.id));
}

/** Settings of {@link retrieveSubqueries}. */
export interface SubqueryRetrievalSettings {
  /** `MAX_RETRIEVAL_THREADS`: retrievals running at once; default 10. */
  concurrency?: number;
  /** `SUBQUERY_TOP_K`: results kept per query. */
  topK: number;
  signal?: AbortSignal | undefined;
}

/** Result of {@link retrieveSubqueries}. */
export interface SubqueryRetrieval<T> {
  /** Merged, deduplicated results ({@link mergeSubqueryResults}). */
  merged: T[];
  /** Each query's own top-k, in the order of the queries, with its retrieval time. */
  perQuery: { query: string; results: T[]; milliseconds: number }[];
}

/**
 * Retrieves each query with `retrieve`, at most `concurrency` at a time, keeps each query's
 * `topK` best, and merges them. Pass the original question first to keep its results too.
 *
 * @throws the first retrieval error (other retrievals are left to finish and their results
 *   discarded); the caller's abort reason when `signal` aborts before a retrieval starts.
 */
export async function retrieveSubqueries<T extends MergeableResult>(
  queries: readonly string[],
  retrieve: (query: string, signal?: AbortSignal) => Promise<readonly T[]>,
  settings: SubqueryRetrievalSettings,
): Promise<SubqueryRetrieval<T>> {
  const limit = pLimit(Math.max(1, settings.concurrency ?? 10));
  const perQuery = await Promise.all(
    queries.map((query) =>
      limit(async () => {
        settings.signal?.throwIfAborted();
        const started = performance.now();
        const results = [...(await retrieve(query, settings.signal))]
          .sort((left, right) => right.score - left.score)
          .slice(0, settings.topK);
        return { query, results, milliseconds: Math.round(performance.now() - started) };
      }),
    ),
  );
  return { merged: mergeSubqueryResults(perQuery.map((entry) => entry.results)), perQuery };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
