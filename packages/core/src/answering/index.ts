/**
 * @docqa/core/answering: the building blocks of answering for pipeline stage authors (citation
 * grammar, context building, citation resolution and repair, prompts, question decomposition,
 * follow-up rewriting, history trimming, token counting, chat-model calls with resilience, the
 * local llama.cpp runtime and its chat model, generation admission, the repetition guard).
 */

export {
  callWithResilience,
  defaultResiliencePolicy,
  type ResilienceOptions,
  type ResiliencePolicy,
  type ResilientResult,
  resiliencePolicy,
} from "../chat-models/call-with-resilience.js";
export {
  ChatLlamaCpp,
  type ChatLlamaCppCallOptions,
  type ChatLlamaCppFields,
  defaultLlamaCppMaxTokens,
  toLocalMessage,
} from "../chat-models/chat-llama-cpp.js";
export { placeholderApiKey } from "../chat-models/chat-model-from-config.js";
export {
  classifyModelError,
  type ModelErrorDetails,
  type ModelFailure,
  type ModelFailureKind,
  modelFailureError,
  modelTimeoutCode,
  parseRetryAfter,
} from "../chat-models/classify-model-error.js";
export { GenerationAdmission, type GenerationAdmissionSettings } from "../chat-models/generation-admission.js";
export {
  defaultStructuredOutputMethod,
  detectedStructuredOutputMethod,
  detectStructuredOutputMethod,
  invokeStructured,
  type StructuredCall,
  type StructuredOutput,
  type StructuredOutputMethod,
} from "../chat-models/invoke-structured.js";
export {
  defaultLlamaCppContextSize,
  defaultLlamaCppQueueSize,
  defaultLlamaCppSequences,
  LlamaCppRuntime,
  type LlamaCppRuntimeSettings,
  type LlamaCppRuntimeState,
  type LocalChatMessage,
  type LocalFinishReason,
  type LocalGeneration,
  type LocalGenerationRequest,
  sharedLlamaCppRuntime,
} from "../chat-models/llama-cpp-runtime.js";
export {
  RepetitionGuard,
  type RepetitionGuardSettings,
  repetitionMaxOccurrences,
  repetitionSpanTokens,
} from "../chat-models/repetition-guard.js";
export { createTokenCounter, encodingForModel, type TokenCounter } from "../memory/count-tokens.js";
export {
  type CondenseModel,
  carryPreviousTerms,
  condensePromptVersion,
  condenseQuestionMessages,
  isFollowUp,
  type RewriteMethod,
  type RewrittenQuery,
  rewriteFollowUp,
} from "../memory/rewrite-follow-up.js";
export { trimHistory } from "../memory/trim-history.js";
export {
  type AnswerPromptInput,
  answerJsonSchema,
  answerMessages,
  condenseHistory,
  decompositionMessages,
  type HistoryLimits,
  type HistoryTurn,
  intentMessages,
  PROMPT_VERSION,
} from "../prompts/prompts.js";
export {
  type DecomposeSettings,
  type Decomposition,
  decomposeQuestion,
  isSingleClause,
  splitQuestion,
} from "../query-planning/decompose-question.js";
export {
  type AnswerabilityFeatureName,
  type AnswerabilityFeatures,
  answerabilityFeatureNames,
  type FittedConfiguration,
  type FittedWeights,
  type LogisticModel,
  lexicalModels,
  modelsFor,
  predict,
  type UnitFeatureName,
  type UnitFeatures,
  unitFeatureNames,
} from "./answer-model.js";
export { type AnswerUnit, answerUnits, type RecordCell, type RecordRow, type UnitKind } from "./answer-units.js";
export { type AnswerContext, buildContext, type ContextEntry, type ContextLimits } from "./build-context.js";
export { type CitationCheckSettings, checkCitations, type UnsupportedCitation } from "./check-citations.js";
export { citedKeys, formatCitation, replaceCitations, stripCitations } from "./citations.js";
export {
  type AbstentionCheck,
  type AbstentionReason,
  type AbstentionSettings,
  type AnswerabilityDecision,
  type AnswerabilitySignals,
  answerabilityFeatures,
  decideAnswerable,
} from "./decide-answerable.js";
export {
  type AnswerType,
  contradiction,
  expectedAnswerType,
  isNegated,
  offersAnswerType,
  questionConstraints,
  substitution,
} from "./question-cues.js";
export {
  contentWords,
  type Evidence,
  type EvidenceUnit,
  type RankEvidenceOptions,
  rankEvidence,
  type WeightedTerm,
} from "./rank-evidence.js";
export { type AnswerRepair, type RepairOutcome, repairAnswer, type UnrepairableReason } from "./repair-answer.js";
export { type ResolvedCitations, resolveCitations } from "./resolve-citations.js";
export { streamModelAnswer } from "./stream-model-answer.js";
