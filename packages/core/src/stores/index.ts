/**
 * @docqa/core/stores: what a store author needs (the interfaces a backend implements, chunk
 * records and filters, the staged-write helpers, organisation names and access tokens, the
 * embedded store's index structures, document-list cursors, embedding-model mismatches).
 * Applications pick a store with `createEmbeddedStore` or a backend package and never need this
 * entry.
 */
export {
  type ChunkAccessTokens,
  chunkAccessTokens,
  everyoneToken,
  principalAccessTokens,
  principalDenyToken,
} from "../acl/access-tokens.js";
export {
  decodeCursor,
  defaultPageSize,
  encodeCursor,
  maximumPageSize,
} from "../documents/list-documents.js";
export { Bm25Index, type Bm25Parameters, type SlotMask } from "../embedded-store/bm25-index.js";
export { ExactVectorIndex } from "../embedded-store/exact-vector-index.js";
export { type HnswSettings, HnswVectorIndex, isHnswAvailable } from "../embedded-store/hnsw-vector-index.js";
export type { VectorIndexSettings } from "../embedded-store/organisation-store.js";
export { indexModelOf, type OrganisationIndexModel, OrganisationIndexModels } from "../embeddings/organisation-index-models.js";
export {
  type ConversationMemory,
  type ConversationMemorySettings,
  type ConversationRequest,
  type ConversationStart,
  createConversationMemory,
  sessionKey,
  threadKey,
} from "../memory/conversation-memory.js";
export type { AppendOptions, Conversation, ConversationKey, ConversationTurn, MemoryStore } from "../memory/memory-store.js";
export { type CacheStores, cacheStoresFromConfig, isRedisConfigured, type RedisPackage } from "./cache-stores-from-config.js";
export {
  assertMetadataConditions,
  assertMetadataKey,
  type ChunkFilter,
  type MetadataCondition,
  matchesChunkFilter,
  matchesCondition,
  maximumMetadataConditions,
  maximumMetadataValues,
  metadataKeyPattern,
} from "./chunk-filter.js";
export { type ChunkRecord, chunkId, type DocumentVersion, documentInfo, indexedText, type ScoredChunk } from "./chunk-record.js";
export {
  compareUtf8,
  type DocumentInfo,
  type DocumentPage,
  type DocumentQuery,
  type DocumentRecord,
  type DocumentRegistry,
  summaryDocumentPrefix,
} from "./document-registry.js";
export {
  type DocumentStores,
  type StagedStoreParts,
  stagedDocumentStores,
  transactionalDocumentStores,
} from "./document-stores.js";
export { organisationCollectionName, organisationSuffix } from "./organisation-names.js";
export { progressIntervalMs, type ReindexRun, reindexOrganisation } from "./reindex-organisation.js";
export {
  isReindexable,
  observedReindexJob,
  type ReindexableIndex,
  type ReindexJob,
  type ReindexPhase,
  type ReindexState,
  type ReindexTarget,
  reindexHeartbeatTimeoutMs,
} from "./reindexable-index.js";
export {
  importBackend,
  loadStoreBackend,
  type ServerKeywordStore,
  type ServerVectorStore,
  type StoreBackend,
  type StoreBackendPackage,
  storeBackendSettings,
} from "./store-backend.js";
export {
  type StoreBackendLocation,
  type StoreIndexKind,
  storeBackendNamed,
  storeBackendPackages,
  storeBackendsHolding,
  storeBackendVariables,
  storeNamesHolding,
} from "./store-backend-packages.js";
export { storesFromConfig } from "./stores-from-config.js";
export {
  createUncommittedSweeper,
  type SweeperSettings,
  type SweepReport,
  type SweptOrganisation,
  type UncommittedSweeper,
} from "./sweep-uncommitted.js";
export { isSweepable, type StoredVersion, type SweepableIndex } from "./sweepable-index.js";
export type {
  ChunkIndex,
  CountOptions,
  EmbeddingModelInfo,
  HybridIndex,
  HybridSearchRequest,
  KeywordIndex,
  RegisteredDocument,
  SearchOptions,
  StagedIndex,
  StagedRegistry,
  StoreHealth,
  TransactionalStore,
  UpsertOptions,
  VectorIndex,
  WriteOptions,
} from "./vector-index.js";
export {
  defaultHnswExpansionSearch,
  hnswExpansionGrowth,
  hnswExpansionReferenceVectors,
  hnswExpansionSearchFor,
  isHybridIndex,
  sameModel,
} from "./vector-index.js";
