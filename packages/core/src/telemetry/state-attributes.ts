/**
 * The sizes and counts of a request state, as span attributes: what a stage span reports after
 * its stage ran, so a trace shows how each stage changed them (the access filter turning
 * candidates into results, top-k cutting results to chunks). Never text.
 */
import type { Attributes } from "@opentelemetry/api";
import type { PredictState } from "../pipeline/request-state.js";

/**
 * Counts read from any state shaped like `RetrievalState` or `PredictState` (fields it lacks are
 * left out): `docqa.queries`, `docqa.candidates` (fused, over every query), `docqa.results`
 * (readable, over every query), `docqa.chunks` (final), and for `predict` `docqa.history.turns`,
 * `docqa.context.entries`, `docqa.context.chars`, `docqa.sources`.
 */
export function stateAttributes(state: object): Attributes {
  const view = state as Partial<PredictState>;
  const attributes: Attributes = {};
  if (Array.isArray(view.queries)) attributes["docqa.queries"] = view.queries.length;
  if (Array.isArray(view.retrievals)) {
    attributes["docqa.candidates"] = view.retrievals.reduce((sum, retrieval) => sum + retrieval.candidates.length, 0);
    attributes["docqa.results"] = view.retrievals.reduce((sum, retrieval) => sum + retrieval.results.length, 0);
  }
  if (Array.isArray(view.chunks)) attributes["docqa.chunks"] = view.chunks.length;
  if (Array.isArray(view.history)) attributes["docqa.history.turns"] = view.history.length;
  if (view.context) {
    attributes["docqa.context.entries"] = view.context.entries.length;
    attributes["docqa.context.chars"] = view.context.text.length;
  }
  if (view.sources) attributes["docqa.sources"] = Object.keys(view.sources).length;
  return attributes;
}
