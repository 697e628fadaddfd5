import { closeSync, copyFileSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../logging/logger.js";
import { mulberry32 } from "../raptor/cluster-vectors.js";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { Bm25Index } from "./bm25-index.js";
import { Bm25SnapshotFiles, bm25SnapshotHeaderPath } from "./bm25-snapshot.js";
import { OrganisationStore } from "./organisation-store.js";
import { runToEnd } from "./time-slice.js";

const parameters = { k1: 0.9, b: 0.4 };
const everyone = { userName: "someone@example.org", roles: [], groups: [] };
const words = Array.from({ length: 300 }, (_, index) => `w${index.toString(36)}`);

/** `count` term lists with a skewed (Zipf-like) word distribution, from a seed. */
function generatedTerms(count: number, seed: number): string[][] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 5 + Math.floor(random() * 40) }, () => words[Math.floor(words.length * random() ** 2)] as string),
  );
}

function queriesOf(seed: number): string[][] {
  const random = mulberry32(seed);
  return Array.from({ length: 40 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 4) }, () => words[Math.floor(random() * 120)] as string),
  );
}

describe("Bm25Index capture and restore", () => {
  it("restores postings that score every query exactly as the index they were copied from", () => {
    const original = new Bm25Index(parameters);
    const terms = generatedTerms(2000, 7);
    terms.forEach((slotTerms, slot) => {
      original.add(slot, slotTerms);
    });
    for (let slot = 0; slot < 2000; slot += 7) original.remove(slot);
    // Row ids: slot * 3 + 11 (any ascending mapping).
    const postings = runToEnd(original.capture((slot) => slot * 3 + 11));
    expect(postings.rowIds.length).toBe(original.size);
    expect(postings.frequencies).toBeInstanceOf(Uint16Array);

    // The restored index gives the rows other slots (shifted by 5), as a reopening does.
    const restored = new Bm25Index(parameters);
    const slotOfRow = Int32Array.from(postings.rowIds, (rowId) => (rowId - 11) / 3 + 5);
    runToEnd(restored.restore(postings, slotOfRow));
    expect(restored.size).toBe(original.size);
    for (const query of queriesOf(9)) {
      const expected = original.search(query, 10).map(({ id, score }) => ({ id: id + 5, score }));
      expect(restored.search(query, 10)).toEqual(expected);
      expect(restored.count(query)).toBe(original.count(query));
    }
    // Removing a restored slot (while its term ids are still being gathered) and adding a new one behave as on the original.
    const gathering = restored.restoredTermsSteps();
    expect(gathering.next().done).toBe(false);
    original.remove(1);
    restored.remove(6);
    expect(gathering.next().done).toBe(true);
    original.add(5000, ["w1", "w2", "brandnew"]);
    restored.add(5005, ["w1", "w2", "brandnew"]);
    for (const query of [...queriesOf(11), ["brandnew"]]) {
      expect(restored.search(query, 10)).toEqual(original.search(query, 10).map(({ id, score }) => ({ id: id + 5, score })));
    }
  });

  it("leaves out rows mapped to no slot and terms of deleted slots, and keeps frequencies above 65,535", () => {
    const original = new Bm25Index(parameters);
    original.add(0, ["alpha", "beta"]);
    original.add(1, ["gone", "beta"]);
    original.add(2, [...Array.from({ length: 70_000 }, () => "many"), "beta"]);
    original.remove(1);
    const postings = runToEnd(original.capture((slot) => slot + 1));
    expect(postings.terms).toEqual(["alpha", "beta", "many"]);
    expect(postings.frequencies).toBeInstanceOf(Uint32Array);
    const restored = new Bm25Index(parameters);
    runToEnd(restored.restore(postings, Int32Array.from([0, -1])));
    expect(restored.size).toBe(1);
    expect(restored.search(["many"], 5)).toEqual([]);
    expect(restored.search(["alpha"], 5).map((hit) => hit.id)).toEqual([0]);
  });

  it("throws on inconsistent postings instead of restoring them", () => {
    const original = new Bm25Index(parameters);
    original.add(0, ["alpha"]);
    const postings = runToEnd(original.capture((slot) => slot));
    postings.postingRows[0] = 9;
    expect(() => runToEnd(new Bm25Index(parameters).restore(postings, Int32Array.from([0])))).toThrow(RangeError);
  });
});

const directories: string[] = [];
const opened: OrganisationStore[] = [];

afterEach(async () => {
  // A store still saving its postings in the background writes into its folder after a bare close(); wait for the save, as EmbeddedStore.close does.
  for (const store of opened.splice(0)) {
    await store.pendingIndexSave();
    store.close();
  }
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function newDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "docqa-bm25-snapshot-"));
  directories.push(directory);
  return directory;
}

function recordingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const record = (message: string) => {
    messages.push(message);
  };
  return { logger: { debug: record, info: record, warn: record, error: record }, messages };
}

function open(
  path: string,
  options: { logger?: Logger; inMemoryIndexes?: boolean; orgId?: string; minimumChunks?: number } = {},
): OrganisationStore {
  const store = new OrganisationStore({
    path,
    orgId: options.orgId ?? "org-a",
    analyzer: createEnglishAnalyzer(),
    bm25: parameters,
    vectorIndex: { mode: "exact", minVectors: 20_000, hnsw: { connectivity: 16, expansionAdd: 128, expansionSearch: 128 } },
    logger: options.logger ?? recordingLogger().logger,
    inMemoryIndexes: options.inMemoryIndexes,
    bm25SnapshotMinimumChunks: options.minimumChunks ?? 0,
  });
  opened.push(store);
  return store;
}

async function close(store: OrganisationStore): Promise<void> {
  await store.pendingIndexSave();
  opened.splice(opened.indexOf(store), 1);
  store.close();
}

const topics = ["glacier", "volcano", "monsoon", "estuary", "tundra", "savanna", "reef", "canyon"];

/** A document of three chunks about two topics, text from a seed. */
function documentOf(docId: string, seed: number, extra = ""): DocumentVersion {
  const random = mulberry32(seed);
  const chunks: ChunkRecord[] = Array.from({ length: 3 }, (_, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text: `${extra} ${Array.from({ length: 12 }, () => topics[Math.floor(random() * topics.length)]).join(" ")} notes ${docId}`,
    title: docId,
    source: "test",
    ownerId: "owner@example.org",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: `${docId}-${seed}`,
  }));
  return { docId, contentHash: `${docId}-${seed}`, chunks };
}

const queries = ["glacier volcano", "monsoon", "reef canyon tundra", "estuary savanna notes", "d7"];

/** The top-8 chunk ids and scores of each query, after catching up with the database. */
async function answers(store: OrganisationStore): Promise<{ id: string; score: number }[][]> {
  await store.refresh();
  return queries.map((query) =>
    store.searchByText(query, 8, { principal: everyone }).map((hit) => ({ id: hit.chunk.id, score: hit.score })),
  );
}

/** A store of 40 documents, searched (which saves the postings) and closed. */
async function savedStore(): Promise<{ path: string; before: { id: string; score: number }[][] }> {
  const path = join(newDirectory(), "org-a.sqlite");
  const store = open(path);
  store.upsert(
    Array.from({ length: 40 }, (_, index) => documentOf(`d${index}`, index)),
    undefined,
  );
  const before = await answers(store);
  await close(store);
  return { path, before };
}

function postingsFile(path: string): string {
  const header = JSON.parse(readFileSync(bm25SnapshotHeaderPath(path), "utf8")) as { name: string };
  return `${path}.bm25-${header.name}.postings`;
}

describe("saved BM25 postings", () => {
  it("are written after the first load and loaded on reopening, with the same results", async () => {
    const { path, before } = await savedStore();
    expect(statSync(postingsFile(path)).size).toBeGreaterThan(0);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    expect(await answers(reopened)).toEqual(before);
    expect(messages).toContain("BM25 postings loaded from their snapshot");
  });

  it("are not written for an organisation below the minimum of chunks (20,000 by default)", async () => {
    const path = join(newDirectory(), "org-a.sqlite");
    const store = open(path, { minimumChunks: 121 });
    store.upsert(
      Array.from({ length: 40 }, (_, index) => documentOf(`d${index}`, index)),
      undefined,
    );
    await answers(store);
    await close(store);
    expect(readdirSync(join(path, "..")).filter((file) => file.includes(".bm25"))).toEqual([]);
  });

  it("are ignored when damaged or truncated, and the postings rebuilt with the same results", async () => {
    const { path, before } = await savedStore();
    const file = postingsFile(path);
    const descriptor = openSync(file, "r+");
    writeSync(descriptor, Buffer.alloc(16, 0x7f), 0, 16, Math.floor(statSync(file).size / 2));
    closeSync(descriptor);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    expect(await answers(reopened)).toEqual(before);
    expect(messages).not.toContain("BM25 postings loaded from their snapshot");
    expect(messages).toContain("no saved BM25 postings match the database: building them");
  });

  it("are brought up to date from the change log when other connections wrote after they were saved", async () => {
    const { path } = await savedStore();
    const header = bm25SnapshotHeaderPath(path);
    const data = postingsFile(path);
    copyFileSync(header, `${header}.copy`);
    copyFileSync(data, `${data}.copy`);
    // An ingestion worker's connection (no in-memory indexes) adds, changes and deletes documents.
    const writer = open(path, { inMemoryIndexes: false });
    writer.upsert([documentOf("d50", 50), documentOf("d51", 51)], undefined);
    // Additions leave the snapshot; a deletion or replacement removes it (it holds their terms).
    expect(readdirSync(join(path, "..")).some((file) => file.endsWith(".postings"))).toBe(true);
    writer.upsert([documentOf("d3", 1003, "glacier glacier")], undefined, ["d7", "d8"]);
    expect(readdirSync(join(path, "..")).some((file) => file.endsWith(".postings") || file.endsWith(".bm25.json"))).toBe(false);
    await close(writer);
    // As if the process had stopped between the deletion's commit and the removal: the stale snapshot is back.
    copyFileSync(`${header}.copy`, header);
    copyFileSync(`${data}.copy`, data);
    rmSync(`${header}.copy`);
    rmSync(`${data}.copy`);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    const caughtUp = await answers(reopened);
    expect(messages).toContain("BM25 postings loaded from their snapshot");
    // It held the deleted rows' terms: removed once loaded.
    expect(readdirSync(join(path, "..")).some((file) => file.includes(".bm25"))).toBe(false);
    await close(reopened);
    // The same database with no snapshot (closing saved one again: removed): rebuilt from SQLite.
    rmSync(bm25SnapshotHeaderPath(path), { force: true });
    const rebuilt = open(path);
    expect(await answers(rebuilt)).toEqual(caughtUp);
    const ids = caughtUp.flat().map((hit) => hit.id);
    expect(ids.some((id) => id.startsWith("d7::") || id.startsWith("d8::"))).toBe(false);
    expect(caughtUp[4]).toEqual([]);
    expect(ids.some((id) => id.startsWith("d50::") || id.startsWith("d51::"))).toBe(true);
  });

  it("never return deleted documents after a reopening, and are removed from disk when a deletion is applied", async () => {
    const { path } = await savedStore();
    const store = open(path);
    await answers(store);
    const glacierChunks = store.searchByText("glacier", 200, { principal: everyone }).length;
    expect(readdirSync(join(path, "..")).some((file) => file.endsWith(".postings"))).toBe(true);
    store.upsert([documentOf("secret", 99, "quuxzorblax")], undefined);
    await store.refresh();
    expect(store.searchByText("quuxzorblax", 5, { principal: everyone })).toHaveLength(3);
    await close(store);
    const reopened = open(path);
    await reopened.refresh();
    expect(reopened.searchByText("quuxzorblax", 5, { principal: everyone })).toHaveLength(3);
    reopened.delete(["secret"]);
    // The snapshot that held the deleted terms is gone at once; no file keeps them.
    expect(readdirSync(join(path, "..")).some((file) => file.includes(".bm25"))).toBe(false);
    await close(reopened);
    for (const file of readdirSync(join(path, ".."))) {
      expect(
        readFileSync(join(path, "..", file))
          .toString("latin1")
          .includes("quuxzorblax"),
      ).toBe(false);
    }
    const again = open(path);
    await again.refresh();
    expect(again.searchByText("quuxzorblax", 5, { principal: everyone })).toEqual([]);
    expect(again.searchByText("glacier", 200, { principal: everyone })).toHaveLength(glacierChunks);
  });

  it("of one organisation are never loaded for another, even under its file names", async () => {
    const { path } = await savedStore();
    const other = join(newDirectory(), "org-b.sqlite");
    const store = open(other, { orgId: "org-b" });
    store.upsert([documentOf("b1", 1), documentOf("b2", 2)], undefined);
    await close(store);
    // Org A's snapshot copied over org B's.
    copyFileSync(bm25SnapshotHeaderPath(path), bm25SnapshotHeaderPath(other));
    copyFileSync(postingsFile(path), postingsFile(other).replace(path, other));
    const { logger, messages } = recordingLogger();
    const reopened = open(other, { orgId: "org-b", logger });
    await reopened.refresh();
    expect(messages).not.toContain("BM25 postings loaded from their snapshot");
    const ids = reopened
      .searchByText("glacier volcano monsoon reef canyon tundra estuary savanna", 50, { principal: everyone })
      .map((hit) => hit.chunk.docId);
    expect(new Set(ids)).toEqual(new Set(["b1", "b2"]));
  });
});

describe("Bm25SnapshotFiles", () => {
  it("reads back what it wrote, and nothing once the header names another database", async () => {
    const index = new Bm25Index(parameters);
    generatedTerms(300, 3).forEach((terms, slot) => {
      index.add(slot, terms);
    });
    const postings = runToEnd(index.capture((slot) => slot * 2));
    const path = join(newDirectory(), "org.sqlite");
    const files = new Bm25SnapshotFiles(path);
    const coverage = { storeId: "s1", orgId: "org", analyzer: "english-porter-v1", change: 12 };
    expect(await files.write(postings, coverage)).toBe(true);
    const read = await files.read((saved) => saved.storeId === "s1");
    expect(read?.coverage).toEqual(coverage);
    expect(read?.postings.terms).toEqual(postings.terms);
    expect(Array.from(read?.postings.postingRows ?? [])).toEqual(Array.from(postings.postingRows));
    expect(Array.from(read?.postings.frequencies ?? [])).toEqual(Array.from(postings.frequencies));
    expect(Array.from(read?.postings.rowIds ?? [])).toEqual(Array.from(postings.rowIds));
    expect(await files.read((saved) => saved.storeId === "s2")).toBeUndefined();
    // Written again at close: blocking, the same content; the older data file is removed.
    files.writeNow(postings, { ...coverage, change: 13 });
    expect((await files.read(() => true))?.coverage.change).toBe(13);
    expect(readdirSync(join(path, "..")).filter((file) => file.endsWith(".postings"))).toHaveLength(1);
    // A save dropped before its commit (a deletion meanwhile) leaves the previous snapshot.
    expect(await files.write(postings, { ...coverage, change: 14 }, () => false)).toBe(false);
    expect((await files.read(() => true))?.coverage.change).toBe(13);
    expect(readdirSync(join(path, "..")).filter((file) => file.includes(".tmp"))).toEqual([]);
  });
});
