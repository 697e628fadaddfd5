/**
 * @docqa/elasticsearch: the Elasticsearch (8, 9) and OpenSearch (2, 3) backend of docqa. One BM25
 * chunk index and one registry index per organisation, ACL pre-filtering on keyword token fields,
 * written with the staged protocol of `@docqa/core`. Start with {@link searchEngineIndexFromConfig}
 * (what `storesFromConfig` loads) or {@link createSearchEngineIndex}.
 */
export { type BulkItemFailure, bulkFailures, describeBulkFailures } from "./bulk-response.js";
export {
  type BulkLimits,
  chunkDocumentId,
  defaultBulkLimits,
  type MetadataEntry,
  metadataEntries,
  registryDocumentId,
  type StoredChunk,
  storedChunk,
} from "./chunk-documents.js";
export {
  connectSearchEngine,
  type SearchEngineChoice,
  type SearchEngineClientFactories,
  type SearchEngineInfo,
  searchEngineInfo,
} from "./connect-search-engine.js";
export { createElasticsearchClient } from "./elasticsearch-client.js";
export {
  analysisSettings,
  analyzerName,
  chunkIndexDefinition,
  type IndexDefinitionSettings,
  maximumFilterableLength,
  registryIndexDefinition,
  similarityName,
} from "./index-definitions.js";
export { indexLayoutVersion, type OrganisationIndexNames, organisationIndexNames, validateIndexBase } from "./index-names.js";
export { createOpenSearchClient } from "./opensearch-client.js";
export type {
  SearchEngine,
  SearchEngineClient,
  SearchEngineConnectionSettings,
  SearchEngineRequest,
  SearchEngineRequestOptions,
  SearchEngineResponse,
} from "./search-engine-client.js";
export { createSearchEngineIndex, type SearchEngineIndex, type SearchEngineIndexSettings } from "./search-engine-index.js";
export { searchEngineIndexFromConfig, storeBackend } from "./search-engine-index-from-config.js";
export { chunkFilterClauses, metadataConditionClause, pruneBodies, type TextSearchOptions, textSearchBody } from "./search-queries.js";
