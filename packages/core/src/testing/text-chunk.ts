/**
 * A chunk record of one text, for tests of code that reads chunks (rerankers, answerers).
 */
import type { ChunkRecord } from "../stores/chunk-record.js";

/**
 * A {@link ChunkRecord} whose id, document id and text are `text`, with an empty title, owner, ACL
 * and metadata; `fields` overrides any of them.
 *
 * @example
 * ```ts
 * await reranker.score("q", [textChunk("short"), textChunk("longer", { title: "Guide" })]);
 * ```
 */
export function textChunk(text: string, fields: Partial<ChunkRecord> = {}): ChunkRecord {
  return {
    id: text,
    docId: text,
    chunkIndex: 0,
    text,
    title: "",
    source: "",
    ownerId: "",
    acl: "",
    metadata: {},
    contentHash: "",
    ...fields,
  };
}
