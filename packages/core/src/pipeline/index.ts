/**
 * The request pipelines: typed request state, named stages, the default stage lists, the runner
 * and the helpers that edit a list (`@docqa/core/pipeline`).
 *
 * Each built-in stage is defined beside the function it runs, in the folder of its concept; a stage
 * whose name would clash with that function (`buildContext`) is `<name>Stage` there and exported
 * here under the stage's historical name.
 */

export { buildContextStage as buildContext } from "../answering/build-context.js";
export { checkCitationsStage as checkCitations } from "../answering/check-citations.js";
export { decideAnswerableStage as decideAnswerable, effectiveChecks } from "../answering/decide-answerable.js";
export { generateAnswer } from "../answering/generate-answer.js";
export { resolveCitationsStage as resolveCitations } from "../answering/resolve-citations.js";
export { loadConversation } from "../memory/load-conversation.js";
export { recordMemory } from "../memory/record-memory.js";
export { rewriteFollowUpStage as rewriteFollowUp } from "../memory/rewrite-follow-up.js";
export { planQueries, planQuery } from "../query-planning/decompose-question.js";
export { expandSummaries, leavesPerSummary } from "../raptor/expand-summaries.js";
export { type DiversifySettings, diversifyResults, maximalMarginalRelevance } from "../retrieval/diversify-results.js";
export { filterAccess } from "../retrieval/filter-readable.js";
export { checkedQuery, normalizeQuestion } from "../retrieval/normalize-query.js";
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
