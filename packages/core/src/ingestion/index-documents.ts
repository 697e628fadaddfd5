/**
 * The indexing pipeline shared by `/upsert` and file ingestion: chunk, skip unchanged documents,
 * embed, build RAPTOR summary nodes, and write everything (with the removal of summaries made
 * stale by the write) to the stores in one write per call (see `DocumentStores.write`).
 */

import { chunkDocument } from "../chunking/chunk-document.js";
import { createSemanticSplit } from "../chunking/semantic-split.js";
import { hashOf, type SourceDocument } from "../chunking/source-document.js";
import type { DocqaConfig } from "../config/config-schema.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import type { Logger } from "../logging/logger.js";
import { buildRaptorNodes } from "../raptor/build-raptor-nodes.js";
import type { Summarizer } from "../raptor/summarizer.js";
import type { DocumentVersion } from "../stores/chunk-record.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { Analyzer } from "../text/analyzer.js";
import { embedChunks } from "./embed-chunks.js";

/** What indexing writes to and works with. */
export interface IndexingDependencies {
  config: DocqaConfig;
  stores: DocumentStores;
  embeddings: EmbeddingState;
  summarizer: Summarizer;
  analyzer: Analyzer;
  logger: Logger;
}

/** Outcome of {@link indexDocuments} for one document. */
export interface IndexedDocument {
  docId: string;
  /** `written`, or `unchanged` when its content hash was already stored. */
  status: "written" | "unchanged";
  chunks: number;
}

/** Outcome of {@link indexDocuments}. */
export interface IndexingResult {
  documents: IndexedDocument[];
  /** RAPTOR summary nodes written. */
  summaries: number;
}

/** What an indexing call writes. */
export interface IndexingRequest {
  orgId: string;
  /** Uploader; owner of documents without `metadata.owner_id`. */
  uploader: string;
  documents: readonly SourceDocument[];
  /** Documents to delete in the same write (for example, records a re-ingested file no longer has). */
  deleteDocIds?: readonly string[];
  signal?: AbortSignal | undefined;
}

/**
 * The hash stored for a document: its content hash combined with everything that changes its
 * chunks or vectors (chunking settings, splitter, embedding model), so changing any of them
 * re-indexes the document on its next ingestion.
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

/**
 * Indexes documents; each document is replaced as a unit (see `DocumentStores.write`). Unchanged documents (same {@link storedHash}) are not rewritten.
 *
 * @throws {DocqaError} from the stores (`store_unavailable`, `embedding_model_mismatch`).
 */
export async function indexDocuments(dependencies: IndexingDependencies, request: IndexingRequest): Promise<IndexingResult> {
  const { config, embeddings, stores } = dependencies;
  const split =
    config.ingestion.useSemanticSplit && embeddings.status === "ready"
      ? createSemanticSplit({
          embeddings: embeddings.embeddings,
          chunkSize: config.ingestion.chunkSize,
          chunkOverlap: config.ingestion.chunkOverlap,
          breakpointPercentile: config.ingestion.semanticSplitPercentile,
        })
      : undefined;
  const versions: DocumentVersion[] = [];
  for (const document of request.documents) {
    const version = await chunkDocument(
      { ...document, contentHash: storedHash(config, embeddings, document.contentHash) },
      { chunkSize: config.ingestion.chunkSize, chunkOverlap: config.ingestion.chunkOverlap, split },
      { orgId: request.orgId, uploader: request.uploader },
    );
    versions.push(version);
  }
  const stored = await stores.registry.contentHashes(
    request.orgId,
    versions.map((version) => version.docId),
  );
  const changed = versions.filter((version) => stored.get(version.docId) !== version.contentHash);
  const deleteDocIds = new Set(request.deleteDocIds ?? []);
  let summaries: DocumentVersion[] = [];
  if (changed.length > 0 || deleteDocIds.size > 0) {
    request.signal?.throwIfAborted();
    if (embeddings.status === "ready") await embedChunks(changed, embeddings.embeddings, request.signal);
    if (config.ingestion.useRaptor && changed.length > 0) {
      summaries = await buildRaptorNodes(
        request.orgId,
        changed,
        { maxLevels: config.ingestion.raptorMaxLevels, clusterSize: config.ingestion.raptorClusterSize },
        {
          summarizer: dependencies.summarizer,
          analyzer: dependencies.analyzer,
          embeddings: embeddings.status === "ready" ? embeddings.embeddings : undefined,
          signal: request.signal,
        },
      );
    }
    const stale = await stores.registry.derivedDocuments(request.orgId, [...changed.map((version) => version.docId), ...deleteDocIds]);
    const written = new Set([...changed, ...summaries].map((version) => version.docId));
    for (const docId of stale) if (!written.has(docId)) deleteDocIds.add(docId);
    const writes = [...changed, ...summaries];
    const options = { embeddingModel: embeddings.status === "ready" ? embeddings.model : undefined, deleteDocIds: [...deleteDocIds] };
    request.signal?.throwIfAborted();
    await stores.write(request.orgId, writes, options);
  }
  const changedIds = new Set(changed.map((version) => version.docId));
  return {
    documents: versions.map((version) => ({
      docId: version.docId,
      status: changedIds.has(version.docId) ? "written" : "unchanged",
      chunks: version.chunks.length,
    })),
    summaries: summaries.reduce((sum, version) => sum + version.chunks.length, 0),
  };
}
