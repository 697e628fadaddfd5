/** The `ingestion` section of the configuration: chunking, RAPTOR, file limits, concurrency (see `docs/configuration.md`). */
import { z } from "zod";
import { defaultArchiveEntries, defaultCompressionRatio, defaultWorkerHeapMegabytes } from "../ingestion/loaders/archive-limits.js";
import { flag, integer, optionalInteger, setting } from "./setting-helpers.js";

/** Ingestion: chunking, RAPTOR, file limits, concurrency. */
export const ingestionSchema = z.object({
  /** `CHUNK_SIZE`, default 1000 characters. */
  chunkSize: setting("CHUNK_SIZE", integer(1000, 50)),
  /** `CHUNK_OVERLAP`, default 150 characters; must be smaller than `CHUNK_SIZE`. */
  chunkOverlap: setting("CHUNK_OVERLAP", integer(150, 0)),
  /** `USE_SEMANTIC_SPLIT`, default false. */
  useSemanticSplit: setting("USE_SEMANTIC_SPLIT", flag(false)),
  /** `SEMANTIC_SPLIT_PERCENTILE`, default 95: percentile of adjacent-sentence distances that marks a cut. */
  semanticSplitPercentile: setting("SEMANTIC_SPLIT_PERCENTILE", z.coerce.number().min(50).max(100).default(95)),
  /** `USE_RAPTOR`, default true. */
  useRaptor: setting("USE_RAPTOR", flag(true)),
  /** `RAPTOR_MAX_LEVELS`, default 3: summary levels built above the chunks. */
  raptorMaxLevels: setting("RAPTOR_MAX_LEVELS", integer(3, 1)),
  /** `RAPTOR_CLUSTER_SIZE`, default 8: largest cluster summarised into one node. */
  raptorClusterSize: setting("RAPTOR_CLUSTER_SIZE", integer(8, 2)),
  /** `RAPTOR_SUMMARY_CHARS`, default 800: target length of an extractive summary. */
  raptorSummaryChars: setting("RAPTOR_SUMMARY_CHARS", integer(800, 100)),
  /** `JSON_RECORDS_AS_DOCUMENTS`, default true: each record of a JSON record array becomes its own document. */
  jsonRecordsAsDocuments: setting("JSON_RECORDS_AS_DOCUMENTS", flag(true)),
  /**
   * `MAX_UPLOAD_BYTES`, default 104857600 (100 MiB): largest file ingested, checked before it is
   * read (`file_too_large`, 413 for an upload). A whole upload request has its own limit,
   * `MAX_UPLOAD_REQUEST_BYTES` (server settings).
   */
  maxUploadBytes: setting("MAX_UPLOAD_BYTES", integer(100 * 1024 * 1024, 1024)),
  /**
   * `MAX_EXTRACTED_CHARS`, default 20000000: most characters of text taken from one file, or
   * held by one `/upsert` document (`file_too_large`; `payload_too_large` for `/upsert`).
   */
  maxExtractedChars: setting("MAX_EXTRACTED_CHARS", integer(20_000_000, 1000)),
  /** `MAX_UPSERT_DOCUMENTS`, default 5000: documents in one `/upsert` request (`too_many_documents`, 413). */
  maxUpsertDocuments: setting("MAX_UPSERT_DOCUMENTS", integer(5000, 1)),
  /**
   * `MAX_JSON_DEPTH`, default 64: deepest nesting of arrays and objects in a JSON request body
   * (the body itself is level 1) or a JSON file (`json_too_deep`, 400).
   */
  maxJsonDepth: setting("MAX_JSON_DEPTH", integer(64, 2)),
  /** `MAX_PDF_PAGES`, default 5000: pages of one PDF, checked before any text is extracted (`too_many_pages`). */
  maxPdfPages: setting("MAX_PDF_PAGES", integer(5000, 1)),
  /** `MAX_ARCHIVE_ENTRIES`, default 10000: entries of a DOCX (zip) archive, checked before inflating (`archive_too_large`). */
  maxArchiveEntries: setting("MAX_ARCHIVE_ENTRIES", integer(defaultArchiveEntries, 1)),
  /**
   * `MAX_ARCHIVE_BYTES`: inflated bytes read from a DOCX (zip) archive, its parts together (a part
   * read twice counts twice), counted as they inflate, whatever sizes the archive declares
   * (`archive_too_large`). Default derived from `INGESTION_WORKER_HEAP_MB` so that whatever
   * passes parses within a worker's heap: 14 MiB (14680064) for the default heap
   * (`ingestion/loaders/archive-limits.ts`).
   */
  maxArchiveBytes: setting("MAX_ARCHIVE_BYTES", optionalInteger(1024)),
  /**
   * `MAX_ARCHIVE_ENTRY_BYTES`: inflated bytes of one part of a DOCX (zip) archive, counted as it
   * inflates (`archive_too_large`); default as `MAX_ARCHIVE_BYTES`.
   */
  maxArchiveEntryBytes: setting("MAX_ARCHIVE_ENTRY_BYTES", optionalInteger(1024)),
  /**
   * `MAX_COMPRESSION_RATIO`, default 200: inflated bytes read from a DOCX (zip) archive over its
   * file size, counted as they inflate (`archive_too_large`).
   */
  maxCompressionRatio: setting("MAX_COMPRESSION_RATIO", integer(defaultCompressionRatio, 1)),
  /**
   * `INGESTION_WORKER_HEAP_MB`, default 4096: V8 old-generation heap of each ingestion worker
   * thread (`resourceLimits.maxOldGenerationSizeMb`). A task that needs more ends its thread,
   * which the pool replaces; the file fails with `file_too_large`. The default archive limits
   * are derived from it.
   */
  workerHeapMegabytes: setting("INGESTION_WORKER_HEAP_MB", integer(defaultWorkerHeapMegabytes, 64)),
  /**
   * `MAX_INGESTION_THREADS`, default 10: files of one ingestion job processed at once, and the
   * most ingestion worker threads. The pool runs at most one thread per CPU core
   * (`os.availableParallelism()`), since each is CPU-bound and loads its own embedding model; files
   * beyond the threads wait in the pool's queue.
   */
  maxIngestionThreads: setting("MAX_INGESTION_THREADS", integer(10, 1)),
  /**
   * `INGESTION_WORKERS`, default true: parse, chunk, embed and write ingested documents in worker
   * threads, so the serving thread only routes requests (docs/decisions/0006). Applies when the
   * service builds its own stores and embeddings from the configuration; with stores, embeddings
   * or a summariser passed as objects, or when false, ingestion runs in the calling thread.
   */
  workers: setting("INGESTION_WORKERS", flag(true)),
  /**
   * `INGESTION_QUEUE_SIZE`, default 16: ingestion requests (an `/upsert`, an `/api/ingest` or a
   * `service.ingestFiles`/`startIngestion` call) accepted and not yet finished; one more is
   * refused with `ingestion_busy` (503 with `Retry-After`) instead of waiting without bound.
   */
  queueSize: setting("INGESTION_QUEUE_SIZE", integer(16, 1)),
});
