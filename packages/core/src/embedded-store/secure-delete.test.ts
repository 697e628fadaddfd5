/**
 * Deleted text is not recoverable from the data directory (issue 27, N8): after a document is
 * deleted or replaced, its unique words are in no file of the data directory (the SQLite file,
 * its write-ahead log), while the store is open and after it is closed and opened again; a file
 * whose earlier deletions left text in free pages is cleaned when it is first opened.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { createEmbeddedStore } from "./embedded-store.js";

const marker = "QUUXZORBLAXSECRET";
const temporaryDirectories: string[] = [];

afterEach(() => {
  for (const directory of temporaryDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function dataDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "docqa-secure-delete-"));
  temporaryDirectories.push(directory);
  return directory;
}

/** A document of `chunks` chunks of about 1,000 characters each; `secret` puts the marker in every chunk. */
function documentVersion(docId: string, chunks: number, secret: boolean, tag = "v1"): DocumentVersion {
  const contentHash = `${docId}-${tag}`;
  const records: ChunkRecord[] = Array.from({ length: chunks }, (_, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text: `${secret ? `${marker}${chunkIndex} ` : ""}${`Paragraph ${chunkIndex} of ${docId} (${tag}) about ordinary matters. `.repeat(14)}`,
    title: secret ? `${marker} title` : `Title of ${docId}`,
    source: "test",
    ownerId: "owner@example.org",
    acl: "|user:_all_|",
    metadata: { note: secret ? `${marker} metadata` : "plain" },
    contentHash,
    embedding: Float32Array.from([chunkIndex % 3, 1, 0.5]),
  }));
  return { docId, contentHash, chunks: records };
}

/** Occurrences of the marker in every file of `directory` (the SQLite file, its -wal and -shm). */
function occurrences(directory: string): number {
  let count = 0;
  for (const name of readdirSync(directory)) {
    const bytes = readFileSync(join(directory, name)).toString("latin1");
    count += bytes.split(marker).length - 1;
  }
  return count;
}

const model = { id: "test-model", dimension: 3 };
const fillers = Array.from({ length: 20 }, (_, index) => documentVersion(`filler-${index}.md`, 8, false));

describe("deleted text in the embedded store's files", () => {
  it("is gone from the data directory after a delete, while open and after a restart", async () => {
    const directory = dataDirectory();
    const store = createEmbeddedStore({ dataDir: directory });
    await store.upsert("org", [...fillers.slice(0, 10), documentVersion("secret.md", 60, true), ...fillers.slice(10)], {
      embeddingModel: model,
    });
    expect(occurrences(directory)).toBeGreaterThan(60);

    await store.delete("org", ["secret.md"]);
    expect(occurrences(directory)).toBe(0);
    // The other documents are intact.
    expect(await store.count("org")).toBe(20 * 8);
    await store.close();
    expect(occurrences(directory)).toBe(0);

    const reopened = createEmbeddedStore({ dataDir: directory });
    expect(await reopened.count("org")).toBe(20 * 8);
    await reopened.close();
    expect(occurrences(directory)).toBe(0);
  });

  it("is gone after a document is replaced by a version without it", async () => {
    const directory = dataDirectory();
    const store = createEmbeddedStore({ dataDir: directory });
    await store.upsert("org", [...fillers, documentVersion("notes.md", 40, true)], { embeddingModel: model });
    expect(occurrences(directory)).toBeGreaterThan(40);
    await store.upsert("org", [documentVersion("notes.md", 40, false, "v2")], { embeddingModel: model });
    expect(occurrences(directory)).toBe(0);
    await store.close();
    expect(occurrences(directory)).toBe(0);
  });

  it("gives the freed pages back: the file shrinks after a large delete", async () => {
    const directory = dataDirectory();
    const store = createEmbeddedStore({ dataDir: directory });
    await store.upsert("org", [...fillers, documentVersion("large.md", 400, true)], { embeddingModel: model });
    await store.close();
    const file = readdirSync(directory).find((name) => name.endsWith(".sqlite")) as string;
    const before = readFileSync(join(directory, file)).byteLength;
    const reopened = createEmbeddedStore({ dataDir: directory });
    await reopened.delete("org", ["large.md"]);
    await reopened.close();
    const after = readFileSync(join(directory, file)).byteLength;
    expect(after).toBeLessThan(before / 2);
  });

  it("cleans a file whose earlier deletions left text in free pages, once, when it is opened", async () => {
    const directory = dataDirectory();
    const store = createEmbeddedStore({ dataDir: directory });
    await store.upsert("org", [...fillers, documentVersion("secret.md", 60, true)], { embeddingModel: model });
    await store.close();
    // What an earlier docqa left: rows deleted without secure_delete, the file not rebuilt since.
    const file = join(directory, readdirSync(directory).find((name) => name.endsWith(".sqlite")) as string);
    const database = new DatabaseSync(file);
    database.exec(
      "PRAGMA secure_delete = OFF; DELETE FROM chunks WHERE doc_id = 'secret.md'; DELETE FROM documents WHERE doc_id = 'secret.md'; DELETE FROM store_info WHERE key = 'secure_delete'; PRAGMA wal_checkpoint(TRUNCATE)",
    );
    database.close();
    expect(occurrences(directory)).toBeGreaterThan(0);

    const reopened = createEmbeddedStore({ dataDir: directory });
    expect(await reopened.count("org")).toBe(20 * 8);
    await reopened.close();
    expect(occurrences(directory)).toBe(0);
    const check = new DatabaseSync(file);
    expect(check.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(check.prepare("SELECT value FROM store_info WHERE key = 'secure_delete'").get()).toEqual({ value: "on" });
    check.close();
  });
});
