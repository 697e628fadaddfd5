/**
 * How a chunk is stored in an engine and read back: the stored document (the `_source`), its
 * `_id`, the metadata entries filters run on, and the batches of a bulk write.
 */
import { createHash } from "node:crypto";
import { DocqaError } from "@docqa/core";
import { type ChunkRecord, chunkAccessTokens } from "@docqa/core/stores";
import { maximumFilterableLength } from "./index-definitions.js";

/** One scalar metadata value, as filters see it: exactly one of `string`, `number`, `boolean`. */
export interface MetadataEntry {
  key: string;
  string?: string;
  number?: number;
  boolean?: boolean;
}

/** The `_source` of a chunk document (see `index-definitions.ts` for the mappings). */
export interface StoredChunk {
  chunk_id: string;
  doc_id: string;
  chunk_index: number;
  content_hash: string;
  doc_version: string;
  title: string;
  text: string;
  source: string;
  owner_id: string;
  acl: string;
  grants: string[];
  denied: string[];
  metadata: Record<string, unknown>;
  meta: MetadataEntry[];
}

/** Largest `_id` the engines accept, in UTF-8 bytes. */
export const maximumDocumentIdBytes = 512;

/**
 * The `_id` of a chunk: `<docId>::<chunkIndex>::<contentHash>`, so that versions of a document
 * coexist until pruned and rewriting a version is idempotent. When that exceeds the engines'
 * 512-byte limit (document ids may have 512 characters), `sha256:` and the hex SHA-256 of it
 * instead; the two forms cannot collide (the first always contains `::`, the second never).
 */
export function chunkDocumentId(chunk: Pick<ChunkRecord, "docId" | "chunkIndex" | "contentHash">): string {
  const id = `${chunk.docId}::${chunk.chunkIndex}::${chunk.contentHash}`;
  return Buffer.byteLength(id, "utf8") <= maximumDocumentIdBytes ? id : `sha256:${createHash("sha256").update(id, "utf8").digest("hex")}`;
}

/**
 * The `_id` of a registry entry: `d:<docId>`, or `h:` and the hex SHA-256 of the document id when
 * that exceeds 512 bytes. Prefixes keep the two forms apart.
 */
export function registryDocumentId(docId: string): string {
  const id = `d:${docId}`;
  return Buffer.byteLength(id, "utf8") <= maximumDocumentIdBytes ? id : `h:${createHash("sha256").update(docId, "utf8").digest("hex")}`;
}

/**
 * The `doc_version` key of a chunk: `<docId>`, U+001F, `<contentHash>`. Document ids never contain
 * control characters, so the key is unambiguous.
 */
export function documentVersionKey(docId: string, contentHash: string): string {
  return `${docId}\u001f${contentHash}`;
}

/**
 * The filterable entries of a chunk's metadata: one per key whose value is a string, a finite
 * number or a boolean, typed by the value. Other values (arrays, objects, `null`), keys or strings
 * longer than {@link maximumFilterableLength} characters give no entry.
 */
export function metadataEntries(metadata: Readonly<Record<string, unknown>>): MetadataEntry[] {
  const entries: MetadataEntry[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (key.length > maximumFilterableLength) continue;
    if (typeof value === "string") {
      if (value.length <= maximumFilterableLength) entries.push({ key, string: value });
    } else if (typeof value === "number") {
      if (Number.isFinite(value)) entries.push({ key, number: value });
    } else if (typeof value === "boolean") {
      entries.push({ key, boolean: value });
    }
  }
  return entries;
}

/** The stored document of `chunk`, with its ACL tokens (`chunkAccessTokens`) and filter entries. */
export function storedChunk(chunk: ChunkRecord): StoredChunk {
  const { grants, denied } = chunkAccessTokens(chunk.ownerId, chunk.acl);
  return {
    chunk_id: chunk.id,
    doc_id: chunk.docId,
    chunk_index: chunk.chunkIndex,
    content_hash: chunk.contentHash,
    doc_version: documentVersionKey(chunk.docId, chunk.contentHash),
    title: chunk.title,
    text: chunk.text,
    source: chunk.source,
    owner_id: chunk.ownerId,
    acl: chunk.acl,
    grants,
    denied,
    metadata: chunk.metadata,
    meta: metadataEntries(chunk.metadata),
  };
}

/** The `_source` fields a search reads back (filter fields are left on the server). */
export const chunkSourceFields = [
  "chunk_id",
  "doc_id",
  "chunk_index",
  "content_hash",
  "title",
  "text",
  "source",
  "owner_id",
  "acl",
  "metadata",
] as const;

/**
 * The chunk record of a stored document (without embedding).
 *
 * @throws {DocqaError} `store_unavailable` when `source` lacks a field or has one of the wrong type
 *   (an index not written by docqa).
 */
export function chunkFromSource(source: unknown, component: string): ChunkRecord {
  const value = (typeof source === "object" && source !== null ? source : {}) as Record<string, unknown>;
  const text = (field: string) => {
    const found = value[field];
    if (typeof found !== "string") throw malformed(field, component);
    return found;
  };
  const chunkIndex = value.chunk_index;
  if (typeof chunkIndex !== "number" || !Number.isInteger(chunkIndex)) throw malformed("chunk_index", component);
  const metadata = value.metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw malformed("metadata", component);
  return {
    id: text("chunk_id"),
    docId: text("doc_id"),
    chunkIndex,
    text: text("text"),
    title: text("title"),
    source: text("source"),
    ownerId: text("owner_id"),
    acl: text("acl"),
    metadata: metadata as Record<string, unknown>,
    contentHash: text("content_hash"),
  };
}

function malformed(field: string, component: string): DocqaError {
  return new DocqaError("store_unavailable", `a stored chunk has no valid "${field}": the index was not written by this version of docqa`, {
    component,
  });
}

/** Limits of one bulk request. */
export interface BulkLimits {
  /** Most documents per request; default 500. */
  maxDocuments: number;
  /** Most bytes of NDJSON per request (a single larger document still goes alone); default 5 MiB. */
  maxBytes: number;
}

/** Default {@link BulkLimits}: 500 documents or 5 MiB, the engines' recommended bulk size range. */
export const defaultBulkLimits: BulkLimits = { maxDocuments: 500, maxBytes: 5 * 1024 * 1024 };

/** One bulk operation: the action line and, for `index`, the document line. */
export interface BulkOperation {
  action: Record<string, unknown>;
  document?: unknown;
}

/**
 * Splits operations into batches within `limits`, in order. Sizes are measured as the NDJSON
 * lines the client sends.
 */
export function bulkBatches(operations: readonly BulkOperation[], limits: BulkLimits = defaultBulkLimits): BulkOperation[][] {
  const batches: BulkOperation[][] = [];
  let current: BulkOperation[] = [];
  let bytes = 0;
  for (const operation of operations) {
    const size =
      Buffer.byteLength(JSON.stringify(operation.action), "utf8") +
      1 +
      (operation.document === undefined ? 0 : Buffer.byteLength(JSON.stringify(operation.document), "utf8") + 1);
    if (current.length > 0 && (current.length >= limits.maxDocuments || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(operation);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The NDJSON lines of a batch. */
export function bulkBody(batch: readonly BulkOperation[]): unknown[] {
  return batch.flatMap((operation) => (operation.document === undefined ? [operation.action] : [operation.action, operation.document]));
}
