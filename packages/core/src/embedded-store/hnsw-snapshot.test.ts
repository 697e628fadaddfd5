import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../logging/logger.js";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { createEmbeddedStore } from "./embedded-store.js";
import { HnswSnapshotFiles, readSnapshotHeader } from "./hnsw-snapshot.js";
import { HnswVectorIndex } from "./hnsw-vector-index.js";
import { OrganisationStore, type OrganisationStoreSettings } from "./organisation-store.js";

const dimension = 16;
const model = { id: "snapshot-test", dimension };
const everyone = { userName: "someone@example.org", roles: [], groups: [] };
const hnsw = { connectivity: 16, expansionAdd: 128, expansionSearch: 128 };

/** A distinct unit-ish vector per index. */
function vectorFor(index: number): Float32Array {
  return Float32Array.from({ length: dimension }, (_, d) => Math.sin((index + 1) * (d + 1)));
}

function documentWith(docId: string, vectorIndex: number): DocumentVersion {
  const chunk: ChunkRecord = {
    id: chunkId(docId, 0),
    docId,
    chunkIndex: 0,
    text: `vector document ${docId}`,
    title: docId,
    source: "test",
    ownerId: "owner@example.org",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: `${docId}-${vectorIndex}`,
    embedding: vectorFor(vectorIndex),
  };
  return { docId, contentHash: chunk.contentHash, chunks: [chunk] };
}

function recordingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const record = (message: string) => {
    messages.push(message);
  };
  return { logger: { debug: record, info: record, warn: record, error: record }, messages };
}

/** Overwrites 64 bytes of a file at `offset`. */
function damage(file: string, offset: number): void {
  const descriptor = openSync(file, "r+");
  writeSync(descriptor, Buffer.alloc(64, 0x7f), 0, 64, Math.floor(offset));
  closeSync(descriptor);
}

const opened: OrganisationStore[] = [];
const directories: string[] = [];

afterEach(async () => {
  // A store still saving its graph in the background writes into its folder after a bare close(); wait for the save, as EmbeddedStore.close does.
  for (const store of opened.splice(0)) {
    await store.pendingIndexSave();
    store.close();
  }
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function newDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "docqa-hnsw-snapshot-"));
  directories.push(directory);
  return directory;
}

/** Opens a store whose graph starts from 50 vectors. */
function open(path: string, options: { logger?: Logger; inMemoryIndexes?: boolean } = {}): OrganisationStore {
  const settings: OrganisationStoreSettings = {
    path,
    orgId: "org-a",
    analyzer: createEnglishAnalyzer(),
    bm25: { k1: 0.9, b: 0.4 },
    vectorIndex: { mode: "auto", minVectors: 50, hnsw },
    logger: options.logger ?? recordingLogger().logger,
    inMemoryIndexes: options.inMemoryIndexes,
  };
  const store = new OrganisationStore(settings);
  opened.push(store);
  return store;
}

function close(store: OrganisationStore): void {
  opened.splice(opened.indexOf(store), 1);
  store.close();
}

/** Searches once (loading the indexes), then waits until the graph is ready and any save of it has finished. */
async function untilReady(store: OrganisationStore): Promise<void> {
  store.searchByVector(vectorFor(0), model, 1, {});
  for (let attempt = 0; attempt < 2000 && store.vectorIndexStatus().approximate !== "ready"; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(store.vectorIndexStatus().approximate).toBe("ready");
  await store.pendingIndexSave();
}

/** The top-5 document ids and scores of a few queries. */
function answers(store: OrganisationStore, queries: readonly number[]): { docId: string; score: number }[][] {
  return queries.map((query) =>
    store
      .searchByVector(vectorFor(query), model, 5, { principal: everyone })
      .map((result) => ({ docId: result.chunk.docId, score: Math.round(result.score * 1e5) / 1e5 })),
  );
}

/** A store of `count` one-chunk documents `d0`…, closed once its graph is ready (which saves it). */
async function savedStore(count: number): Promise<{ path: string; before: { docId: string; score: number }[][] }> {
  const path = join(newDirectory(), "org-a.sqlite");
  const store = open(path);
  store.upsert(
    Array.from({ length: count }, (_, index) => documentWith(`d${index}`, index)),
    model,
  );
  await untilReady(store);
  const before = answers(store, [3, 77, 150]);
  close(store);
  return { path, before };
}

const queries = [3, 77, 150];

describe("saved HNSW graph", () => {
  it("is written when the graph is ready and loaded on reopening instead of a rebuild, with the same results", async () => {
    const { path, before } = await savedStore(200);
    const header = readSnapshotHeader(path);
    expect(header).toMatchObject({ format: 1, orgId: "org-a", vectors: 200, modelId: "snapshot-test", dimension, connectivity: 16 });
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    await untilReady(reopened);
    expect(messages).toContain("HNSW vector index loaded from its snapshot");
    // Nothing changed: the graph was not rebuilt, nor saved again.
    expect(messages).not.toContain("HNSW vector index saved");
    expect(readSnapshotHeader(path)?.name).toBe(header?.name);
    expect(answers(reopened, queries)).toEqual(before);
    expect(answers(reopened, queries)[0]?.[0]).toEqual({ docId: "d3", score: 1 });
  });

  it("keeps removed rows removed and adds rows written after it was saved, rows given a deleted row's id included", async () => {
    const { path } = await savedStore(200);
    // Another connection (an ingestion worker) writes while no graph is open.
    const writer = open(path, { inMemoryIndexes: false });
    writer.delete(["d77", "d199"]);
    // d199 held the highest row id: SQLite gives it again to the new document's chunk.
    writer.upsert([documentWith("n1", 1001), documentWith("n2", 1002)], model);
    writer.upsert([documentWith("d3", 503)], model);
    close(writer);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    await untilReady(reopened);
    expect(messages).toContain("HNSW vector index loaded from its snapshot");
    expect(messages).toContain("HNSW vector index saved");
    // 200 - 2 removed + 2 new; d3 replaced in place. The saved graph itself holds no removed row.
    expect(readSnapshotHeader(path)?.vectors).toBe(200);
    // d77, d199 (whose row id n1 took: replaced) and d3's old row.
    expect(readSnapshotHeader(path)?.removedSinceBuild).toBe(3);
    const saved = new HnswVectorIndex(dimension, hnsw);
    saved.load(`${path}.hnsw-${readSnapshotHeader(path)?.name}.usearch`);
    expect(saved.size).toBe(200);
    // Row ids from 1: d77 had row 78, d3 row 4 (its new chunk has 202).
    expect(saved.search(vectorFor(77), 1)[0]?.id).not.toBe(78);
    expect(saved.search(vectorFor(3), 1)[0]?.id).not.toBe(4);
    expect(saved.search(vectorFor(503), 1)[0]).toMatchObject({ id: 202 });
    const top = (query: number) => reopened.searchByVector(vectorFor(query), model, 3, { principal: everyone });
    expect(top(77).map((result) => result.chunk.docId)).not.toContain("d77");
    expect(top(199).map((result) => result.chunk.docId)).not.toContain("d199");
    expect(top(1001)[0]?.chunk.docId).toBe("n1");
    expect(top(1001)[0]?.score).toBeCloseTo(1, 4);
    expect(top(1002)[0]?.chunk.docId).toBe("n2");
    expect(top(1002)[0]?.score).toBeCloseTo(1, 4);
    expect(top(503)[0]).toMatchObject({ chunk: { docId: "d3" } });
    expect(top(503)[0]?.score).toBeCloseTo(1, 4);
    expect(top(3).map((result) => result.chunk.docId)).not.toContain("d3");

    // A third opening loads the graph saved by the second, unchanged.
    close(reopened);
    const third = recordingLogger();
    const again = open(path, { logger: third.logger });
    await untilReady(again);
    expect(third.messages).toContain("HNSW vector index loaded from its snapshot");
    expect(third.messages).not.toContain("HNSW vector index saved");
    expect(again.searchByVector(vectorFor(1001), model, 1, { principal: everyone })[0]?.chunk.docId).toBe("n1");
  });

  it("saves changes applied while serving when the store closes", async () => {
    const { path } = await savedStore(100);
    const store = open(path);
    await untilReady(store);
    store.delete(["d10"]);
    store.upsert([documentWith("late", 2000)], model);
    close(store);
    expect(readSnapshotHeader(path)?.vectors).toBe(100);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    await untilReady(reopened);
    expect(messages).toContain("HNSW vector index loaded from its snapshot");
    expect(messages).not.toContain("HNSW vector index saved");
    expect(reopened.searchByVector(vectorFor(2000), model, 1, { principal: everyone })[0]?.chunk.docId).toBe("late");
  });

  it.each([
    // Bytes in the middle (vectors, neighbour lists): usearch itself would load the file.
    ["damaged", (file: string) => damage(file, statSync(file).size / 2)],
    ["damaged at its start", (file: string) => damage(file, 0)],
    ["truncated", (file: string) => truncateSync(file, 100)],
    ["missing", (file: string) => rmSync(file)],
  ])("is ignored and rebuilt when its graph file is %s", async (_kind, spoil) => {
    const { path, before } = await savedStore(200);
    const name = readSnapshotHeader(path)?.name as string;
    spoil(`${path}.hnsw-${name}.usearch`);
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    await untilReady(reopened);
    expect(messages).not.toContain("HNSW vector index loaded from its snapshot");
    expect(messages).toContain("HNSW vector index saved");
    expect(readSnapshotHeader(path)?.name).not.toBe(name);
    expect(answers(reopened, queries)).toEqual(before);
  });

  it("is rebuilt instead of loaded once too many of its vectors were removed since it was built", async () => {
    const { path, before } = await savedStore(200);
    expect(readSnapshotHeader(path)?.removedSinceBuild).toBe(0);
    const header = readSnapshotHeader(path) as Record<string, unknown>;
    writeFileSync(`${path}.hnsw.json`, JSON.stringify({ ...header, removedSinceBuild: 61 }));
    const { logger, messages } = recordingLogger();
    const reopened = open(path, { logger });
    await untilReady(reopened);
    expect(messages).toContain("the saved HNSW graph has had too many vectors removed: rebuilding it");
    expect(messages).not.toContain("HNSW vector index loaded from its snapshot");
    expect(readSnapshotHeader(path)?.removedSinceBuild).toBe(0);
    expect(answers(reopened, queries)).toEqual(before);
  });

  it("is ignored when its header is damaged, or belongs to another file of the same name", async () => {
    const { path } = await savedStore(200);
    writeFileSync(`${path}.hnsw.json`, readFileSync(`${path}.hnsw.json`, "utf8").slice(0, 40));
    const first = recordingLogger();
    const reopened = open(path, { logger: first.logger });
    await untilReady(reopened);
    expect(first.messages).not.toContain("HNSW vector index loaded from its snapshot");
    close(reopened);

    // The organisation's file deleted and written again, rows under the same ids holding other vectors.
    const saved = readSnapshotHeader(path);
    for (const file of readdirSync(join(path, "..")))
      if (file.startsWith("org-a.sqlite") && !file.includes(".hnsw")) rmSync(join(path, "..", file));
    const rewritten = open(path);
    rewritten.upsert(
      Array.from({ length: 200 }, (_, index) => documentWith(`e${index}`, 5000 + index)),
      model,
    );
    close(rewritten);
    expect(readSnapshotHeader(path)?.name).toBe(saved?.name);
    const second = recordingLogger();
    const fresh = open(path, { logger: second.logger });
    await untilReady(fresh);
    expect(second.messages).not.toContain("HNSW vector index loaded from its snapshot");
    const found = fresh.searchByVector(vectorFor(5007), model, 1, { principal: everyone })[0];
    expect(found?.chunk.docId).toBe("e7");
    expect(found?.score).toBeCloseTo(1, 4);
  });
});

describe("embedded store close", () => {
  it("resolves once the save of a graph that just became ready has written its files", async () => {
    const dataDir = newDirectory();
    const store = createEmbeddedStore({ dataDir, vectorIndex: { mode: "auto", minVectors: 50, hnsw } });
    await store.upsert(
      "org-a",
      Array.from({ length: 100 }, (_, index) => documentWith(`d${index}`, index)),
      { embeddingModel: model },
    );
    await store.searchByVector("org-a", vectorFor(0), model, { topK: 1, filter: {} });
    for (let attempt = 0; attempt < 2000 && (await store.vectorIndexStatus("org-a")).approximate !== "ready"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await store.close();
    const database = join(dataDir, readdirSync(dataDir).find((file) => file.endsWith(".sqlite")) as string);
    expect(readSnapshotHeader(database)).toMatchObject({ orgId: "org-a", vectors: 100 });
  });
});

describe("HnswSnapshotFiles", () => {
  const coverage = { storeId: "s", orgId: "o", generation: 0, modelId: "m", dimension, connectivity: 16, change: 3 };

  function graphOf(keys: readonly number[]): HnswVectorIndex {
    const graph = new HnswVectorIndex(dimension, hnsw);
    for (const key of keys) graph.add([key], vectorFor(key));
    return graph;
  }

  it("writes atomically: a new snapshot replaces the old one's files, and leftovers of a crash are ignored and removed", async () => {
    const directory = newDirectory();
    const files = new HnswSnapshotFiles(join(directory, "org.sqlite"));
    await files.write(graphOf([5, 2, 9]), Float64Array.of(5, 2, 9), coverage);
    const snapshot = await files.read(() => true);
    expect(Array.from(snapshot?.keys ?? [])).toEqual([2, 5, 9]);
    expect(snapshot?.coverage).toEqual(coverage);
    // A crash during a later save leaves temporary files only.
    writeFileSync(join(directory, "org.sqlite.hnsw-0123.usearch.tmp"), "partial");
    writeFileSync(join(directory, "org.sqlite.hnsw.json.0123.tmp"), "{");
    expect(Array.from((await files.read(() => true))?.keys ?? [])).toEqual([2, 5, 9]);
    files.writeNow(graphOf([1, 4]), Float64Array.of(4, 1), { ...coverage, change: 8 });
    expect((await files.read(() => true))?.coverage.change).toBe(8);
    expect(readdirSync(directory).sort()).toEqual(
      [
        `org.sqlite.hnsw-${readSnapshotHeader(join(directory, "org.sqlite"))?.name}.keys`,
        `org.sqlite.hnsw-${readSnapshotHeader(join(directory, "org.sqlite"))?.name}.usearch`,
        "org.sqlite.hnsw.json",
      ].sort(),
    );
    expect(await files.read((saved) => saved.change === 3)).toBeUndefined();
    files.remove();
    expect(readdirSync(directory)).toEqual([]);
    expect(await files.read(() => true)).toBeUndefined();
  });
});
