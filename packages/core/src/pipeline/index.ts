/**
 * The request pipelines: typed request state, named stages, the default stage lists, the runner
 * and the helpers that edit a list (`@docqa/core/pipeline`).
 */

export { generateAnswer } from "../answering/generate-answer.js";
/** The `resolve-citations` stage (`resolveCitationsStage`), under the name this entry has always exported. */
export { resolveCitationsStage as resolveCitations } from "../answering/resolve-citations.js";
export { loadConversation } from "../memory/load-conversation.js";
export { recordMemory } from "../memory/record-memory.js";
export { planQueries, planQuery } from "../query-planning/decompose-question.js";
export { expandSummaries, leavesPerSummary } from "../raptor/expand-summaries.js";
export { type DiversifySettings, diversifyResults, maximalMarginalRelevance } from "../retrieval/diversify-results.js";
export { filterAccess } from "../retrieval/filter-readable.js";
export { checkedQuery, normaliseQuestion } from "../retrieval/normalize-query.js";
export { rerankCandidates } from "../retrieval/rerank-results.js";
export { maximumDeepenings, retrieveCandidates } from "../retrieval/search-candidates.js";
export { mergeResults, selectTopK } from "../retrieval/select-top-k.js";
export { defaultPredictStages, defaultSearchStages } from "./default-stages.js";
export { composeEdits, insertAfter, insertBefore, removeStage, replaceStage, type StageEdit } from "./edit-stages.js";
export type { PlannedQuery, PredictState, QueryRetrieval, RetrievalState } from "./request-state.js";
export { createPredictState, createSearchState, runPredict, runSearch } from "./run-predict.js";
export { phaseMilliseconds, type RunStagesOptions, runStages, type StageHooks } from "./run-stages.js";
export type { Runtime } from "./runtime.js";
export type { Stage, StagePhase, StageTiming } from "./stage.js";
export { buildContext } from "./stages/build-context.js";
export { checkCitations } from "./stages/check-citations.js";
export { decideAnswerable, effectiveChecks } from "./stages/decide-answerable.js";
export { rewriteFollowUp } from "./stages/rewrite-follow-up.js";
