/**
 * The documents API's read side: list the documents a caller may read (paged, filtered by
 * source, type and owner) and describe one. A document is listed and shown when the seven read
 * rules grant its owner and ACL to the caller; administrators (`ADMIN_ROLES`) see every document,
 * since they manage them (see `docs/access-control.md`). Only metadata is returned (id, title,
 * owner, ACL, source, type, chunk count, update time), never content.
 */
import { isAdministrator } from "../acl/authorize-write.js";
import { canRead } from "../acl/evaluate-access.js";
import { normalizePrincipal, type Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import { type DocumentRecord, type DocumentRegistry, summaryDocumentPrefix } from "../stores/document-registry.js";

/** A document as the documents API shows it. */
export interface DocumentSummary {
  docId: string;
  title: string;
  /** The owner's e-mail, lower-cased, or `""`. */
  ownerId: string;
  /** The raw ACL string, or `""` (only the owner may read). */
  acl: string;
  /** `metadata.source`, or `""`. */
  source: string;
  /** `metadata.type` (a file's format), or `""`. */
  type: string;
  /** Chunks indexed for the document. */
  chunkCount: number;
  /** When its current version was written, ISO 8601 (UTC). */
  updatedAt: string;
}

/** Which documents to list. */
export interface ListDocumentsOptions {
  /** Only documents with this `metadata.source`. */
  source?: string | undefined;
  /** Only documents with this `metadata.type`, for example `pdf`. */
  type?: string | undefined;
  /** Only documents owned by this e-mail (case-insensitive). */
  ownerId?: string | undefined;
  /** Page size, 1 to {@link maximumPageSize}; default {@link defaultPageSize}. */
  limit?: number | undefined;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor?: string | undefined;
}

/** One page of documents. */
export interface DocumentList {
  /** In ascending id order (UTF-8 byte order). */
  documents: DocumentSummary[];
  /** Pass as `cursor` for the next page; `null` on the last page. Opaque. */
  nextCursor: string | null;
}

/** Default page size of {@link listDocuments}. */
export const defaultPageSize = 50;
/** Largest page size of {@link listDocuments}. */
export const maximumPageSize = 1000;

const cursorPrefix = "d:";

/** The opaque cursor of the page after document `docId` (base64url of `d:<docId>`). */
export function encodeCursor(docId: string): string {
  return Buffer.from(`${cursorPrefix}${docId}`, "utf8").toString("base64url");
}

/**
 * The document id a cursor continues after.
 *
 * @throws {DocqaError} `invalid_request` when `cursor` was not made by {@link encodeCursor}.
 */
export function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]*$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (!text.startsWith(cursorPrefix) || encodeCursor(text.slice(cursorPrefix.length)) !== cursor) {
    throw new DocqaError("invalid_request", "cursor is not a cursor returned by a previous page", { component: "documents" });
  }
  return text.slice(cursorPrefix.length);
}

/** The summary of a registry record. */
export function documentSummary(record: DocumentRecord): DocumentSummary {
  return {
    docId: record.docId,
    title: record.title,
    ownerId: record.ownerId,
    acl: record.acl,
    source: record.source,
    type: record.type,
    chunkCount: record.chunkCount,
    updatedAt: record.updatedAt,
  };
}

/**
 * One page of the documents `principal` may read (all of them for administrators).
 *
 * @param adminRoles - `ADMIN_ROLES`.
 * @throws {DocqaError} `invalid_request` for a limit outside 1 to {@link maximumPageSize} or a
 *   foreign cursor; `store_unavailable` from the registry.
 */
export async function listDocuments(
  registry: DocumentRegistry,
  adminRoles: readonly string[],
  orgId: string,
  principal: Principal,
  options: ListDocumentsOptions = {},
): Promise<DocumentList> {
  const limit = options.limit ?? defaultPageSize;
  if (!Number.isInteger(limit) || limit < 1 || limit > maximumPageSize) {
    throw new DocqaError("invalid_request", `limit must be an integer from 1 to ${maximumPageSize}`, { component: "documents" });
  }
  const page = await registry.listDocuments(orgId, {
    principal: isAdministrator(principal, adminRoles) ? undefined : principal,
    source: options.source,
    type: options.type,
    ownerId: options.ownerId,
    after: options.cursor === undefined ? undefined : decodeCursor(options.cursor),
    limit,
  });
  return { documents: page.documents.map(documentSummary), nextCursor: page.next === null ? null : encodeCursor(page.next) };
}

/**
 * The document `docId` when it exists and `principal` may read it (or is an administrator);
 * `undefined` otherwise, so that a document one may not read looks like a missing one. Summary
 * nodes are not documents of the API.
 *
 * @throws {DocqaError} `store_unavailable` from the registry.
 */
export async function getDocument(
  registry: DocumentRegistry,
  adminRoles: readonly string[],
  orgId: string,
  principal: Principal,
  docId: string,
): Promise<DocumentSummary | undefined> {
  if (docId.startsWith(summaryDocumentPrefix)) return undefined;
  const record = (await registry.describeDocuments(orgId, [docId])).get(docId);
  if (!record) return undefined;
  if (!isAdministrator(principal, adminRoles) && !canRead(normalizePrincipal(principal), record)) return undefined;
  return documentSummary(record);
}
