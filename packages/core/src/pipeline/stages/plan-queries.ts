/**
 * Stage `plan` (spec "Optional query decomposition", `USE_QUERY_DECOMPOSITION`): the question is
 * always retrieved for, with `RETRIEVER_TOP_K`; a compound question is also split into at most
 * `QUERY_DECOMPOSITION_N` sub-queries (by the chat model, else by the clause rule; single-clause
 * questions skip it), each retrieved with `SUBQUERY_TOP_K`.
 */
import { decomposeQuestion } from "../../query-planning/decompose-question.js";
import { normalizeQuery } from "../../retrieval/normalize-query.js";
import type { PlannedQuery, PredictState, RetrievalState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Plans the query alone (the `search` pipeline). Writes `queries`. */
export const planQuery: Stage<RetrievalState> = {
  name: "plan",
  phase: "retrieval",
  run(state) {
    state.queries = [{ text: state.query, topK: state.settings.retrieverTopK, kind: "question" }];
  },
};

/** Plans the question and its sub-queries (the `predict` pipeline). Writes `queries` and `subqueries`. */
export const planQueries: Stage<PredictState> = {
  name: "plan",
  phase: "retrieval",
  async run(state, runtime) {
    const { config } = runtime;
    const queries: PlannedQuery[] = [{ text: state.query, topK: state.settings.retrieverTopK, kind: "question" }];
    if (config.retrieval.useQueryDecomposition) {
      const model = runtime.chatModel.status === "ready" ? runtime.chatModel : undefined;
      const decomposition = await decomposeQuestion(state.query, {
        model: model?.model,
        modelName: model?.modelName,
        structuredOutputMethod: runtime.structuredOutputMethod,
        maxSubqueries: config.retrieval.queryDecompositionN,
        resilience: { timeoutMs: runtime.auxiliaryTimeoutMs, maxRetries: Math.min(1, config.models.maxRetries) },
        signal: state.signal,
        logger: runtime.logger,
      });
      state.subqueries = distinctSubqueries(decomposition.subqueries, state.query, config.retrieval.maxQueryChars);
      for (const text of state.subqueries) queries.push({ text, topK: config.retrieval.subqueryTopK, kind: "subquery" });
    }
    state.queries = queries;
  },
};

/**
 * The sub-queries worth retrieving: normalised, non-empty, at most `maxChars` long, neither the
 * question itself nor a repeat (case-insensitive).
 */
export function distinctSubqueries(subqueries: readonly string[], question: string, maxChars: number): string[] {
  const seen = new Set([question.toLowerCase()]);
  const kept: string[] = [];
  for (const subquery of subqueries) {
    const text = normalizeQuery(subquery).slice(0, maxChars);
    if (text === "" || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    kept.push(text);
  }
  return kept;
}
