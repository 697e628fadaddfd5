/**
 * The indexing pipeline shared by `/upsert` and file ingestion: check the write rules for every
 * document (one refusal refuses the request, nothing written), skip unchanged documents, re-stamp
 * documents whose access alone changed, chunk and embed the others, build RAPTOR summary nodes,
 * and write everything (with the removal of summaries made stale by the write) to the stores in
 * one write per call (see `DocumentStores.write`). Each document gets one audit line.
 *
 * **Access changes** (decided in `docs/access-control.md`): a version is identified by its text
 * (title, content, metadata other than `owner_id` and `acl`, chunking settings, embedding model:
 * the registry's `textHash`) and its access (owner, ACL). When only the access changed, the
 * stored chunks are read back with their embeddings and written again as a new version stamped
 * with the new owner and ACL: nothing is chunked, summarised or embedded, and the number of
 * chunks stays the same. Summary nodes built only from documents re-stamped to the same access
 * are re-stamped too; a summary that also covers other documents is dropped (it would mix
 * accesses) and rebuilt with the next content change.
 */

import { normalizeAccessList, parseAccessList } from "../acl/access-list.js";
import { normalizeAccessName, type Principal } from "../acl/principal.js";
import { chunkDocument } from "../chunking/chunk-document.js";
import { createSemanticSplit } from "../chunking/semantic-split.js";
import { hashOf, type SourceDocument } from "../chunking/source-document.js";
import type { DocqaConfig } from "../config/config-schema.js";
import type { OrganisationIndexModels } from "../embeddings/organisation-index-models.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { AuditLog, AuditOutcome } from "../logging/audit-log.js";
import type { Logger } from "../logging/logger.js";
import { buildRaptorNodes } from "../raptor/build-raptor-nodes.js";
import type { Summarizer } from "../raptor/summarizer.js";
import type { ChunkRecord, DocumentVersion } from "../stores/chunk-record.js";
import { type DocumentInfo, type DocumentRecord, summaryDocumentPrefix } from "../stores/document-registry.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import { withSpan } from "../telemetry/tracing.js";
import type { Analyzer } from "../text/analyzer.js";
import { type AuthorizedWrite, auditEvent, authorizeWrites, type PlannedWrite, type WriteContext } from "./authorize-writes.js";
import { type EmbeddingProgress, embedChunks } from "./embed-chunks.js";
import { embeddingsForOrganisation, writeDocuments } from "./write-documents.js";

/** What indexing writes to and works with. */
export interface IndexingDependencies {
  config: DocqaConfig;
  stores: DocumentStores;
  /** The configured embedding model (its id is part of each document's stored hash). */
  embeddings: EmbeddingState;
  /**
   * Organisations whose index holds another model or none (`Runtime.indexModels`): their chunks
   * are embedded with the index's model, or stored without vectors (see `writeDocuments`).
   * Without it, a write refused with `embedding_model_mismatch` fails.
   */
  indexModels?: OrganisationIndexModels | undefined;
  /** Embeddings of another model by id (`Runtime.embeddingsFor`). */
  embeddingsFor?: ((modelId: string) => Promise<EmbeddingState>) | undefined;
  summarizer: Summarizer;
  analyzer: Analyzer;
  logger: Logger;
  /** Where the audit lines go. */
  audit: AuditLog;
  /** Receives the `indexed` and `fileIngested` metric events; default none. */
  metrics?: ServiceMetrics | undefined;
}

/** Outcome of {@link indexDocuments} for one document. */
export interface IndexedDocument {
  docId: string;
  /** `written`, or `unchanged` when its stored version was already this one. */
  status: "written" | "unchanged";
  /** `created`, `replaced`, `access_changed` (re-stamped, not re-embedded) or `unchanged`. */
  outcome: "created" | "replaced" | "access_changed" | "unchanged";
  chunks: number;
}

/** Outcome of {@link indexDocuments}. */
export interface IndexingResult {
  documents: IndexedDocument[];
  /** RAPTOR summary nodes written (built, or re-stamped with their documents' new access). */
  summaries: number;
  /** Chunks embedded by this call (documents and summaries); 0 for unchanged and re-stamped documents. */
  embedded: number;
}

/** What an indexing call writes. */
export interface IndexingRequest {
  orgId: string;
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /**
   * Owner of new documents without `metadata.owner_id`; default the principal. Naming another
   * user is, like `owner_id`, allowed to administrators only.
   */
  uploader?: string | undefined;
  documents: readonly SourceDocument[];
  /** Documents to delete in the same write (for example, records a re-ingested file no longer has). */
  deleteDocIds?: readonly string[];
  /** The entry point, for the audit trail; default `upsert`. */
  via?: "upsert" | "ingest" | undefined;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Progress of the embedding of the changed documents' chunks (see `embedChunks`). */
  onEmbeddingProgress?: ((progress: EmbeddingProgress) => void) | undefined;
}

/**
 * The hash of a document's text as stored: its content hash combined with everything that
 * changes its chunks or vectors (chunking settings, splitter, embedding model), so changing any
 * of them re-indexes the document on its next ingestion. The registry records it as `textHash`.
 */
export function storedHash(config: DocqaConfig, embeddings: EmbeddingState, contentHash: string): string {
  const model = embeddings.status === "ready" ? embeddings.model.id : "none";
  return hashOf(
    contentHash,
    config.ingestion.chunkSize,
    config.ingestion.chunkOverlap,
    config.ingestion.useSemanticSplit ? config.ingestion.semanticSplitPercentile : "recursive",
    model,
  );
}

/** The stored version of a document: its text hash ({@link storedHash}) with its owner and ACL. */
export function versionHash(textHash: string, ownerId: string, acl: string): string {
  return hashOf(textHash, normalizeAccessName(ownerId), acl);
}

/** The owner a source document's metadata names (`owner_id`), if any. */
export function requestedOwnerOf(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const owner = metadata.owner_id;
  return owner === undefined || owner === null ? undefined : String(owner);
}

/**
 * The ACL of a source document's metadata (`acl`) as it is stored: in `normalizeAccessList` form
 * (NFKC, default-ignorable code points removed, lower-cased); `""` when absent.
 */
export function aclOf(metadata: Readonly<Record<string, unknown>>): string {
  return typeof metadata.acl === "string" ? normalizeAccessList(metadata.acl) : "";
}

/** The write context of a request. */
function writeContext(dependencies: IndexingDependencies, request: IndexingRequest): WriteContext {
  return {
    orgId: request.orgId,
    principal: request.principal,
    adminRoles: dependencies.config.access.adminRoles,
    via: request.via ?? "upsert",
    requestId: request.requestId,
    audit: dependencies.audit,
  };
}

/** One document of the request, decided and classified. */
interface PlannedDocument {
  source: SourceDocument;
  write: AuthorizedWrite;
  ownerId: string;
  acl: string;
  textHash: string;
  version: string;
  kind: "unchanged" | "restamp" | "index";
}

/**
 * Indexes documents; each document is replaced as a unit (see `DocumentStores.write`). Unchanged
 * documents (same stored version) are not rewritten; documents whose owner or ACL alone changed
 * are re-stamped without re-embedding (module documentation).
 *
 * Traced as `docqa.index` (`docqa.documents`, then `docqa.documents.written`,
 * `docqa.documents.unchanged`, `docqa.chunks`, `docqa.summaries`) with the steps
 * `docqa.ingest.chunk` and `docqa.ingest.summarise` as children, besides the embedding and store
 * write spans; `dependencies.metrics` receives one `indexed` event.
 *
 * @throws {DocqaError} `forbidden` when the write rules refuse any document (nothing written);
 *   from the stores (`store_unavailable`, `embedding_model_mismatch`).
 */
export async function indexDocuments(dependencies: IndexingDependencies, request: IndexingRequest): Promise<IndexingResult> {
  return withSpan("docqa.index", { "docqa.documents": request.documents.length }, async (span) => {
    const result = await indexInSpan(dependencies, request);
    const written = result.documents.filter((document) => document.status === "written");
    const chunksWritten = written.reduce((sum, document) => sum + document.chunks, 0);
    span.setAttributes({
      "docqa.documents.written": written.length,
      "docqa.documents.unchanged": result.documents.length - written.length,
      "docqa.chunks": chunksWritten,
      "docqa.summaries": result.summaries,
    });
    dependencies.metrics?.indexed?.({
      documentsWritten: written.length,
      documentsUnchanged: result.documents.length - written.length,
      chunksWritten,
      summaries: result.summaries,
    });
    return result;
  });
}

async function indexInSpan(dependencies: IndexingDependencies, request: IndexingRequest): Promise<IndexingResult> {
  const { config, embeddings, stores } = dependencies;
  const context = writeContext(dependencies, request);
  const user = normalizeAccessName(request.principal.userName);
  const uploader = request.uploader === undefined ? user : normalizeAccessName(request.uploader);
  const deletions = [...new Set(request.deleteDocIds ?? [])];
  const records = await stores.registry.describeDocuments(request.orgId, [
    ...request.documents.map((document) => document.docId),
    ...deletions,
  ]);

  const planned: PlannedWrite[] = request.documents.map((document) => {
    const named = requestedOwnerOf(document.metadata);
    return {
      docId: document.docId,
      action: "upsert",
      requestedOwner: named ?? (!records.has(document.docId) && uploader !== user ? uploader : undefined),
    };
  });
  const existingDeletions = deletions.filter((docId) => records.has(docId));
  for (const docId of existingDeletions) planned.push({ docId, action: "delete" });
  const decided = authorizeWrites(context, planned, records);

  const documents: PlannedDocument[] = request.documents.map((source, index) => {
    const write = decided[index] as AuthorizedWrite;
    const ownerId = write.decision.ownerId;
    const acl = aclOf(source.metadata);
    const textHash = storedHash(config, embeddings, source.contentHash);
    const version = versionHash(textHash, ownerId, acl);
    const stored = write.stored;
    const kind = stored?.contentHash === version ? "unchanged" : stored && stored.textHash === textHash ? "restamp" : "index";
    return { source, write, ownerId, acl, textHash, version, kind };
  });

  const restamped: DocumentVersion[] = [];
  const indexed: PlannedDocument[] = [];
  for (const document of documents) {
    if (document.kind === "index") indexed.push(document);
    if (document.kind !== "restamp") continue;
    const version = await restampedVersion(stores, request.orgId, document, stores.vector !== undefined && embeddings.status === "ready");
    if (version) restamped.push(version);
    else indexed.push({ ...document, kind: "index" });
  }

  const summaries: DocumentVersion[] = [];
  const deleteDocIds = new Set(existingDeletions);
  let embedded = 0;
  const versions = new Map<string, DocumentVersion>();
  const derivedDeletions: string[] = [];
  if (indexed.length > 0 || restamped.length > 0 || deleteDocIds.size > 0) {
    const split =
      config.ingestion.useSemanticSplit && embeddings.status === "ready"
        ? createSemanticSplit({
            embeddings: embeddings.embeddings,
            chunkSize: config.ingestion.chunkSize,
            chunkOverlap: config.ingestion.chunkOverlap,
            breakpointPercentile: config.ingestion.semanticSplitPercentile,
          })
        : undefined;
    const changed = await withSpan("docqa.ingest.chunk", { "docqa.documents": indexed.length }, async (span) => {
      const chunked: DocumentVersion[] = [];
      for (const document of indexed) {
        const version = await chunkDocument(
          { ...document.source, contentHash: document.version },
          { chunkSize: config.ingestion.chunkSize, chunkOverlap: config.ingestion.chunkOverlap, split },
          { orgId: request.orgId, uploader, ownerId: document.ownerId },
        );
        version.info = infoOf(document);
        chunked.push(version);
      }
      span.setAttribute(
        "docqa.chunks",
        chunked.reduce((sum, version) => sum + version.chunks.length, 0),
      );
      return chunked;
    });
    for (const version of [...changed, ...restamped]) versions.set(version.docId, version);

    // Summaries and other documents derived from what this write replaces or deletes.
    const derived = await stores.registry.derivedDocuments(request.orgId, [...versions.keys(), ...deleteDocIds]);
    const derivedRecords = await stores.registry.describeDocuments(
      request.orgId,
      derived.filter((docId) => !versions.has(docId)),
    );
    const derivedDocuments = [...derivedRecords.values()].filter((record) => !record.docId.startsWith(summaryDocumentPrefix));
    derivedDeletions.push(...derivedDocuments.map((record) => record.docId));
    if (derivedDocuments.length > 0) {
      // Real documents derived from a written one (records of a file id now written directly).
      authorizeWrites(
        context,
        derivedDocuments.map((record) => ({ docId: record.docId, action: "delete" })),
        derivedRecords,
      );
    }
    const restampedSummaries = await restampSummaries(stores, request.orgId, restamped, derivedRecords);
    summaries.push(...restampedSummaries);
    for (const docId of derivedRecords.keys()) {
      if (!restampedSummaries.some((summary) => summary.docId === docId)) deleteDocIds.add(docId);
    }

    request.signal?.throwIfAborted();
    // The index's model (or none) when the organisation's index holds another one (write-documents.ts).
    const chosen = await embeddingsForOrganisation(dependencies, request.orgId);
    if (chosen?.status === "ready") {
      await embedChunks(changed, chosen.embeddings, {
        cache: chosen.cache,
        onProgress: request.onEmbeddingProgress,
        logger: dependencies.logger,
        signal: request.signal,
      });
      embedded += changed.reduce((sum, version) => sum + version.chunks.length, 0);
    }
    if (config.ingestion.useRaptor && changed.length > 0) {
      const built = await withSpan("docqa.ingest.summarise", { "docqa.documents": changed.length }, async (span) => {
        const nodes = await buildRaptorNodes(
          request.orgId,
          changed,
          { maxLevels: config.ingestion.raptorMaxLevels, clusterSize: config.ingestion.raptorClusterSize },
          {
            summarizer: dependencies.summarizer,
            analyzer: dependencies.analyzer,
            embeddings: chosen?.status === "ready" ? chosen.embeddings : undefined,
            signal: request.signal,
          },
        );
        span.setAttribute(
          "docqa.summaries",
          nodes.reduce((sum, version) => sum + version.chunks.length, 0),
        );
        return nodes;
      });
      if (chosen?.status === "ready") embedded += built.reduce((sum, version) => sum + version.chunks.length, 0);
      summaries.push(...built);
    }
    for (const summary of summaries) deleteDocIds.delete(summary.docId);
    for (const docId of versions.keys()) deleteDocIds.delete(docId);
    const options = { embeddingModel: chosen?.status === "ready" ? chosen.model : undefined, deleteDocIds: [...deleteDocIds] };
    request.signal?.throwIfAborted();
    try {
      await writeDocuments(dependencies, request.orgId, [...changed, ...restamped, ...summaries], options);
    } catch (error) {
      const code = DocqaError.isInstance(error) ? error.code : "internal_error";
      for (const document of documents) context.audit.record(auditEvent(context, document.source.docId, "write", "failed", { code }));
      for (const docId of existingDeletions) context.audit.record(auditEvent(context, docId, "delete", "failed", { code }));
      throw error;
    }
  }

  const results = documents.map((document): IndexedDocument => {
    const written = versions.get(document.source.docId);
    const outcome: IndexedDocument["outcome"] =
      document.kind === "unchanged"
        ? "unchanged"
        : !document.write.stored
          ? "created"
          : restamped.some((version) => version.docId === document.source.docId)
            ? "access_changed"
            : "replaced";
    context.audit.record(
      auditEvent(context, document.source.docId, "write", outcome satisfies AuditOutcome, { rule: document.write.decision.rule }),
    );
    return {
      docId: document.source.docId,
      status: outcome === "unchanged" ? "unchanged" : "written",
      outcome,
      chunks: written ? written.chunks.length : (document.write.stored?.chunkCount ?? 0),
    };
  });
  for (const write of decided.filter((item) => item.action === "delete")) {
    context.audit.record(auditEvent(context, write.docId, "delete", "deleted", { rule: write.decision.rule }));
  }
  for (const docId of derivedDeletions) context.audit.record(auditEvent(context, docId, "delete", "deleted"));
  return { documents: results, summaries: summaries.reduce((sum, version) => sum + version.chunks.length, 0), embedded };
}

/** The registry's description of a planned document. */
function infoOf(document: PlannedDocument): DocumentInfo {
  const { metadata } = document.source;
  return {
    title: document.source.title,
    source: typeof metadata.source === "string" ? metadata.source : "",
    type: typeof metadata.type === "string" ? metadata.type : "",
    ownerId: document.ownerId,
    acl: document.acl,
    textHash: document.textHash,
  };
}

/** Chunks stamped with another owner and ACL (and version), keeping text and embedding. */
function restamp(chunks: readonly ChunkRecord[], ownerId: string, acl: string, contentHash: string): ChunkRecord[] {
  return chunks.map((chunk) => ({
    ...chunk,
    ownerId,
    acl,
    contentHash,
    metadata: { ...chunk.metadata, owner_id: ownerId, acl },
  }));
}

/**
 * The new version of a document whose access alone changed: its stored chunks, with their
 * embeddings, stamped with the new owner and ACL; `undefined` when the stored chunks cannot be
 * reused (their count differs from the record's, or an embedding is missing while
 * `needsEmbeddings`), so the document is indexed afresh.
 */
async function restampedVersion(
  stores: DocumentStores,
  orgId: string,
  document: PlannedDocument,
  needsEmbeddings: boolean,
): Promise<DocumentVersion | undefined> {
  const stored = document.write.stored as DocumentRecord;
  const chunks = await stores.documentChunks(orgId, stored.docId, stored.contentHash);
  if (chunks.length === 0 || chunks.length !== stored.chunkCount) return undefined;
  if (needsEmbeddings && chunks.some((chunk) => chunk.embedding === undefined)) return undefined;
  return {
    docId: stored.docId,
    contentHash: document.version,
    chunks: restamp(chunks, document.ownerId, document.acl, document.version),
    derivedFrom: document.source.derivedFrom,
    info: infoOf(document),
  };
}

/**
 * The summary nodes that can follow their documents' access change: those whose every source
 * document is re-stamped by this write, all to the same owner and ACL. They keep their text and
 * embeddings; their access becomes the sources' (public, as RAPTOR partitions it, when the ACL
 * grants everyone without deny entries). The caller drops the others.
 */
async function restampSummaries(
  stores: DocumentStores,
  orgId: string,
  restamped: readonly DocumentVersion[],
  derivedRecords: ReadonlyMap<string, DocumentRecord>,
): Promise<DocumentVersion[]> {
  const access = new Map(restamped.map((version) => [version.docId, version.info as DocumentInfo]));
  const summaries: DocumentVersion[] = [];
  for (const record of derivedRecords.values()) {
    if (!record.docId.startsWith(summaryDocumentPrefix) || record.derivedFrom.length === 0) continue;
    const sources = record.derivedFrom.map((docId) => access.get(docId));
    const first = sources[0];
    if (!first || sources.some((info) => !info || info.ownerId !== first.ownerId || info.acl !== first.acl)) continue;
    const list = parseAccessList(first.acl);
    const isPublic = list.everyone && list.denied.size === 0;
    const ownerId = isPublic ? "" : first.ownerId;
    const acl = isPublic ? "|user:_all_|" : first.acl;
    const chunks = await stores.documentChunks(orgId, record.docId, record.contentHash);
    if (chunks.length === 0 || chunks.length !== record.chunkCount) continue;
    const contentHash = versionHash(record.contentHash, ownerId, acl);
    summaries.push({
      docId: record.docId,
      contentHash,
      chunks: restamp(chunks, ownerId, acl, contentHash),
      derivedFrom: record.derivedFrom,
      info: { title: record.title, source: record.source, type: record.type, ownerId, acl, textHash: record.textHash },
    });
  }
  return summaries;
}
