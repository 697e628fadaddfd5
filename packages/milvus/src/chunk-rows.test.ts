import { DocqaError } from "@docqa/core";
import type { ChunkRecord } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import {
  chunkRowId,
  chunkToRow,
  maximumArrayCapacity,
  maximumVarCharBytes,
  placeholderVector,
  rowToChunk,
  truncateTerms,
  truncateUtf8,
  utf8Length,
} from "./chunk-rows.js";

const chunk = (overrides: Partial<ChunkRecord> = {}): ChunkRecord => ({
  id: "doc::0",
  docId: "doc",
  chunkIndex: 0,
  text: "Dogs bark.",
  title: "Dogs",
  source: "wiki",
  ownerId: "Owner@Example.org",
  acl: "|user:_all_|role:HR|deny:bob@example.org|",
  metadata: { type: "pdf", pages: 3 },
  contentHash: "h1",
  embedding: Float32Array.from([0.6, 0.8]),
  ...overrides,
});

const options = { dimension: 2, bm25Text: (item: ChunkRecord) => `terms of ${item.docId}` };

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return DocqaError.isInstance(error) ? error.code : "not a DocqaError";
  }
  return undefined;
}

describe("chunkToRow", () => {
  it("keys rows by document, position and version, and stores the ACL as tokens", () => {
    const { row, truncated } = chunkToRow("doc", "h1", chunk(), options);
    expect(truncated).toEqual([]);
    expect(row).toEqual({
      id: "doc::0::h1",
      doc_id: "doc",
      chunk_id: "doc::0",
      content_hash: "h1",
      chunk_index: 0,
      text: "Dogs bark.",
      title: "Dogs",
      source: "wiki",
      owner_id: "Owner@Example.org",
      acl: "|user:_all_|role:HR|deny:bob@example.org|",
      grants: ["user:owner@example.org", "all", "role:hr"],
      denied: ["bob@example.org"],
      metadata: { type: "pdf", pages: 3 },
      has_embedding: true,
      embedding: [expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)],
      bm25_text: "terms of doc",
    });
    expect(chunkRowId("a::b", 3, "h")).toBe("a::b::3::h");
  });

  it("stores a placeholder vector for chunks without an embedding", () => {
    const { row } = chunkToRow("doc", "h1", chunk({ embedding: undefined }), { ...options, dimension: 3 });
    expect(row.has_embedding).toBe(false);
    expect(row.embedding).toEqual([1, 0, 0]);
    expect(placeholderVector(2)).toEqual([1, 0]);
  });

  it("refuses an embedding of another dimension", () => {
    expect(codeOf(() => chunkToRow("doc", "h1", chunk(), { ...options, dimension: 4 }))).toBe("embedding_dimension_mismatch");
  });

  it("truncates long text at a character boundary and reports it", () => {
    const text = "é".repeat(40_000); // 80,000 bytes
    const { row, truncated } = chunkToRow("doc", "h1", chunk({ text }), options);
    expect(truncated).toEqual(["text"]);
    expect(utf8Length(row.text)).toBeLessThanOrEqual(maximumVarCharBytes);
    expect(row.text).toBe("é".repeat(Math.floor(maximumVarCharBytes / 2)));
  });

  it("never truncates identifiers or ACLs: too long is an error", () => {
    expect(codeOf(() => chunkToRow("d".repeat(70_000), "h1", chunk(), options))).toBe("payload_too_large");
    expect(codeOf(() => chunkToRow("doc", "h1", chunk({ acl: `|user:${"a".repeat(70_000)}|` }), options))).toBe("payload_too_large");
    expect(codeOf(() => chunkToRow("doc", "h1", chunk({ metadata: { notes: "n".repeat(70_000) } }), options))).toBe("payload_too_large");
    const manyDenials = Array.from({ length: maximumArrayCapacity + 1 }, (_, index) => `deny:u${index}@x.org`).join("|");
    expect(codeOf(() => chunkToRow("doc", "h1", chunk({ acl: `|${manyDenials}|` }), options))).toBe("payload_too_large");
  });
});

describe("rowToChunk", () => {
  it("reads back a stored row, including Int64 values returned as strings and JSON as text", () => {
    expect(
      rowToChunk({
        id: "doc::2::h",
        doc_id: "doc",
        chunk_id: "doc::2",
        content_hash: "h",
        chunk_index: "2",
        text: "t",
        title: "T",
        source: "s",
        owner_id: "o@x.org",
        acl: "|user:_all_|",
        metadata: '{"type":"md"}',
        score: 0.5,
      }),
    ).toEqual({
      id: "doc::2",
      docId: "doc",
      chunkIndex: 2,
      text: "t",
      title: "T",
      source: "s",
      ownerId: "o@x.org",
      acl: "|user:_all_|",
      metadata: { type: "md" },
      contentHash: "h",
    });
  });
});

describe("truncation helpers", () => {
  it("cuts UTF-8 between characters, never inside a surrogate pair", () => {
    expect(truncateUtf8("a😀b", 4)).toBe("a");
    expect(truncateUtf8("a😀b", 5)).toBe("a😀");
    expect(truncateUtf8("short", 100)).toBe("short");
  });

  it("cuts analysed terms at a term boundary", () => {
    expect(truncateTerms("alpha beta gamma", 12)).toBe("alpha beta");
    expect(truncateTerms("alpha beta gamma", 10)).toBe("alpha beta");
    expect(truncateTerms("alphabet", 4)).toBe("");
  });
});
