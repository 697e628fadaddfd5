import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { Source } from "./answer.js";
import { buildContext, sourceText } from "./build-context.js";

function chunk(docId: string, text: string, overrides: Partial<ChunkRecord> = {}): ChunkRecord {
  return {
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text,
    title: `Title ${docId}`,
    source: "wiki",
    ownerId: `${docId}-owner@x.org`,
    acl: `|user:${docId}-reader@x.org|`,
    metadata: { org_id: "org-1", doc_id: docId, chunk_index: 0 },
    contentHash: `hash-${docId}`,
    ...overrides,
  };
}

const wide = { maxDocChars: 10_000, maxContextChars: 100_000 };

describe("buildContext", () => {
  it("keys entries doc_1..doc_n in rank order", () => {
    const ranked = [
      { chunk: chunk("c", "third doc text"), score: 0.9 },
      { chunk: chunk("a", "first doc text"), score: 0.5 },
      { chunk: chunk("b", "second doc text"), score: 0.1 },
    ];
    const context = buildContext(ranked, wide);
    expect(context.entries.map((entry) => [entry.key, entry.chunk.docId, entry.score])).toEqual([
      ["doc_1", "c", 0.9],
      ["doc_2", "a", 0.5],
      ["doc_3", "b", 0.1],
    ]);
    expect(Object.keys(context.sources)).toEqual(["doc_1", "doc_2", "doc_3"]);
    expect(context.sources.doc_2?.title).toBe("Title a");
  });

  it("writes each entry under its marker and title, separated by blank lines", () => {
    const context = buildContext(
      [
        { chunk: chunk("a", "Alpha text."), score: 1 },
        { chunk: chunk("b", "Beta text."), score: 0.5 },
      ],
      wide,
    );
    expect(context.text).toBe("[Source: doc_1] Title a\nAlpha text.\n\n[Source: doc_2] Title b\nBeta text.");
  });

  it("truncates a chunk longer than maxDocChars and marks the cut with an ellipsis", () => {
    const context = buildContext([{ chunk: chunk("a", "abcdefghij"), score: 1 }], { maxDocChars: 4, maxContextChars: 1000 });
    expect(context.entries[0]?.text).toBe("abcd…");
    expect(context.text).toBe("[Source: doc_1] Title a\nabcd…");
    // The source keeps the full chunk text.
    expect(context.sources.doc_1?.page_content).toBe("abcdefghij");
  });

  it("does not truncate a chunk of exactly maxDocChars", () => {
    const context = buildContext([{ chunk: chunk("a", "abcd"), score: 1 }], { maxDocChars: 4, maxContextChars: 1000 });
    expect(context.entries[0]?.text).toBe("abcd");
  });

  it("stops adding entries once the next one would exceed maxContextChars", () => {
    const first = "[Source: doc_1] Title a\nAlpha text.";
    const second = "[Source: doc_2] Title b\nBeta text.";
    const ranked = [
      { chunk: chunk("a", "Alpha text."), score: 1 },
      { chunk: chunk("b", "Beta text."), score: 0.5 },
      { chunk: chunk("c", "Gamma text."), score: 0.2 },
    ];
    const exact = first.length + 2 + second.length;
    const fits = buildContext(ranked, { maxDocChars: 1000, maxContextChars: exact });
    expect(fits.entries.map((entry) => entry.key)).toEqual(["doc_1", "doc_2"]);
    expect(fits.text.length).toBe(exact);
    const tooSmall = buildContext(ranked, { maxDocChars: 1000, maxContextChars: exact - 1 });
    expect(tooSmall.entries.map((entry) => entry.key)).toEqual(["doc_1"]);
    expect(Object.keys(tooSmall.sources)).toEqual(["doc_1"]);
    expect(tooSmall.text).toBe(first);
  });

  it("stops at the first entry that does not fit, even if a later one would", () => {
    const ranked = [
      { chunk: chunk("a", "short"), score: 1 },
      { chunk: chunk("b", "x".repeat(500)), score: 0.5 },
      { chunk: chunk("c", "tiny"), score: 0.2 },
    ];
    const context = buildContext(ranked, { maxDocChars: 1000, maxContextChars: 200 });
    expect(context.entries.map((entry) => entry.chunk.docId)).toEqual(["a"]);
  });

  it("never cuts the first entry, even when it alone exceeds maxContextChars", () => {
    const text = "y".repeat(300);
    const context = buildContext(
      [
        { chunk: chunk("a", text), score: 1 },
        { chunk: chunk("b", "b"), score: 0.5 },
      ],
      { maxDocChars: 1000, maxContextChars: 100 },
    );
    expect(context.entries).toHaveLength(1);
    expect(context.entries[0]?.text).toBe(text);
    expect(context.text).toBe(`[Source: doc_1] Title a\n${text}`);
  });

  it("puts filename, owner_id, acl, doc_id, chunk_id and score into each source's metadata", () => {
    const record = chunk("a", "Alpha text.", { metadata: { org_id: "org-1", department: "hr", owner_id: "stale@x.org" } });
    const context = buildContext([{ chunk: record, score: 0.75 }], wide);
    expect(context.sources.doc_1).toEqual({
      title: "Title a",
      source: "wiki",
      page_content: "Alpha text.",
      metadata: {
        org_id: "org-1",
        department: "hr",
        // No file: the document id stands in.
        filename: "a",
        owner_id: "a-owner@x.org",
        acl: "|user:a-reader@x.org|",
        doc_id: "a",
        chunk_id: "a::0",
        score: 0.75,
      },
    });
    // The chunk's own metadata is not modified.
    expect(record.metadata).toEqual({ org_id: "org-1", department: "hr", owner_id: "stale@x.org" });
    const fromFile = chunk("policy.json#3", "Record.", { metadata: { filename: "policy.json" } });
    expect(buildContext([{ chunk: fromFile, score: 1 }], wide).sources.doc_1?.metadata.filename).toBe("policy.json");
    const recordWithoutFile = chunk("records#3", "Record.");
    expect(buildContext([{ chunk: recordWithoutFile, score: 1 }], wide).sources.doc_1?.metadata.filename).toBe("records");
  });

  it("returns an empty context for no chunks", () => {
    expect(buildContext([], wide)).toEqual({ entries: [], sources: {}, text: "" });
  });

  it("heads a block with its section's heading path, which grounding reads as the source's text", () => {
    const metadata = { org_id: "org-1", doc_id: "a", chunk_index: 0, section: "Changelog > 2.4.0 (2026-03-02) > Added" };
    const context = buildContext([{ chunk: chunk("a", "- Streaming responses.", { metadata }), score: 1 }], wide);
    expect(context.text).toBe("[Source: doc_1] Title a \u2014 Changelog > 2.4.0 (2026-03-02) > Added\n- Streaming responses.");
    expect(sourceText(context.sources.doc_1 as Source)).toContain("2.4.0 (2026-03-02)");
    expect(buildContext([{ chunk: chunk("b", "Plain."), score: 1 }], wide).text).toBe("[Source: doc_1] Title b\nPlain.");
  });
});
