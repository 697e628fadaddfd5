/**
 * Stage `normalise` (spec `POST /predict` step 3): the question is normalised (Unicode NFKC,
 * whitespace collapsed, control characters removed; see `normalizeQuery`) and checked.
 */
import { DocqaError } from "../../errors/docqa-error.js";
import { normalizeQuery } from "../../retrieval/normalize-query.js";
import type { RetrievalState } from "../request-state.js";
import type { Stage } from "../stage.js";

/**
 * Normalises `text` and checks it is a usable query.
 *
 * @throws {DocqaError} `invalid_request` when it is empty after normalisation or longer than
 *   `maxChars` (`MAX_QUERY_CHARS`).
 */
export function checkedQuery(text: string, maxChars: number): string {
  const query = normalizeQuery(text);
  if (query === "") throw new DocqaError("invalid_request", "the query is empty", { component: "service" });
  if (query.length > maxChars) {
    throw new DocqaError("invalid_request", `the query has ${query.length} characters; the limit is ${maxChars} (MAX_QUERY_CHARS)`, {
      component: "service",
    });
  }
  return query;
}

/** Writes `question` and `query` (the question, until a follow-up is rewritten). */
export const normaliseQuestion: Stage<RetrievalState> = {
  name: "normalise",
  phase: "request",
  run(state, runtime) {
    state.question = checkedQuery(state.input, runtime.config.retrieval.maxQueryChars);
    state.query = state.question;
  },
};
