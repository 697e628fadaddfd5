/**
 * @docqa/core: question answering over an organisation's own documents, with citations and
 * per-document access control. Start with {@link createRagService}.
 */
export { type AccessList, formatAccessList, parseAccessList } from "./acl/access-list.js";
export { type ChunkAccessTokens, chunkAccessTokens, everyoneToken, principalAccessTokens } from "./acl/access-tokens.js";
export { type AccessControlled, type AccessDecision, type AccessRule, canRead, evaluateAccess } from "./acl/evaluate-access.js";
export { normalizePrincipal, type Principal } from "./acl/principal.js";
export { type Answer, answerSchema, emptyContextAnswer, noInformationSentence, type Source } from "./answering/answer.js";
export type { Answerer, AnswerMode, AnswerRequest, GeneratedAnswer } from "./answering/answerer.js";
export { type AnswerContext, buildContext, type ContextEntry, type ContextLimits } from "./answering/build-context.js";
export { citedKeys, formatCitation, replaceCitations, stripCitations } from "./answering/citations.js";
export { createModelAnswerer, type ModelAnswererSettings } from "./answering/create-model-answerer.js";
export { createExtractiveAnswerer, type ExtractiveAnswererSettings } from "./answering/extractive-answerer.js";
export type {
  AnswerStreamEvent,
  ModelAnswerer,
  ModelAnswerRequest,
  ModelFallbackReason,
  ModelGeneratedAnswer,
} from "./answering/model-answerer.js";
export { type AnswerRepair, type RepairOutcome, repairAnswer, type UnrepairableReason } from "./answering/repair-answer.js";
export { type ResolvedCitations, resolveCitations } from "./answering/resolve-citations.js";
export { streamModelAnswer } from "./answering/stream-model-answer.js";
export { type AccessTokenClaims, accessTokenClaimsSchema } from "./auth/access-token-claims.js";
export { type JwtSettings, jwtSettingsSchema } from "./auth/jwt-settings.js";
export { type MintAccessTokenOptions, mintAccessToken } from "./auth/mint-access-token.js";
export { verifyAccessToken } from "./auth/verify-access-token.js";
export {
  callWithResilience,
  defaultResiliencePolicy,
  type ResilienceOptions,
  type ResiliencePolicy,
  type ResilientResult,
  resiliencePolicy,
} from "./chat-models/call-with-resilience.js";
export {
  type ChatModelChoice,
  type ChatModelConfig,
  type ChatModelOptions,
  chatModelFromConfig,
  placeholderApiKey,
} from "./chat-models/chat-model-from-config.js";
export {
  classifyModelError,
  type ModelErrorDetails,
  type ModelFailure,
  type ModelFailureKind,
  modelFailureError,
  modelTimeoutCode,
  parseRetryAfter,
} from "./chat-models/classify-model-error.js";
export {
  defaultStructuredOutputMethod,
  invokeStructured,
  type StructuredCall,
  type StructuredOutput,
  type StructuredOutputMethod,
} from "./chat-models/invoke-structured.js";
export { type ChunkingContext, type ChunkingSettings, chunkDocument } from "./chunking/chunk-document.js";
export { createSemanticSplit, type SemanticSplitSettings } from "./chunking/semantic-split.js";
export { hashOf, type SourceDocument, sourceFromInput } from "./chunking/source-document.js";
export {
  configSchema,
  type DocqaConfig,
  type DocqaConfigInput,
  defaultEmbeddingModel,
  flag,
  fraction,
  integer,
  optionalInteger,
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
export { Bm25Index, type Bm25Parameters, type SlotMask } from "./embedded-store/bm25-index.js";
export { createEmbeddedStore, type EmbeddedStore, type EmbeddedStoreSettings } from "./embedded-store/embedded-store.js";
export { ExactVectorIndex } from "./embedded-store/exact-vector-index.js";
export { type HnswSettings, HnswVectorIndex, isHnswAvailable } from "./embedded-store/hnsw-vector-index.js";
export type { VectorIndexSettings } from "./embedded-store/organisation-store.js";
export { type EmbeddingModelPreset, embeddingModelPreset, type Pooling } from "./embeddings/embedding-model-presets.js";
export {
  embeddingsFromProvider,
  type ProviderEmbeddingsConfig,
  type ProviderEmbeddingsOptions,
} from "./embeddings/embeddings-from-provider.js";
export { findEmbeddingModels, type LocalModel } from "./embeddings/find-embedding-models.js";
export { type EmbeddingState, prepareEmbeddings } from "./embeddings/prepare-embeddings.js";
export { TransformersEmbeddings, type TransformersEmbeddingsSettings } from "./embeddings/transformers-embeddings.js";
export { DocqaError, type DocqaErrorCode, type DocqaErrorOptions } from "./errors/docqa-error.js";
export { type BeirDataset, loadBeirDataset } from "./evaluation/beir-dataset.js";
export {
  checkDenseModel,
  type DenseModelCheck,
  denseModelCheckTolerance,
  type PublishedDenseScore,
  publishedDenseScores,
} from "./evaluation/check-dense-model.js";
export {
  type AnswerEvaluation,
  type AnswerOutcome,
  type EvaluateAnswersOptions,
  evaluateAnswers,
  normalizeAnswer,
} from "./evaluation/evaluate-answers.js";
export { evaluateIntentClassifier, type IntentEvaluation, type IntentScore } from "./evaluation/evaluate-intent-classifier.js";
export { type EvaluateRetrievalOptions, evaluateRetrieval, type RetrievalEvaluation } from "./evaluation/evaluate-retrieval.js";
export { type IntentExample, intentExamples } from "./evaluation/intent-examples.js";
export { type RetrievalConfiguration, retrievalConfigurations } from "./evaluation/retrieval-configurations.js";
export {
  type Judgements,
  meanMetrics,
  ndcgAtK,
  type RetrievalMetrics,
  recallAtK,
  reciprocalRankAtK,
} from "./evaluation/retrieval-metrics.js";
export { loadSquadDataset, type SquadDataset } from "./evaluation/squad-dataset.js";
export { type DocumentInput, documentIdSchema, documentInputSchema, documentMetadataSchema } from "./ingestion/document-input.js";
export { type FoundFile, findFiles, type SkippedFile } from "./ingestion/find-files.js";
export {
  type IndexedDocument,
  type IndexingDependencies,
  type IndexingRequest,
  type IndexingResult,
  indexDocuments,
  storedHash,
} from "./ingestion/index-documents.js";
export { type FileSource, type IngestionProgressListener, type IngestionRun, runIngestionJob } from "./ingestion/ingest-files.js";
export { assertJsonDepth, jsonDepth } from "./ingestion/json-depth.js";
export { type DecodedText, decodeText } from "./ingestion/loaders/decode-text.js";
export { type LoadFileOptions, loaderVersion, loadFile } from "./ingestion/loaders/load-file.js";
export {
  defaultJsonMetadataKeys,
  type FileFormat,
  type FileInput,
  type JsonLoaderOptions,
  type LoadedDocument,
  type LoadedFile,
  type LoadedSection,
  type LoaderLimits,
  supportedFormats,
} from "./ingestion/loaders/loaded-file.js";
export { formatFromName } from "./ingestion/loaders/sniff-file-format.js";
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
export { createConsoleLogger, type Logger, type LogLevel, silentLogger } from "./logging/logger.js";
export {
  createPerfLog,
  type PerfEvent,
  type PerfLog,
  type RagEndEvent,
  type RagStartEvent,
  type RetrievalDoneEvent,
} from "./logging/perf-log.js";
export {
  type ConversationMemory,
  type ConversationMemorySettings,
  type ConversationRequest,
  type ConversationStart,
  createConversationMemory,
  sessionKey,
  threadKey,
} from "./memory/conversation-memory.js";
export { createTokenCounter, encodingForModel, type TokenCounter } from "./memory/count-tokens.js";
export { createInMemoryMemoryStore, type InMemoryMemoryStoreSettings } from "./memory/in-memory-memory-store.js";
export type { AppendOptions, Conversation, ConversationKey, ConversationTurn, MemoryStore } from "./memory/memory-store.js";
export {
  type CondenseModel,
  carryPreviousTerms,
  condensePromptVersion,
  condenseQuestionMessages,
  isFollowUp,
  type RewriteMethod,
  type RewrittenQuery,
  rewriteFollowUp,
} from "./memory/rewrite-follow-up.js";
export { trimHistory } from "./memory/trim-history.js";
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
} from "./prompts/prompts.js";
export {
  type DecomposeSettings,
  type Decomposition,
  decomposeQuestion,
  isSingleClause,
  splitQuestion,
} from "./query-planning/decompose-question.js";
export {
  buildRaptorNodes,
  isSummaryChunk,
  type RaptorDependencies,
  type RaptorSettings,
  raptorDocumentPrefix,
} from "./raptor/build-raptor-nodes.js";
export { type ClusterSettings, clusterVectors } from "./raptor/cluster-vectors.js";
export { createExtractiveSummarizer, type ExtractiveSummarizerSettings, type Summarizer } from "./raptor/summarizer.js";
export { createCompressorReranker } from "./retrieval/compressor-reranker.js";
export { CrossEncoderReranker, type CrossEncoderRerankerSettings } from "./retrieval/cross-encoder-reranker.js";
export { type FusedChunk, fuseReciprocalRank, fuseWeighted, type WeightedLists } from "./retrieval/fuse-results.js";
export { normalizeQuery } from "./retrieval/normalize-query.js";
export { normalizeScores, standardNormalCdf } from "./retrieval/normalize-scores.js";
export type { Reranker } from "./retrieval/reranker.js";
export { type RetrievalSettings, type RetrievedChunk, retrievalSettingsFromConfig } from "./retrieval/retrieval-settings.js";
export { type IdScore, TopK } from "./retrieval/top-k.js";
export { createRagService, type RagServiceOptions } from "./service/create-rag-service.js";
export type {
  IngestFilesRequest,
  IntentRequest,
  PredictRequest,
  PredictResult,
  RagService,
  RequestContext,
  SearchRequest,
  SearchResult,
  ServiceHealth,
  UpsertRequest,
  UpsertResult,
} from "./service/rag-service.js";
export { type CacheStores, cacheStoresFromConfig, isRedisConfigured, type RedisPackage } from "./stores/cache-stores-from-config.js";
export { type ChunkFilter, type MetadataCondition, matchesChunkFilter, matchesCondition } from "./stores/chunk-filter.js";
export { type ChunkRecord, chunkId, type DocumentVersion, indexedText, type ScoredChunk } from "./stores/chunk-record.js";
export type { DocumentRegistry } from "./stores/document-registry.js";
export {
  type DocumentStores,
  type StagedStoreParts,
  stagedDocumentStores,
  transactionalDocumentStores,
} from "./stores/document-stores.js";
export { organisationCollectionName, organisationSuffix } from "./stores/organisation-names.js";
export {
  importBackend,
  type MilvusPackage,
  type SearchEnginePackage,
  type ServerKeywordStore,
  type ServerVectorStore,
  storesFromConfig,
} from "./stores/stores-from-config.js";
export type {
  ChunkIndex,
  EmbeddingModelInfo,
  KeywordIndex,
  RegisteredDocument,
  SearchOptions,
  StagedIndex,
  StagedRegistry,
  TransactionalStore,
  UpsertOptions,
  VectorIndex,
  WriteOptions,
} from "./stores/vector-index.js";
export { type Analyzer, createEnglishAnalyzer, type EnglishAnalyzerOptions } from "./text/analyzer.js";
export { englishStopWords } from "./text/english-stop-words.js";
export { splitBlocks, splitSentences, stripMarkup } from "./text/split-sentences.js";
