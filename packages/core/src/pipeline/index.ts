/**
 * The request pipelines: typed request state, named stages, the default stage lists, the runner
 * and the helpers that edit a list (`@docqa/core/pipeline`).
 */
export { defaultPredictStages, defaultSearchStages } from "./default-stages.js";
export { composeEdits, insertAfter, insertBefore, removeStage, replaceStage, type StageEdit } from "./edit-stages.js";
export type { PlannedQuery, PredictState, QueryRetrieval, RetrievalState } from "./request-state.js";
export { createPredictState, createSearchState, runPredict, runSearch } from "./run-predict.js";
export { phaseMilliseconds, type RunStagesOptions, runStages, type StageHooks } from "./run-stages.js";
export type { Runtime } from "./runtime.js";
export type { Stage, StagePhase, StageTiming } from "./stage.js";
export { buildContext } from "./stages/build-context.js";
export { type DiversifySettings, diversifyResults, maximalMarginalRelevance } from "./stages/diversify-results.js";
export { filterAccess } from "./stages/filter-access.js";
export { generateAnswer } from "./stages/generate-answer.js";
export { loadConversation } from "./stages/load-conversation.js";
export { checkedQuery, normaliseQuestion } from "./stages/normalise-question.js";
export { planQueries, planQuery } from "./stages/plan-queries.js";
export { recordMemory } from "./stages/record-memory.js";
export { rerankCandidates } from "./stages/rerank-candidates.js";
export { resolveCitations } from "./stages/resolve-citations.js";
export { maximumDeepenings, retrieveCandidates } from "./stages/retrieve-candidates.js";
export { rewriteFollowUp } from "./stages/rewrite-follow-up.js";
export { mergeResults, selectTopK } from "./stages/select-top-k.js";
