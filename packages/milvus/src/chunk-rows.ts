/**
 * Conversion between docqa chunks and rows of a Milvus chunk collection (see
 * `collection-schemas.ts` for the fields), with the size limits of Milvus fields.
 */
import { DocqaError } from "@docqa/core";
import { type ChunkRecord, chunkAccessTokens } from "@docqa/core/stores";

/**
 * Largest value of a VarChar field and of each element of an Array<VarChar> field, in UTF-8
 * bytes (Milvus's upper limit of `max_length`).
 */
export const maximumVarCharBytes = 65_535;

/** Largest value of a JSON field, in bytes of its JSON text (Milvus's limit). */
export const maximumJsonBytes = 65_536;

/** Most elements of an Array field (Milvus's upper limit of `max_capacity`). */
export const maximumArrayCapacity = 4_096;

/** One row of a chunk collection, as inserted (a type alias, so it is assignable to the SDK's `RowData`). */
export type ChunkRow = {
  /** Primary key, {@link chunkRowId}. */
  id: string;
  doc_id: string;
  /** The chunk's own id (`ChunkRecord.id`). */
  chunk_id: string;
  content_hash: string;
  chunk_index: number;
  /** The chunk text, truncated to {@link maximumVarCharBytes} when longer. */
  text: string;
  title: string;
  source: string;
  owner_id: string;
  acl: string;
  /** ACL grant tokens (`chunkAccessTokens`). */
  grants: string[];
  /** Lower-cased e-mails of `deny:` entries. */
  denied: string[];
  metadata: Record<string, unknown>;
  /** Whether `embedding` is the chunk's embedding (false: a placeholder unit vector). */
  has_embedding: boolean;
  embedding: number[];
  /** The input of the BM25 function; absent in a collection without BM25. */
  bm25_text?: string;
};

/** Options of {@link chunkToRow}. */
export interface ChunkRowOptions {
  /** The collection's dense vector dimension. */
  dimension: number;
  /**
   * The text the BM25 function analyses for this chunk (already analysed or raw); undefined for a
   * collection without BM25 (the row then has no `bm25_text`).
   */
  bm25Text?: ((chunk: ChunkRecord) => string) | undefined;
}

/** What {@link chunkToRow} returns. */
export interface ConvertedChunk {
  row: ChunkRow;
  /** Fields that were truncated to fit Milvus's limits (`text`, `title`, `bm25_text`). */
  truncated: string[];
}

/**
 * The primary key of a chunk version: `<docId>::<chunkIndex>::<contentHash>`. Versions of the
 * same chunk coexist until pruned (staged writes).
 */
export function chunkRowId(docId: string, chunkIndex: number, contentHash: string): string {
  return `${docId}::${chunkIndex}::${contentHash}`;
}

/**
 * The row of `chunk`, a chunk of document `docId` at version `contentHash`.
 *
 * Long display text is truncated at a character boundary to {@link maximumVarCharBytes} bytes
 * (`text`, `title`, `source`), and `bm25_text` at a term boundary; identifiers and ACL values are
 * never truncated.
 *
 * @throws {DocqaError} `payload_too_large` when an identifier, the owner, the ACL string or an ACL
 *   token exceeds {@link maximumVarCharBytes} bytes, the metadata exceeds {@link maximumJsonBytes}
 *   bytes of JSON, or the ACL has more than
 *   {@link maximumArrayCapacity} grants or denials; `embedding_dimension_mismatch` when the
 *   embedding's length is not `options.dimension`.
 */
export function chunkToRow(docId: string, contentHash: string, chunk: ChunkRecord, options: ChunkRowOptions): ConvertedChunk {
  const id = chunkRowId(docId, chunk.chunkIndex, contentHash);
  const where = `chunk ${chunk.chunkIndex} of document ${JSON.stringify(docId.slice(0, 200))}`;
  for (const [field, value] of [
    ["the primary key", id],
    ["the chunk id", chunk.id],
    ["the owner", chunk.ownerId],
    ["the ACL", chunk.acl],
  ] as const) {
    if (utf8Length(value) > maximumVarCharBytes) {
      throw new DocqaError("payload_too_large", `${field} of ${where} is longer than Milvus's ${maximumVarCharBytes}-byte limit`, {
        component: "milvus",
      });
    }
  }
  if (utf8Length(JSON.stringify(chunk.metadata)) > maximumJsonBytes) {
    throw new DocqaError("payload_too_large", `the metadata of ${where} is larger than Milvus's ${maximumJsonBytes}-byte JSON limit`, {
      component: "milvus",
    });
  }
  const { grants, denied } = chunkAccessTokens(chunk.ownerId, chunk.acl);
  for (const [field, tokens] of [
    ["grants", grants],
    ["denials", denied],
  ] as const) {
    if (tokens.some((token) => utf8Length(token) > maximumVarCharBytes)) {
      throw new DocqaError("payload_too_large", `an ACL entry of ${where} is longer than Milvus's ${maximumVarCharBytes}-byte limit`, {
        component: "milvus",
      });
    }
    if (tokens.length > maximumArrayCapacity) {
      throw new DocqaError(
        "payload_too_large",
        `the ACL of ${where} has ${tokens.length} ${field}; Milvus stores at most ${maximumArrayCapacity}`,
        {
          component: "milvus",
        },
      );
    }
  }
  if (chunk.embedding && chunk.embedding.length !== options.dimension) {
    throw new DocqaError(
      "embedding_dimension_mismatch",
      `${where} has a ${chunk.embedding.length}-dimensional embedding; the collection holds ${options.dimension} dimensions`,
      { component: "milvus" },
    );
  }
  const truncated: string[] = [];
  const fit = (field: string, value: string, cut: (value: string, bytes: number) => string) => {
    if (utf8Length(value) <= maximumVarCharBytes) return value;
    truncated.push(field);
    return cut(value, maximumVarCharBytes);
  };
  const row: ChunkRow = {
    id,
    doc_id: docId,
    chunk_id: chunk.id,
    content_hash: contentHash,
    chunk_index: chunk.chunkIndex,
    text: fit("text", chunk.text, truncateUtf8),
    title: fit("title", chunk.title, truncateUtf8),
    source: fit("source", chunk.source, truncateUtf8),
    owner_id: chunk.ownerId,
    acl: chunk.acl,
    grants,
    denied,
    metadata: chunk.metadata,
    has_embedding: chunk.embedding !== undefined,
    embedding: chunk.embedding ? Array.from(chunk.embedding) : placeholderVector(options.dimension),
  };
  if (options.bm25Text) row.bm25_text = fit("bm25_text", options.bm25Text(chunk), truncateTerms);
  return { row, truncated };
}

/**
 * The chunk stored in a row returned by a search or query (with the output fields of
 * {@link chunkOutputFields}). The embedding is not read back.
 */
export function rowToChunk(row: Record<string, unknown>): ChunkRecord {
  return {
    id: String(row.chunk_id ?? ""),
    docId: String(row.doc_id ?? ""),
    chunkIndex: Number(row.chunk_index ?? 0),
    text: String(row.text ?? ""),
    title: String(row.title ?? ""),
    source: String(row.source ?? ""),
    ownerId: String(row.owner_id ?? ""),
    acl: String(row.acl ?? ""),
    metadata: parseMetadata(row.metadata),
    contentHash: String(row.content_hash ?? ""),
  };
}

/** The fields searches and queries read back. */
export const chunkOutputFields = [
  "id",
  "doc_id",
  "chunk_id",
  "content_hash",
  "chunk_index",
  "text",
  "title",
  "source",
  "owner_id",
  "acl",
  "metadata",
];

/** Number of bytes of `value` in UTF-8. */
export function utf8Length(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/** The longest prefix of `value` of at most `maximumBytes` UTF-8 bytes, cut between characters. */
export function truncateUtf8(value: string, maximumBytes: number): string {
  if (utf8Length(value) <= maximumBytes) return value;
  let bytes = 0;
  let end = 0;
  for (const character of value) {
    const size = utf8Length(character);
    if (bytes + size > maximumBytes) break;
    bytes += size;
    end += character.length;
  }
  return value.slice(0, end);
}

/** {@link truncateUtf8}, then drops a partial last term (after the last space). */
export function truncateTerms(value: string, maximumBytes: number): string {
  const prefix = truncateUtf8(value, maximumBytes);
  if (prefix.length === value.length || value[prefix.length] === " ") return prefix;
  const space = prefix.lastIndexOf(" ");
  return space < 0 ? "" : prefix.slice(0, space);
}

/** The unit vector (1, 0, …, 0) stored for chunks without an embedding (never searched). */
export function placeholderVector(dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  vector[0] = 1;
  return vector;
}

function parseMetadata(value: unknown): Record<string, unknown> {
  if (typeof value === "string") {
    try {
      return parseMetadata(JSON.parse(value));
    } catch {
      return {};
    }
  }
  if (value instanceof Uint8Array) return parseMetadata(Buffer.from(value).toString("utf8"));
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
