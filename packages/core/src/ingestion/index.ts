/**
 * @docqa/core/ingestion: the parts of ingestion (file discovery, loaders, chunking, summary
 * nodes, indexing and deletion) for tools that run them without a service. Applications ingest
 * through `RagService.upsert` and `RagService.startIngestion`.
 */
export { type ChunkingContext, type ChunkingSettings, chunkDocument } from "../chunking/chunk-document.js";
export { createSemanticSplit, type SemanticSplitSettings } from "../chunking/semantic-split.js";
export { hashOf, type SourceDocument, sourceFromInput } from "../chunking/source-document.js";
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
export { type LoadFileOptions, loaderVersion, loadFile } from "./loaders/load-file.js";
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
