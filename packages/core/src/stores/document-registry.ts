/**
 * The document registry: which version of each document is committed, what that document is
 * (title, owner, ACL, chunk count, time of the commit), and which derived documents (RAPTOR
 * summaries) were built from which sources. Change detection (a re-ingested, unchanged document
 * is a no-op), the write rules (who owns a document), the documents API (list, show) and the
 * visibility of staged writes all read it.
 */
import type { Principal } from "../acl/principal.js";

/** What a registry records about a committed document besides its version. */
export interface DocumentInfo {
  /** The document's title. */
  title: string;
  /** `metadata.source`, or `""`. */
  source: string;
  /** `metadata.type` (a file's format, for example `pdf`; `summary` for RAPTOR nodes), or `""`. */
  type: string;
  /** The owner's e-mail, lower-cased (`metadata.owner_id`), or `""`. */
  ownerId: string;
  /** The raw ACL string (`metadata.acl`), or `""`. */
  acl: string;
  /**
   * Hash of everything that decides the chunks' text and embeddings but not access: title,
   * content, metadata other than `owner_id` and `acl`, chunking settings and embedding model.
   * Two versions with the same `textHash` have the same chunks and vectors, so an access change
   * re-stamps stored chunks instead of re-embedding them. `""` when unknown.
   */
  textHash: string;
}

/** A committed document, as the registry describes it. */
export interface DocumentRecord extends DocumentInfo {
  docId: string;
  /** The committed version (the `DocumentVersion.contentHash`). */
  contentHash: string;
  /** For derived documents: the documents they were built from; else empty. */
  derivedFrom: string[];
  /** Number of chunks of the committed version. */
  chunkCount: number;
  /** When the version was committed, ISO 8601 (UTC). */
  updatedAt: string;
}

/** Which documents {@link DocumentRegistry.listDocuments} returns. */
export interface DocumentQuery {
  /**
   * Only documents this principal may read: the seven rules on the document's owner and ACL
   * (pushed into the engine's query where it can, then checked again). Omit to list every
   * document (administrators).
   */
  principal?: Principal | undefined;
  /** Only documents with this `metadata.source` (exact). */
  source?: string | undefined;
  /** Only documents with this `metadata.type` (exact, for example `pdf`). */
  type?: string | undefined;
  /** Only documents owned by this e-mail (compared lower-cased). */
  ownerId?: string | undefined;
  /**
   * Only documents whose id sorts after this one, in UTF-8 byte order: the `next` of the previous
   * page (keyset paging, stable under concurrent writes).
   */
  after?: string | undefined;
  /** Most documents returned, at least 1. */
  limit: number;
}

/** One page of {@link DocumentRegistry.listDocuments}. */
export interface DocumentPage {
  /** Documents in ascending id order (UTF-8 byte order). */
  documents: DocumentRecord[];
  /** The `after` of the next page; `null` when no document follows. */
  next: string | null;
}

/** Read side of the registry, implemented by every store bundle's registry. */
export interface DocumentRegistry {
  /** Name used in logs and errors. */
  readonly name: string;
  /** The committed content hash of each given document that exists. */
  contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Ids of derived documents recorded as built from any of `sourceDocIds` (their
   * `DocumentVersion.derivedFrom`).
   */
  derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]>;
  /**
   * The record of each given document that is committed (summary nodes included); missing ids
   * are absent from the map.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  describeDocuments(orgId: string, docIds: readonly string[]): Promise<Map<string, DocumentRecord>>;
  /**
   * One page of the committed documents matching `query`, in ascending id order. Summary nodes
   * (ids starting with `raptor:`) are never listed.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  listDocuments(orgId: string, query: DocumentQuery): Promise<DocumentPage>;
}

/** The prefix of summary node ids, which {@link DocumentRegistry.listDocuments} never lists (`raptorDocumentPrefix`). */
export const summaryDocumentPrefix = "raptor:";

/** Orders strings by their UTF-8 bytes, the order of document ids in every registry (SQLite, Milvus and Lucene compare bytes). */
export function compareUtf8(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left, "utf8"), Buffer.from(right, "utf8"));
}
