/**
 * @docqa/core/ingestion: the parts of ingestion (file discovery, loaders, chunking, summary
 * nodes, embedding preparation and its cache, indexing and deletion) for tools that run them
 * without a service. Applications ingest
 * through `RagService.upsert` and `RagService.startIngestion`.
 */
export { type ChunkingContext, type ChunkingSettings, chunkDocument } from "../chunking/chunk-document.js";
export { createSemanticSplit, type SemanticSplitSettings } from "../chunking/semantic-split.js";
export { hashOf, type SourceDocument, sourceFromInput } from "../chunking/source-document.js";
export { type EmbeddingCache, type EmbeddingCacheSettings, openEmbeddingCache } from "../embeddings/embedding-cache.js";
export { type EmbeddingModelPreset, embeddingModelPreset, type Pooling } from "../embeddings/embedding-model-presets.js";
export { type EmbeddingState, embeddingCacheFile, prepareEmbeddings } from "../embeddings/prepare-embeddings.js";
export { resolveEmbeddingDtype } from "../embeddings/resolve-embedding-dtype.js";
export { defaultMaxBatchTokens, defaultSingleThreadBatchTokens } from "../embeddings/transformers-embeddings.js";
export {
  buildRaptorNodes,
  isSummaryChunk,
  type RaptorDependencies,
  type RaptorSettings,
  raptorDocumentPrefix,
} from "../raptor/build-raptor-nodes.js";
export { type ClusterSettings, clusterVectors } from "../raptor/cluster-vectors.js";
export { createExtractiveSummarizer, type ExtractiveSummarizerSettings, type Summarizer } from "../raptor/summarizer.js";
export { type DeleteDocumentsRequest, type DeleteDocumentsResult, deleteDocuments } from "./delete-documents.js";
export { type EmbedChunksOptions, type EmbeddingProgress, embedChunks, embeddingSliceSize } from "./embed-chunks.js";
export { type FoundFile, findFiles, type SkippedFile } from "./find-files.js";
export {
  type IndexedDocument,
  type IndexingDependencies,
  type IndexingRequest,
  type IndexingResult,
  indexDocuments,
  storedHash,
  versionHash,
} from "./index-documents.js";
export { type FileIngestionRequest, type IngestedFile, ingestFile, loaderLimits } from "./ingest-file.js";
export {
  type FileSource,
  type IngestionProgressListener,
  type IngestionRun,
  type IngestionThroughput,
  runIngestionJob,
} from "./ingest-files.js";
export type { IngestionExecutor, UpsertTask } from "./ingestion-executor.js";
export { jsonDepth } from "./json-depth.js";
export {
  type ArchiveLimits,
  archiveBytesForHeap,
  defaultArchiveLimits,
  defaultWorkerHeapMegabytes,
  docxParseHeapPerXmlByte,
  docxParseHeapShare,
} from "./loaders/archive-limits.js";
export { type BoundedZip, openBoundedZip } from "./loaders/bounded-zip.js";
export { type DecodedText, decodeText } from "./loaders/decode-text.js";
export { type FileFormat, supportedExtensions, supportedFormats } from "./loaders/file-loaders.js";
export { type FormatListConjunction, type FormatListStyle, formatList } from "./loaders/format-lists.js";
export { type LoadFileOptions, loaderVersion, loadFile } from "./loaders/load-file.js";
export {
  defaultJsonMetadataKeys,
  type FileInput,
  type JsonLoaderOptions,
  type LoadedDocument,
  type LoadedFile,
  type LoadedSection,
  type LoaderLimits,
} from "./loaders/loaded-file.js";
export { formatFromName } from "./loaders/sniff-file-format.js";
export { type UploadedFile, uploadDocumentId, uploadedFileSources } from "./upload-document-ids.js";
export {
  createWorkerPoolExecutor,
  defaultStopTimeoutMs,
  ingestionThreads,
  type WorkerPoolExecutorSettings,
  workerEmbeddingThreads,
  workerResourceLimits,
  workerYoungGenerationMegabytes,
} from "./worker-pool-executor.js";
