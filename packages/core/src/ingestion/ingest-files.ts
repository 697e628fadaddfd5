/**
 * File ingestion as a job: each file is checked against the write rules (a file replacing
 * somebody else's document is rejected with `forbidden`, before its bytes are compared, so
 * "unchanged" is only ever said to a principal allowed to write it), loaded (any of the six
 * formats), skipped when its bytes and access are unchanged since its last ingestion, and indexed
 * atomically on its own, with up to `MAX_INGESTION_THREADS` files in flight. A rejected file is
 * recorded in the job with its error code and the rest of the batch goes on; nothing of a
 * rejected file is written.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { trace } from "@opentelemetry/api";
import pLimit from "p-limit";
import type { Principal } from "../acl/principal.js";
import { hashOf, type SourceDocument, withoutAccess } from "../chunking/source-document.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import { summaryDocumentPrefix } from "../stores/document-registry.js";
import { errorCodeOf, withSpan } from "../telemetry/tracing.js";
import { auditEvent, authorizeWrites, type WriteContext } from "./authorize-writes.js";
import { aclOf, type IndexingDependencies, indexDocuments, requestedOwnerOf, storedHash, versionHash } from "./index-documents.js";
import { loaderVersion, loadFile } from "./loaders/load-file.js";

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

/** Progress of a running job, after each file. */
export type IngestionProgressListener = (job: IngestionJob, file: string) => void;

/** What one run of an ingestion job needs. */
export interface IngestionRun {
  dependencies: IndexingDependencies;
  jobStore: JobStore;
  job: IngestionJob;
  files: readonly FileSource[];
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** Metadata applied to every document (`acl`, `owner_id`, `source`, ...). */
  metadata: Record<string, unknown>;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  onProgress?: IngestionProgressListener | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Runs an ingestion job to completion, saving its state after every file. The job is one span,
 * `docqa.ingest.job`, parent of one `docqa.ingest.file` span per file (see `ingestFileInSpan`).
 */
export async function runIngestionJob(run: IngestionRun): Promise<IngestionJob> {
  return withSpan(
    "docqa.ingest.job",
    { "docqa.job_id": run.job.jobId, "docqa.org_id": run.job.orgId, "docqa.files": run.files.length },
    async (span) => {
      const job = await runJobFiles(run);
      span.setAttributes({
        "docqa.job.state": job.state,
        "docqa.files.ingested": job.files.ingested,
        "docqa.files.unchanged": job.files.unchanged,
        "docqa.files.failed": job.files.failed,
        "docqa.documents": job.documents,
        "docqa.chunks": job.chunks,
      });
      return job;
    },
  );
}

async function runJobFiles(run: IngestionRun): Promise<IngestionJob> {
  const { job, jobStore } = run;
  job.state = "running";
  job.startedAt ??= new Date().toISOString();
  job.files = { total: run.files.length, processed: 0, ingested: 0, unchanged: 0, failed: 0 };
  job.documents = 0;
  job.chunks = 0;
  job.errors = [];
  job.warnings = [];
  await jobStore.save(job);
  const limit = pLimit(Math.max(1, run.dependencies.config.ingestion.maxIngestionThreads));
  let saving = Promise.resolve();
  await Promise.all(
    run.files.map((file, index) =>
      limit(async () => {
        // The name the caller gave (an upload's file name) wins over a spool path.
        const label = file.name ?? file.path ?? "(unnamed)";
        try {
          run.signal?.throwIfAborted();
          const outcome = await ingestFileInSpan(run, file, index);
          if (outcome.unchanged) job.files.unchanged++;
          else job.files.ingested++;
          job.documents += outcome.documents;
          job.chunks += outcome.chunks;
          for (const message of outcome.warnings) job.warnings.push({ file: label, message });
        } catch (error) {
          if (run.signal?.aborted) throw error;
          run.dependencies.metrics?.fileIngested?.({ outcome: "rejected", errorCode: errorCodeOf(error), documents: 0, chunks: 0 });
          job.files.failed++;
          job.errors.push({
            file: label,
            code: DocqaError.isInstance(error) ? error.code : "internal_error",
            message: DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message,
          });
          if (!DocqaError.isInstance(error))
            run.dependencies.logger.error("file ingestion failed", {
              component: "ingestion",
              file: label,
              error: (error as Error).message,
            });
        }
        job.files.processed++;
        saving = saving.then(() => jobStore.save(job));
        run.onProgress?.(job, label);
      }),
    ),
  );
  await saving;
  const succeeded = job.files.ingested + job.files.unchanged;
  job.state = job.files.failed === 0 ? "succeeded" : succeeded === 0 ? "failed" : "partially_failed";
  job.finishedAt = new Date().toISOString();
  await jobStore.save(job);
  return job;
}

type FileOutcome = { unchanged: boolean; documents: number; chunks: number; warnings: string[] };

/**
 * Ingests one file in its span `docqa.ingest.file` (`docqa.file.index`, `docqa.file.extension`,
 * `docqa.file.bytes` when known, `docqa.file.outcome`, `docqa.documents`, `docqa.chunks`; the
 * file name only when `TRACE_CONTENT` is true), and reports it to the metrics (`fileIngested`;
 * a rejection is reported by the caller, which also sees aborts).
 */
function ingestFileInSpan(run: IngestionRun, file: FileSource, index: number): Promise<FileOutcome> {
  const name = file.name ?? (file.path ? basename(file.path) : "");
  const attributes = {
    "docqa.file.index": index,
    "docqa.file.extension": extname(name).slice(1).toLowerCase(),
    ...(file.bytes ? { "docqa.file.bytes": file.bytes.byteLength } : {}),
    ...(run.dependencies.config.logging.traceContent ? { "docqa.file.name": name } : {}),
  };
  return withSpan("docqa.ingest.file", attributes, async (span) => {
    const outcome = await ingestOne(run, file);
    span.setAttributes({
      "docqa.file.outcome": outcome.unchanged ? "unchanged" : "ingested",
      "docqa.documents": outcome.documents,
      "docqa.chunks": outcome.chunks,
    });
    run.dependencies.metrics?.fileIngested?.({
      outcome: outcome.unchanged ? "unchanged" : "ingested",
      errorCode: null,
      documents: outcome.documents,
      chunks: outcome.chunks,
    });
    return outcome;
  });
}

async function ingestOne(run: IngestionRun, file: FileSource): Promise<FileOutcome> {
  const { config, stores, embeddings } = run.dependencies;
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
  const orgId = run.job.orgId;
  const fileHash = createHash("sha256").update(bytes).digest("hex");
  const contentHash = (suffix: string) =>
    hashOf(fileHash, loaderVersion, suffix, withoutAccess(run.metadata), config.ingestion.jsonRecordsAsDocuments);
  // The write rules first, on every stored document this file would replace (the file itself, or
  // the records of a JSON file), so that nobody learns from "unchanged" what a document they may
  // not write contains.
  const previousRecords = (await stores.registry.derivedDocuments(orgId, [baseId])).filter(
    (docId) => !docId.startsWith(summaryDocumentPrefix),
  );
  const records = await stores.registry.describeDocuments(orgId, [baseId, `${baseId}#0`, ...previousRecords]);
  const requestedOwner = requestedOwnerOf(run.metadata);
  const context: WriteContext = {
    orgId,
    principal: run.principal,
    adminRoles: config.access.adminRoles,
    via: "ingest",
    requestId: run.requestId,
    audit: run.dependencies.audit,
  };
  const decisions = authorizeWrites(
    context,
    [...records.keys()].map((docId) => ({ docId, action: "upsert" as const, requestedOwner })),
    records,
  );
  const unchanged = decisions.some(({ docId, stored, decision }) => {
    const suffix = docId === baseId ? "" : docId === `${baseId}#0` ? "#0" : undefined;
    if (suffix === undefined || !stored) return false;
    return stored.contentHash === versionHash(storedHash(config, embeddings, contentHash(suffix)), decision.ownerId, aclOf(run.metadata));
  });
  if (unchanged) {
    for (const { docId, decision } of decisions)
      context.audit.record(auditEvent(context, docId, "write", "unchanged", { rule: decision.rule }));
    return { unchanged: true, documents: 0, chunks: 0, warnings: [] };
  }
  const fileBytes = bytes;
  trace.getActiveSpan()?.setAttribute("docqa.file.bytes", fileBytes.byteLength);
  const loaded = await withSpan("docqa.ingest.load", { "docqa.file.bytes": fileBytes.byteLength }, async (span) => {
    const result = await loadFile(
      { name, bytes: fileBytes, lastModified },
      {
        limits: { maxFileBytes: config.ingestion.maxUploadBytes, maxExtractedChars: config.ingestion.maxExtractedChars },
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
    metadata: { ...document.metadata, ...run.metadata },
    sections: document.sections,
    contentHash: contentHash(document.idSuffix),
    derivedFrom: split ? [baseId] : undefined,
  }));
  // Documents an earlier version of this file produced and this one does not (fewer JSON records).
  const previous = new Set([baseId, ...previousRecords]);
  for (const source of sources) previous.delete(source.docId);
  const result = await indexDocuments(run.dependencies, {
    orgId,
    principal: run.principal,
    uploader: run.uploader,
    documents: sources,
    deleteDocIds: [...previous],
    via: "ingest",
    requestId: run.requestId,
    signal: run.signal,
  });
  return {
    unchanged: false,
    documents: result.documents.length,
    chunks: result.documents.reduce((sum, document) => sum + document.chunks, 0) + result.summaries,
    warnings: loaded.warnings,
  };
}
