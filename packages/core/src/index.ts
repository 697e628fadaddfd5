/**
 * @docqa/core: question answering over an organisation's own documents, with citations and
 * per-document access control. Start with {@link createRagService}.
 */
export { type AccessList, formatAccessList, normalizeAccessList, parseAccessList } from "./acl/access-list.js";
export {
  authorizeWrite,
  defaultAdminRoles,
  isAdministrator,
  type WriteAttempt,
  type WriteDecision,
  type WriteRule,
} from "./acl/authorize-write.js";
export { type AccessControlled, type AccessDecision, type AccessRule, canRead, evaluateAccess } from "./acl/evaluate-access.js";
export { normalizeAccessName, normalizePrincipal, type Principal } from "./acl/principal.js";
export { type Answer, answerSchema, emptyContextAnswer, noInformationSentence, type Source } from "./answering/answer.js";
export type { Answerer, AnswerMode, AnswerRequest, GeneratedAnswer } from "./answering/answerer.js";
export { createModelAnswerer, type ModelAnswererSettings } from "./answering/create-model-answerer.js";
export { createExtractiveAnswerer, type ExtractiveAnswererSettings } from "./answering/extractive-answerer.js";
export type {
  AnswerStreamEvent,
  ModelAnswerer,
  ModelAnswerRequest,
  ModelFallbackReason,
  ModelGeneratedAnswer,
} from "./answering/model-answerer.js";
export { type AccessTokenClaims, accessTokenClaimsSchema } from "./auth/access-token-claims.js";
export { type JwtSettings, jwtSettingsSchema } from "./auth/jwt-settings.js";
export { type MintAccessTokenOptions, mintAccessToken } from "./auth/mint-access-token.js";
export {
  type CachedPrincipalResolver,
  type CachedPrincipalResolverSettings,
  createCachedPrincipalResolver,
  type PrincipalAttributes,
  type PrincipalResolver,
  principalFromClaims,
} from "./auth/resolve-principal.js";
export { verifyAccessToken } from "./auth/verify-access-token.js";
export {
  type AnswerLike,
  type AskManyOptions,
  askMany,
  type BatchAnswer,
  type BatchError,
  type BatchOutcome,
  type BatchPredictor,
  type BatchQuestion,
  batchError,
  isAbstention,
} from "./batch/index.js";
export {
  type ChatModelChoice,
  type ChatModelConfig,
  type ChatModelOptions,
  chatModelFromConfig,
} from "./chat-models/chat-model-from-config.js";
export { disposeSharedLlamaCppRuntimes } from "./chat-models/llama-cpp-runtime.js";
export {
  configSchema,
  type DocqaConfig,
  type DocqaConfigInput,
  defaultEmbeddingModel,
  flag,
  fraction,
  integer,
  optionalInteger,
  optionalString,
  type ScoreNormalization,
  type SettingMetadata,
  setting,
} from "./config/config-schema.js";
export {
  type DeepPartial,
  type DocqaConfigOverrides,
  type EnvironmentVariables,
  loadConfig,
  loadSettings,
  parseSettings,
  resolveConfig,
  type SettingLocation,
  settingsOf,
} from "./config/load-config.js";
export type { DocumentList, DocumentSummary, ListDocumentsOptions } from "./documents/list-documents.js";
export { createEmbeddedStore, type EmbeddedStore, type EmbeddedStoreSettings } from "./embedded-store/embedded-store.js";
export { type EmbeddingModelResolver, loadEmbeddingModel } from "./embeddings/embeddings-for-model.js";
export {
  embeddingsFromProvider,
  type ProviderEmbeddingsConfig,
  type ProviderEmbeddingsOptions,
} from "./embeddings/embeddings-from-provider.js";
export { findEmbeddingModels, type LocalModel } from "./embeddings/find-embedding-models.js";
export type { EmbeddingDtype, EmbeddingDtypeSetting } from "./embeddings/resolve-embedding-dtype.js";
export { TransformersEmbeddings, type TransformersEmbeddingsSettings } from "./embeddings/transformers-embeddings.js";
export { DocqaError, type DocqaErrorCode, type DocqaErrorOptions } from "./errors/docqa-error.js";
export type { SerializedError } from "./errors/serialized-error.js";
export {
  type DocumentInput,
  documentIdPattern,
  documentIdSchema,
  documentInputSchema,
  documentMetadataSchema,
  parseDocumentMetadata,
} from "./ingestion/document-input.js";
export { assertJsonDepth } from "./ingestion/json-depth.js";
export { classifyIntent, type Intent, type IntentResult } from "./intent/classify-intent.js";
export {
  createModelIntentClassifier,
  createRuleIntentClassifier,
  type IntentClassifier,
  type ModelIntentClassifierSettings,
} from "./intent/create-model-intent-classifier.js";
export { createInMemoryJobStore } from "./jobs/in-memory-job-store.js";
export { type FileError, type FileWarning, type IngestionJob, isFinished, type JobState } from "./jobs/ingestion-job.js";
export type { JobStore } from "./jobs/job-store.js";
export { createSqliteJobStore } from "./jobs/sqlite-job-store.js";
export { settlesWithin } from "./lifecycle/settle-all.js";
export { type AuditEvent, type AuditLog, type AuditOutcome, auditLogFromLogger } from "./logging/audit-log.js";
export { createConsoleLogger, type Logger, type LogLevel, silentLogger } from "./logging/logger.js";
export { createInMemoryMemoryStore, type InMemoryMemoryStoreSettings } from "./memory/in-memory-memory-store.js";
export { createCompressorReranker } from "./retrieval/compressor-reranker.js";
export { CrossEncoderReranker, type CrossEncoderRerankerSettings } from "./retrieval/cross-encoder-reranker.js";
export type { Reranker } from "./retrieval/reranker.js";
export { createRagService, type RagServiceOptions } from "./service/create-rag-service.js";
export { type PredictResultShape, predictResultSchema } from "./service/predict-result.js";
export type {
  IngestFilesOptions,
  IngestFilesRequest,
  IntentRequest,
  ListDocumentsRequest,
  PredictRequest,
  PredictResult,
  RagService,
  RequestContext,
  SearchRequest,
  SearchResult,
  ServiceHealth,
  ServiceStatistics,
  UpsertRequest,
  UpsertResult,
} from "./service/rag-service.js";
export type { ReindexRequest, ReindexStatus } from "./service/reindex-jobs.js";
export {
  assertStoresWritable,
  checkReadiness,
  type ReadinessCheck,
  type ReadinessReport,
  type ReadinessRole,
  type ReadinessTargets,
} from "./service/service-readiness.js";
export { type EndpointSet, onWire, type WireField, type WireMarked, wireFields } from "./service/wire-field.js";
export type { ReindexJob, ReindexPhase, ReindexState } from "./stores/reindexable-index.js";
export type { SweepReport, SweptOrganisation } from "./stores/sweep-uncommitted.js";
