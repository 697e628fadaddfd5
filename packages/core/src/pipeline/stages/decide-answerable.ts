/**
 * Stage `decide-answerable` (after `rank-evidence` and `answer-from-table`, before `generate`):
 * decides with the fitted relevance and answerability models whether the context answers the
 * question at all (`decideAnswerable`), reading the ranked units and the answer computed over a
 * table. When it does not, `generate` returns the spec's empty-context answer with
 * `abstained: true` and the reason (`no_documents`, `low_relevance`, `not_answerable`), without
 * calling the answerer. `ABSTENTION_CHECKS` chooses the checks.
 */
import { decideAnswerable as decide } from "../../answering/decide-answerable.js";
import type { PredictState } from "../request-state.js";
import type { Runtime } from "../runtime.js";
import type { Stage } from "../stage.js";

/** Writes `answerability`. */
export const decideAnswerable: Stage<PredictState> = {
  name: "decide-answerable",
  phase: "context",
  run(state, runtime) {
    const config = runtime.config.answering;
    const checks = effectiveChecks(runtime);
    const evidence = state.evidence;
    if (!evidence) throw new Error("decide-answerable runs after rank-evidence");
    state.answerability = decide(
      evidence,
      {
        minRelevance: checks === "off" ? 0 : config.abstainMinRelevance,
        minAnswerability: config.abstainMinAnswerability,
        checkAnswer: checks === "all",
        tableScore: state.tableAnswer?.answer.score,
      },
      runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : undefined,
    );
  },
};

/** `ABSTENTION_CHECKS` resolved: `auto` is `all` for the extractive answerer and `relevance` before a model. */
export function effectiveChecks(runtime: Pick<Runtime, "config" | "answerer">): "all" | "relevance" | "off" {
  const configured = runtime.config.answering.abstentionChecks;
  if (configured !== "auto") return configured;
  return runtime.answerer.name === "extractive" ? "all" : "relevance";
}
