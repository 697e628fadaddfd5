/**
 * Query normalisation (spec `POST /predict` step 3).
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";

/**
 * Normalises question text: Unicode NFKC, control characters removed, whitespace runs
 * collapsed to one space, trimmed. Case is kept (the analyzer lower-cases for BM25, and
 * embedding models may use case).
 */
export function normalizeQuery(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

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

/**
 * Stage `normalize` (spec `POST /predict` step 3): the question is normalised (Unicode NFKC,
 * whitespace collapsed, control characters removed; see `normalizeQuery`) and checked.
 *
 * Writes `question` and `query` (the question, until a follow-up is rewritten).
 */
export const normalizeQuestion: Stage<RetrievalState> = {
  name: "normalize",
  phase: "request",
  run(state, runtime) {
    state.question = checkedQuery(state.input, runtime.config.retrieval.maxQueryChars);
    state.query = state.question;
  },
};
