/**
 * The unit every index stores: one chunk of one document, stamped with everything access
 * control and citation need.
 */
import { normalizeAccessName } from "../acl/principal.js";
import type { DocumentInfo } from "./document-registry.js";

/** One chunk of a document. */
export interface ChunkRecord {
  /** Stable chunk id, derived from `docId` and `chunkIndex` (see {@link chunkId}). */
  id: string;
  /** The document's id (the key of the `documents` map of `/upsert`). */
  docId: string;
  /** 0-based position of the chunk in its document. */
  chunkIndex: number;
  /** The chunk's text (the `page_content` of a cited source). */
  text: string;
  /** The document's title. */
  title: string;
  /** The document's source system (`metadata.source`), or `""`. */
  source: string;
  /** The owner's e-mail, lower-cased (`metadata.owner_id`), or `""`. */
  ownerId: string;
  /** The raw ACL string (`metadata.acl`), or `""`. */
  acl: string;
  /**
   * The document's metadata plus docqa's stamps: `org_id`, `doc_id`, `chunk_index`, `owner_id`,
   * `acl`, `source`, `created_at` when given. JSON-serialisable.
   */
  metadata: Record<string, unknown>;
  /** Hash of the document version this chunk belongs to. */
  contentHash: string;
  /** The chunk's embedding, unit length; absent when no embedding model is available. */
  embedding?: Float32Array | undefined;
}

/** All chunks of one version of one document, written and replaced as a unit. */
export interface DocumentVersion {
  docId: string;
  /** SHA-256 (hex) of the title, content and metadata of this version. */
  contentHash: string;
  chunks: ChunkRecord[];
  /**
   * For derived documents (RAPTOR summaries): the documents they were built from. Writing or
   * deleting any of these deletes the derived document (see {@link ChunkIndex.derivedDocuments}).
   */
  derivedFrom?: readonly string[] | undefined;
  /**
   * What the registry records about this version (title, owner, ACL, ...); default
   * {@link documentInfo}'s reading of the first chunk.
   */
  info?: DocumentInfo | undefined;
}

/**
 * The registry's description of a version: `version.info` when set, else read from its first
 * chunk (title, source, `metadata.type`, owner, ACL; no `textHash`).
 */
export function documentInfo(version: DocumentVersion): DocumentInfo {
  if (version.info) return version.info;
  const first = version.chunks[0];
  const type = first?.metadata.type;
  return {
    title: first?.title ?? "",
    source: first?.source ?? "",
    type: typeof type === "string" ? type : "",
    ownerId: normalizeAccessName(first?.ownerId ?? ""),
    acl: first?.acl ?? "",
    textHash: "",
  };
}

/** A chunk with a retrieval score (higher is better; the scale depends on the retriever). */
export interface ScoredChunk {
  chunk: ChunkRecord;
  score: number;
}

/** Builds the stable id of chunk `chunkIndex` of document `docId`: `<docId>::<chunkIndex>`. */
export function chunkId(docId: string, chunkIndex: number): string {
  return `${docId}::${chunkIndex}`;
}

/** The text an index analyses or embeds for a chunk: the title, a line break, then the chunk. */
export function indexedText(chunk: Pick<ChunkRecord, "title" | "text">): string {
  return chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text;
}
