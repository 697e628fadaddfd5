/**
 * Ingestion of one file: read it (refusing one larger than `MAX_UPLOAD_BYTES` before reading),
 * check the write rules on every stored document it would replace (a file replacing somebody
 * else's document is rejected with `forbidden`, before its bytes are compared, so "unchanged" is
 * only ever said to a principal allowed to write it), skip it when its bytes and access are
 * unchanged since its last ingestion, load it (any of the six formats,
 * within the loaders' limits), and index its documents atomically, removing the documents an
 * earlier version of the file produced and this one does not. Runs in an ingestion worker thread
 * or in the calling thread (see `ingestion-executor.ts`).
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { trace } from "@opentelemetry/api";
import { normalizePrincipal, type Principal } from "../acl/principal.js";
import { chunkDocument } from "../chunking/chunk-document.js";
import { hashOf, type SourceDocument, withoutAccess } from "../chunking/source-document.js";
import type { DocqaConfig } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { AuditLog } from "../logging/audit-log.js";
import { summaryDocumentPrefix } from "../stores/document-registry.js";
import { withSpan } from "../telemetry/tracing.js";
import { auditEvent, authorizeWrites, type WriteContext } from "./authorize-writes.js";
import type { EmbeddingProgress } from "./embed-chunks.js";
import { aclOf, type IndexingDependencies, indexDocuments, requestedOwnerOf, storedHash, versionHash } from "./index-documents.js";
import { archiveBytesForHeap } from "./loaders/archive-limits.js";
import { loaderVersion, loadFile } from "./loaders/load-file.js";
import type { LoaderLimits } from "./loaders/loaded-file.js";

/** A file to ingest: a path to read, or bytes already in memory. */
export interface FileSource {
  /** File name with extension; decides the format. Default the path's base name. */
  name?: string | undefined;
  /** Path to read. */
  path?: string | undefined;
  /** Content, when not read from `path`. */
  bytes?: Uint8Array | undefined;
  /** Document id; default the name. A JSON record array adds `#<index>` per record. */
  docId?: string | undefined;
  /**
   * The id the same file was stored under by an earlier release (an upload's bare file name, see
   * `upload-document-ids.ts`): that document (and its JSON records) is deleted in the same write
   * when it belongs to the owner of this file's documents, and left alone, without a word, when
   * it is somebody else's. Default none.
   */
  replacesDocId?: string | undefined;
  lastModified?: Date | undefined;
}

/** What {@link ingestFile} ingests, and where. */
export interface FileIngestionRequest {
  orgId: string;
  file: FileSource;
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** Metadata applied to every document (`acl`, `owner_id`, `source`, ...). */
  metadata: Record<string, unknown>;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Progress of the embedding of the file's chunks, in the thread that embeds (not sent to a worker thread). */
  onEmbeddingProgress?: ((progress: EmbeddingProgress) => void) | undefined;
}

/** Outcome of {@link ingestFile}. */
export interface IngestedFile {
  /** True when the file's bytes were already ingested (nothing was parsed or written). */
  unchanged: boolean;
  /** Documents written. */
  documents: number;
  /** Chunks written, summary nodes included. */
  chunks: number;
  /** Non-fatal observations of the loader. */
  warnings: string[];
  /** The final progress of the embedding of the file's chunks, when any were embedded or cached. */
  embedding?: EmbeddingProgress | undefined;
}

/**
 * The loaders' limits from the configuration (`MAX_UPLOAD_BYTES`, `MAX_EXTRACTED_CHARS`,
 * `MAX_JSON_DEPTH`, `MAX_PDF_PAGES`, `MAX_ARCHIVE_*`, `MAX_COMPRESSION_RATIO`); the archive byte
 * limits, when unset, derived from `INGESTION_WORKER_HEAP_MB` (`archiveBytesForHeap`).
 */
export function loaderLimits(config: DocqaConfig): LoaderLimits {
  const ingestion = config.ingestion;
  const archiveBytes = ingestion.maxArchiveBytes ?? archiveBytesForHeap(ingestion.workerHeapMegabytes);
  return {
    maxFileBytes: ingestion.maxUploadBytes,
    maxExtractedChars: ingestion.maxExtractedChars,
    maxJsonDepth: ingestion.maxJsonDepth,
    maxPdfPages: ingestion.maxPdfPages,
    maxArchiveEntries: ingestion.maxArchiveEntries,
    maxArchiveBytes: archiveBytes,
    maxArchiveEntryBytes: ingestion.maxArchiveEntryBytes ?? archiveBytes,
    maxCompressionRatio: ingestion.maxCompressionRatio,
  };
}

/**
 * Ingests one file; see the module documentation.
 *
 * @throws {DocqaError} `forbidden` when the write rules refuse replacing a stored document, a
 *   file code (`file_too_large`, `corrupt_file`, `archive_too_large`, ...; see `loadFile`),
 *   `invalid_request` for a file with neither name nor path, or a store error.
 */
export async function ingestFile(dependencies: IndexingDependencies, request: FileIngestionRequest): Promise<IngestedFile> {
  const prepared = await prepareFile(dependencies, request, dependencies.audit);
  if (prepared.unchanged) return { unchanged: true, documents: 0, chunks: 0, warnings: [] };
  request.signal?.throwIfAborted();
  const { sources, warnings } = await loadSources(dependencies.config, prepared, request);
  // Documents an earlier version of this file produced and this one does not (fewer JSON records),
  // and the owner's copy stored under the id of an earlier release.
  const previous = new Set([prepared.baseId, ...prepared.previousRecords, ...prepared.replaced]);
  for (const source of sources) previous.delete(source.docId);
  let embedding: EmbeddingProgress | undefined;
  const result = await indexDocuments(dependencies, {
    orgId: request.orgId,
    principal: request.principal,
    uploader: request.uploader,
    documents: sources,
    deleteDocIds: [...previous],
    via: "ingest",
    requestId: request.requestId,
    signal: request.signal,
    onEmbeddingProgress: (progress) => {
      embedding = progress;
      request.onEmbeddingProgress?.(progress);
    },
  });
  return {
    unchanged: false,
    documents: result.documents.length,
    chunks: result.documents.reduce((sum, document) => sum + document.chunks, 0) + result.summaries,
    warnings,
    embedding,
  };
}

/** What {@link planFile} foresees for a file. */
export interface FilePlan {
  /**
   * Chunks the file's documents will have (split as `CHUNK_SIZE` and `CHUNK_OVERLAP` say, with
   * the recursive splitter even when the semantic split is on); 0 when the file is unchanged or
   * will be rejected. Summary nodes are not counted.
   */
  chunks: number;
}

/**
 * Foresees the work of ingesting a file without writing anything or recording an audit line: it
 * reads the file, checks the write rules and whether it is unchanged, loads it and splits its
 * documents into chunks, and counts them. Ingestion jobs plan their files first when asked
 * (`plan`), so that progress and its ETA count chunks, the embedding work, from the start. A
 * file that will be rejected plans 0 chunks (its error is reported when it is ingested).
 */
export async function planFile(dependencies: IndexingDependencies, request: FileIngestionRequest): Promise<FilePlan> {
  try {
    const prepared = await prepareFile(dependencies, request, { record() {} });
    if (prepared.unchanged) return { chunks: 0 };
    const { sources } = await loadSources(dependencies.config, prepared, request);
    const { chunkSize, chunkOverlap } = dependencies.config.ingestion;
    let chunks = 0;
    for (const source of sources) {
      const version = await chunkDocument(
        source,
        { chunkSize, chunkOverlap },
        { orgId: request.orgId, uploader: request.uploader ?? request.principal.userName },
      );
      chunks += version.chunks.length;
    }
    return { chunks };
  } catch (error) {
    if (DocqaError.isInstance(error) && error.code !== "store_unavailable" && error.code !== "internal_error") return { chunks: 0 };
    throw error;
  }
}

/** A file read, its stored documents looked up and the write rules decided. */
interface PreparedFile {
  unchanged: false;
  name: string;
  bytes: Uint8Array;
  lastModified: Date | undefined;
  /** The file's document id (its documents' ids start with it). */
  baseId: string;
  /** The content hash of the document with id suffix `suffix` (`""`, or `#<n>` for JSON records). */
  contentHash: (suffix: string) => string;
  /** Stored documents derived from the file (JSON records). */
  previousRecords: string[];
  /** Documents stored under `replacesDocId` that this write deletes. */
  replaced: string[];
}

/**
 * Reads the file (refusing one larger than `MAX_UPLOAD_BYTES` before reading), looks up the
 * stored documents it would replace, decides the write rules on them (throwing `forbidden`,
 * with audit lines in `audit`) and tells whether its bytes and access are unchanged (recording
 * `unchanged` audit lines).
 */
async function prepareFile(
  dependencies: IndexingDependencies,
  request: FileIngestionRequest,
  audit: AuditLog,
): Promise<PreparedFile | { unchanged: true }> {
  const { config, stores, embeddings } = dependencies;
  const { file } = request;
  const name = file.name ?? (file.path ? basename(file.path) : undefined);
  if (!name) throw new DocqaError("invalid_request", "a file needs a name or a path", { component: "ingestion" });
  let bytes = file.bytes;
  let lastModified = file.lastModified;
  if (!bytes) {
    if (!file.path) throw new DocqaError("invalid_request", `${name}: a file needs bytes or a path`, { component: "ingestion" });
    const info = await stat(file.path);
    if (info.size > config.ingestion.maxUploadBytes) {
      throw new DocqaError(
        "file_too_large",
        `${name} has ${info.size} bytes; the limit is ${config.ingestion.maxUploadBytes} (MAX_UPLOAD_BYTES)`,
        {
          component: "ingestion",
        },
      );
    }
    bytes = await readFile(file.path);
    lastModified ??= info.mtime;
  }
  const baseId = file.docId ?? name;
  const orgId = request.orgId;
  const fileHash = createHash("sha256").update(bytes).digest("hex");
  const contentHash = (suffix: string) =>
    hashOf(fileHash, loaderVersion, suffix, withoutAccess(request.metadata), config.ingestion.jsonRecordsAsDocuments);
  // The write rules first, on every stored document this file would replace (the file itself, or
  // the records of a JSON file), so that nobody learns from "unchanged" what a document they may
  // not write contains.
  const previousRecords = (await stores.registry.derivedDocuments(orgId, [baseId])).filter(
    (docId) => !docId.startsWith(summaryDocumentPrefix),
  );
  const records = await stores.registry.describeDocuments(orgId, [baseId, `${baseId}#0`, ...previousRecords]);
  const requestedOwner = requestedOwnerOf(request.metadata);
  const replaced = await replacedDocuments(dependencies, request, baseId);
  const context: WriteContext = {
    orgId,
    principal: request.principal,
    adminRoles: config.access.adminRoles,
    via: "ingest",
    requestId: request.requestId,
    audit,
  };
  const decisions = authorizeWrites(
    context,
    [...records.keys()].map((docId) => ({ docId, action: "upsert" as const, requestedOwner })),
    records,
  );
  const unchanged = decisions.some(({ docId, stored, decision }) => {
    const suffix = docId === baseId ? "" : docId === `${baseId}#0` ? "#0" : undefined;
    if (suffix === undefined || !stored) return false;
    return (
      stored.contentHash === versionHash(storedHash(config, embeddings, contentHash(suffix)), decision.ownerId, aclOf(request.metadata))
    );
  });
  if (unchanged) {
    for (const { docId, decision } of decisions)
      context.audit.record(auditEvent(context, docId, "write", "unchanged", { rule: decision.rule }));
    return { unchanged: true };
  }
  return { unchanged: false, name, bytes, lastModified, baseId, contentHash, previousRecords, replaced };
}

/** Loads a prepared file (any of the six formats, within the loaders' limits) into the source documents it holds. */
async function loadSources(
  config: DocqaConfig,
  prepared: PreparedFile,
  request: FileIngestionRequest,
): Promise<{ sources: SourceDocument[]; warnings: string[] }> {
  const { name, bytes, lastModified, baseId, contentHash } = prepared;
  trace.getActiveSpan()?.setAttribute("docqa.file.bytes", bytes.byteLength);
  const loaded = await withSpan("docqa.ingest.load", { "docqa.file.bytes": bytes.byteLength }, async (span) => {
    const result = await loadFile(
      { name, bytes, lastModified },
      {
        limits: loaderLimits(config),
        chunkSize: config.ingestion.chunkSize,
        json: { recordsAsDocuments: config.ingestion.jsonRecordsAsDocuments },
      },
    );
    span.setAttributes({ "docqa.documents": result.documents.length, "docqa.warnings": result.warnings.length });
    return result;
  });
  const split = loaded.documents.length > 1 || loaded.documents.some((document) => document.idSuffix !== "");
  const sources: SourceDocument[] = loaded.documents.map((document) => ({
    docId: `${baseId}${document.idSuffix}`,
    title: document.title,
    metadata: { ...document.metadata, ...request.metadata },
    sections: document.sections,
    contentHash: contentHash(document.idSuffix),
    derivedFrom: split ? [baseId] : undefined,
  }));
  return { sources, warnings: loaded.warnings };
}

/**
 * The documents stored under `request.file.replacesDocId` (and its JSON records) that belong to
 * the owner this file's documents will have (`metadata.owner_id`, else the uploader, else the
 * principal), to delete in the same write. Another owner's are not returned, so nothing tells
 * the uploader they exist.
 */
async function replacedDocuments(dependencies: IndexingDependencies, request: FileIngestionRequest, baseId: string): Promise<string[]> {
  const legacy = request.file.replacesDocId;
  if (legacy === undefined || legacy === baseId) return [];
  const { stores } = dependencies;
  const derived = (await stores.registry.derivedDocuments(request.orgId, [legacy])).filter(
    (docId) => !docId.startsWith(summaryDocumentPrefix),
  );
  const records = await stores.registry.describeDocuments(request.orgId, [legacy, ...derived]);
  const owner = normalizePrincipal({
    userName: requestedOwnerOf(request.metadata) ?? request.uploader ?? request.principal.userName,
    roles: [],
    groups: [],
  }).userName;
  return [...records.values()].filter((record) => record.ownerId.trim().toLowerCase() === owner).map((record) => record.docId);
}
