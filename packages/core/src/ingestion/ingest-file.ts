/**
 * Ingestion of one file: read it (refusing one larger than `MAX_UPLOAD_BYTES` before reading),
 * skip it when its bytes are unchanged since its last ingestion, load it (any of the six formats,
 * within the loaders' limits), and index its documents atomically, removing the documents an
 * earlier version of the file produced and this one does not. Runs in an ingestion worker thread
 * or in the calling thread (see `ingestion-executor.ts`).
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { hashOf, type SourceDocument } from "../chunking/source-document.js";
import type { DocqaConfig } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import { raptorDocumentPrefix } from "../raptor/build-raptor-nodes.js";
import { type IndexingDependencies, indexDocuments, storedHash } from "./index-documents.js";
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
  lastModified?: Date | undefined;
}

/** What {@link ingestFile} ingests, and where. */
export interface FileIngestionRequest {
  orgId: string;
  file: FileSource;
  /** Owner of documents without `metadata.owner_id`. */
  uploader: string;
  /** Metadata applied to every document (`acl`, `owner_id`, `source`, ...). */
  metadata: Record<string, unknown>;
  signal?: AbortSignal | undefined;
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
}

/** The loaders' limits from the configuration (`MAX_UPLOAD_BYTES`, `MAX_EXTRACTED_CHARS`, `MAX_JSON_DEPTH`, `MAX_PDF_PAGES`, `MAX_ARCHIVE_*`, `MAX_COMPRESSION_RATIO`). */
export function loaderLimits(config: DocqaConfig): LoaderLimits {
  const ingestion = config.ingestion;
  return {
    maxFileBytes: ingestion.maxUploadBytes,
    maxExtractedChars: ingestion.maxExtractedChars,
    maxJsonDepth: ingestion.maxJsonDepth,
    maxPdfPages: ingestion.maxPdfPages,
    maxArchiveEntries: ingestion.maxArchiveEntries,
    maxArchiveBytes: ingestion.maxArchiveBytes,
    maxCompressionRatio: ingestion.maxCompressionRatio,
  };
}

/**
 * Ingests one file; see the module documentation.
 *
 * @throws {DocqaError} a file code (`file_too_large`, `corrupt_file`, `archive_too_large`, ...;
 *   see `loadFile`), `invalid_request` for a file with neither name nor path, or a store error.
 */
export async function ingestFile(dependencies: IndexingDependencies, request: FileIngestionRequest): Promise<IngestedFile> {
  const { config, stores, embeddings } = dependencies;
  const { file, orgId } = request;
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
        { component: "ingestion" },
      );
    }
    bytes = await readFile(file.path);
    lastModified ??= info.mtime;
  }
  const baseId = file.docId ?? name;
  const fileHash = createHash("sha256").update(bytes).digest("hex");
  const contentHash = (suffix: string) =>
    hashOf(fileHash, loaderVersion, suffix, request.metadata, config.ingestion.jsonRecordsAsDocuments);
  const stored = await stores.registry.contentHashes(orgId, [baseId, `${baseId}#0`]);
  if (
    stored.get(baseId) === storedHash(config, embeddings, contentHash("")) ||
    stored.get(`${baseId}#0`) === storedHash(config, embeddings, contentHash("#0"))
  ) {
    return { unchanged: true, documents: 0, chunks: 0, warnings: [] };
  }
  request.signal?.throwIfAborted();
  const loaded = await loadFile(
    { name, bytes, lastModified },
    {
      limits: loaderLimits(config),
      chunkSize: config.ingestion.chunkSize,
      json: { recordsAsDocuments: config.ingestion.jsonRecordsAsDocuments },
    },
  );
  const split = loaded.documents.length > 1 || loaded.documents.some((document) => document.idSuffix !== "");
  const sources: SourceDocument[] = loaded.documents.map((document) => ({
    docId: `${baseId}${document.idSuffix}`,
    title: document.title,
    metadata: { ...document.metadata, ...request.metadata },
    sections: document.sections,
    contentHash: contentHash(document.idSuffix),
    derivedFrom: split ? [baseId] : undefined,
  }));
  // Documents an earlier version of this file produced and this one does not (fewer JSON records).
  const previous = new Set([baseId, ...(await stores.registry.derivedDocuments(orgId, [baseId]))]);
  for (const source of sources) previous.delete(source.docId);
  const result = await indexDocuments(dependencies, {
    orgId,
    uploader: request.uploader,
    documents: sources,
    deleteDocIds: [...previous].filter((docId) => !docId.startsWith(raptorDocumentPrefix)),
    signal: request.signal,
  });
  return {
    unchanged: false,
    documents: result.documents.length,
    chunks: result.documents.reduce((sum, document) => sum + document.chunks, 0) + result.summaries,
    warnings: loaded.warnings,
  };
}
