import { DocqaError } from "@docqa/core";
import { type ChunkRecord, chunkId } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import {
  bulkBatches,
  bulkBody,
  chunkDocumentId,
  chunkFromSource,
  chunkSourceFields,
  documentVersionKey,
  metadataEntries,
  registryDocumentId,
  storedChunk,
} from "./chunk-documents.js";

const record: ChunkRecord = {
  id: chunkId("report.pdf", 2),
  docId: "report.pdf",
  chunkIndex: 2,
  text: 'Quarterly figures "quoted" \\ 東京',
  title: "Report",
  source: "upload",
  ownerId: "ann@x.org",
  acl: "|role:HR|deny:Bob@x.org|",
  metadata: { doc_id: "report.pdf", chunk_index: 2, type: "pdf", pages: 7, draft: false, tags: ["a"], extra: null },
  contentHash: "abc123",
  embedding: new Float32Array([0.1, 0.2]),
};

describe("chunkDocumentId", () => {
  it("keys chunks by document, position and version", () => {
    expect(chunkDocumentId(record)).toBe("report.pdf::2::abc123");
    expect(chunkDocumentId({ ...record, contentHash: "other" })).not.toBe(chunkDocumentId(record));
  });

  it("hashes ids beyond the engines' 512-byte limit, counting UTF-8 bytes", () => {
    const longId = "é".repeat(300); // 600 bytes
    const id = chunkDocumentId({ docId: longId, chunkIndex: 0, contentHash: "h" });
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(chunkDocumentId({ docId: longId, chunkIndex: 1, contentHash: "h" })).not.toBe(id);
    expect(chunkDocumentId({ docId: "e".repeat(500), chunkIndex: 0, contentHash: "h" })).toBe(`${"e".repeat(500)}::0::h`);
  });

  it("gives registry ids with distinct prefixes for plain and hashed forms", () => {
    expect(registryDocumentId("doc")).toBe("d:doc");
    expect(registryDocumentId("x".repeat(600))).toMatch(/^h:[0-9a-f]{64}$/);
  });
});

describe("metadataEntries", () => {
  it("indexes scalar values by type and skips the rest", () => {
    expect(
      metadataEntries({
        s: "pdf",
        n: 7,
        f: 1.5,
        b: false,
        nan: Number.NaN,
        inf: Number.POSITIVE_INFINITY,
        nil: null,
        list: ["a"],
        object: { a: 1 },
        long: "x".repeat(8192),
        [`k${"y".repeat(8191)}`]: "v",
        "a.b": "dotted",
      }),
    ).toEqual([
      { key: "s", string: "pdf" },
      { key: "n", number: 7 },
      { key: "f", number: 1.5 },
      { key: "b", boolean: false },
      { key: "a.b", string: "dotted" },
    ]);
  });
});

describe("storedChunk and chunkFromSource", () => {
  it("stores ACL tokens and filter entries, and reads back the chunk without its embedding", () => {
    const stored = storedChunk(record);
    expect(stored.grants).toEqual(["user:ann@x.org", "role:hr"]);
    expect(stored.denied).toEqual(["bob@x.org"]);
    expect(stored.doc_version).toBe(documentVersionKey("report.pdf", "abc123"));
    expect(stored.meta).toContainEqual({ key: "pages", number: 7 });
    expect(Object.keys(stored)).not.toContain("embedding");
    const source = JSON.parse(JSON.stringify(Object.fromEntries(chunkSourceFields.map((field) => [field, stored[field]]))));
    const { embedding: _embedding, ...withoutEmbedding } = record;
    expect(chunkFromSource(source, "opensearch")).toEqual(withoutEmbedding);
  });

  it("refuses a source that lacks fields", () => {
    let error: unknown;
    try {
      chunkFromSource({ doc_id: "x" }, "opensearch");
    } catch (caught) {
      error = caught;
    }
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as Error).message).toContain("[opensearch]");
  });
});

describe("bulkBatches", () => {
  const operation = (index: number, size = 10) => ({ action: { index: { _id: `id${index}` } }, document: { text: "x".repeat(size) } });

  it("bounds batches by document count", () => {
    const operations = Array.from({ length: 1201 }, (_, index) => operation(index));
    const batches = bulkBatches(operations, { maxDocuments: 500, maxBytes: 10_000_000 });
    expect(batches.map((batch) => batch.length)).toEqual([500, 500, 201]);
    expect(batches.flat()).toEqual(operations);
  });

  it("bounds batches by bytes, and sends an oversized document alone", () => {
    const operations = [operation(0, 400), operation(1, 400), operation(2, 5_000), operation(3, 10)];
    const batches = bulkBatches(operations, { maxDocuments: 500, maxBytes: 1_000 });
    expect(batches.map((batch) => batch.map((item) => (item.action.index as { _id: string })._id))).toEqual([
      ["id0", "id1"],
      ["id2"],
      ["id3"],
    ]);
  });

  it("writes action and document lines, and only the action for deletes", () => {
    expect(bulkBody([operation(0, 1), { action: { delete: { _id: "gone" } } }])).toEqual([
      { index: { _id: "id0" } },
      { text: "x" },
      { delete: { _id: "gone" } },
    ]);
  });
});
