import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import { silentLogger } from "../logging/logger.js";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { createEmbeddedStore, type EmbeddedStore, type EmbeddedStoreSettings } from "./embedded-store.js";
import { OrganisationStore } from "./organisation-store.js";

const model = { id: "test-model", dimension: 3 };
const packageRoot = fileURLToPath(new URL("../..", import.meta.url));
const fixture = join(packageRoot, "test-fixtures", "open-organisations.mjs");
const built = existsSync(join(packageRoot, "dist", "index.js"));
const everyone = "|user:_all_|";
const reader: Principal = { userName: "reader@example.org", roles: [], groups: [] };

function documentVersion(
  docId: string,
  texts: string[],
  options: { acl?: string; owner?: string; vectors?: number[][]; tag?: string } = {},
): DocumentVersion {
  const contentHash = `${docId}-${options.tag ?? "v1"}`;
  const chunks: ChunkRecord[] = texts.map((text, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: `Title of ${docId}`,
    source: "test",
    ownerId: options.owner ?? "owner@example.org",
    acl: options.acl ?? everyone,
    metadata: { doc_id: docId, chunk_index: chunkIndex, type: docId.endsWith(".md") ? "md" : "txt", created_at: "2024-05-01T00:00:00Z" },
    contentHash,
    embedding: options.vectors?.[chunkIndex] ? Float32Array.from(options.vectors[chunkIndex] as number[]) : undefined,
  }));
  return { docId, contentHash, chunks };
}

const temporaryDirectories: string[] = [];
const stores: EmbeddedStore[] = [];
function newStore(dataDir?: string, settings: Omit<EmbeddedStoreSettings, "dataDir"> = {}): EmbeddedStore {
  const directory = dataDir ?? mkdtempSync(join(tmpdir(), "docqa-store-"));
  temporaryDirectories.push(directory);
  const store = createEmbeddedStore({ dataDir: directory, ...settings });
  stores.push(store);
  return store;
}

/** Counts the turns of the event loop (setImmediate callbacks) while `work` runs; `during` runs in the first ones. */
async function eventLoopTurns(work: () => Promise<unknown>, during: ((turn: number) => Promise<void> | void) | undefined = undefined) {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    void during?.(turns);
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe("embedded store", () => {
  it("upgrades a schema version 1 file in place: document records filled from the chunks", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-store-"));
    const first = newStore(directory);
    await first.upsert("org-a", [
      documentVersion("notes.md", ["one", "two", "three"], { owner: "ann@example.org", acl: "|group:eng|" }),
      documentVersion("plain", ["only"]),
    ]);
    await first.close();
    const [file] = readdirSync(directory).filter((name) => name.endsWith(".sqlite"));
    const raw = new DatabaseSync(join(directory, file as string));
    for (const column of ["title", "source", "type", "owner_id", "acl", "text_hash", "chunk_count"])
      raw.exec(`ALTER TABLE documents DROP COLUMN ${column}`);
    raw.exec("UPDATE store_info SET value = '1' WHERE key = 'schema_version'");
    raw.close();
    const reopened = newStore(directory);
    const records = await reopened.describeDocuments("org-a", ["notes.md", "plain"]);
    expect({ ...records.get("notes.md"), updatedAt: "" }).toEqual({
      docId: "notes.md",
      contentHash: "notes.md-v1",
      derivedFrom: [],
      title: "Title of notes.md",
      source: "test",
      type: "md",
      ownerId: "ann@example.org",
      acl: "|group:eng|",
      textHash: "",
      chunkCount: 3,
      updatedAt: "",
    });
    expect(records.get("plain")).toMatchObject({ type: "txt", chunkCount: 1, ownerId: "owner@example.org", acl: everyone });
    const check = new DatabaseSync(join(directory, file as string));
    expect(check.prepare("SELECT value FROM store_info WHERE key = 'schema_version'").get()).toEqual({ value: "2" });
    check.close();
  });

  it("finds what was written with BM25 and vectors, and persists across reopening", async () => {
    const store = newStore();
    await store.upsert(
      "org-a",
      [
        documentVersion("cats", ["Cats purr and sleep all day."], { vectors: [[1, 0, 0]] }),
        documentVersion("dogs", ["Dogs bark at the postman."], { vectors: [[0, 1, 0]] }),
      ],
      { embeddingModel: model },
    );
    const keyword = await store.searchByText("org-a", "barking dog", { topK: 5, filter: { principal: reader } });
    expect(keyword.map((result) => result.chunk.docId)).toEqual(["dogs"]);
    expect(keyword[0]?.score).toBeGreaterThan(0);
    const vector = await store.searchByVector("org-a", Float32Array.from([0.9, 0.1, 0]), model, { topK: 2, filter: { principal: reader } });
    expect(vector.map((result) => result.chunk.docId)).toEqual(["cats", "dogs"]);
    expect(vector[0]?.score).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 5);

    await store.close();
    const reopened = newStore(store.dataDir);
    expect(await reopened.count("org-a")).toBe(2);
    const again = await reopened.searchByText("org-a", "cats", { topK: 5, filter: { principal: reader } });
    expect(again[0]?.chunk).toMatchObject({ docId: "cats", text: "Cats purr and sleep all day.", title: "Title of cats", acl: everyone });
    const vectorAgain = await reopened.searchByVector("org-a", Float32Array.from([0, 1, 0]), model, {
      topK: 1,
      filter: { principal: reader },
    });
    expect(vectorAgain[0]?.chunk.docId).toBe("dogs");
  });

  it("replaces every chunk of a document on upsert, and deletes", async () => {
    const store = newStore();
    await store.upsert("org-a", [documentVersion("doc", ["alpha one", "alpha two", "alpha three"])]);
    expect(await store.count("org-a")).toBe(3);
    await store.upsert("org-a", [documentVersion("doc", ["beta only"], { tag: "v2" })]);
    expect(await store.count("org-a")).toBe(1);
    expect(await store.searchByText("org-a", "alpha", { topK: 5, filter: {} })).toEqual([]);
    expect((await store.searchByText("org-a", "beta", { topK: 5, filter: {} }))[0]?.chunk.contentHash).toBe("doc-v2");
    expect(await store.contentHashes("org-a", ["doc", "missing"])).toEqual(new Map([["doc", "doc-v2"]]));
    await store.delete("org-a", ["doc", "missing"]);
    expect(await store.count("org-a")).toBe(0);
    expect(await store.contentHashes("org-a", ["doc"])).toEqual(new Map());
  });

  it("isolates organisations in separate files and queries", async () => {
    const store = newStore();
    await store.upsert("org-a", [documentVersion("secret", ["the launch code is pineapple"])]);
    await store.upsert("org-b", [documentVersion("public", ["bananas are yellow"])]);
    expect(await store.searchByText("org-b", "pineapple launch code", { topK: 5, filter: {} })).toEqual([]);
    expect(await store.count("org-b")).toBe(1);
    expect(readdirSync(store.dataDir).filter((name) => name.endsWith(".sqlite"))).toHaveLength(2);
  });

  it("filters by principal before scoring, so top-k is filled with readable chunks", async () => {
    const store = newStore();
    const documents: DocumentVersion[] = [];
    for (let index = 0; index < 1000; index++) {
      const readable = index % 200 === 7;
      documents.push(
        documentVersion(`doc-${index}`, [`quarterly policy report number ${index}${readable ? "" : " policy policy"}`], {
          acl: readable ? "|user:reader@example.org|" : "|user:someone@example.org|",
        }),
      );
    }
    await store.upsert("org-a", documents);
    const results = await store.searchByText("org-a", "policy report", { topK: 8, filter: { principal: reader } });
    expect(results.map((result) => result.chunk.docId).sort()).toEqual(["doc-207", "doc-407", "doc-607", "doc-7", "doc-807"]);
    const unfiltered = await store.searchByText("org-a", "policy report", { topK: 8, filter: {} });
    expect(unfiltered.some((result) => result.chunk.acl.includes("reader@"))).toBe(false);
  });

  it("applies metadata conditions and document filters", async () => {
    const store = newStore();
    await store.upsert("org-a", [documentVersion("a.md", ["shared words here"]), documentVersion("b.txt", ["shared words there"])]);
    const markdown = await store.searchByText("org-a", "shared words", {
      topK: 5,
      filter: { metadata: [{ key: "type", op: "eq", value: "md" }] },
    });
    expect(markdown.map((result) => result.chunk.docId)).toEqual(["a.md"]);
    const byDocument = await store.searchByText("org-a", "shared words", { topK: 5, filter: { docIds: ["b.txt"] } });
    expect(byDocument.map((result) => result.chunk.docId)).toEqual(["b.txt"]);
    const dated = await store.searchByText("org-a", "shared", {
      topK: 5,
      filter: { metadata: [{ key: "created_at", op: "gte", value: "2025-01-01" }] },
    });
    expect(dated).toEqual([]);
  });

  it("applies a metadata filter without a principal after a document was replaced (its old slots are empty)", async () => {
    const store = newStore();
    await store.upsert("org-a", [documentVersion("a.md", ["shared words here"]), documentVersion("b.md", ["shared words there"])]);
    await store.upsert("org-a", [documentVersion("a.md", ["shared words, second version"], { tag: "v2" })]);
    const markdown = await store.searchByText("org-a", "shared words", {
      topK: 5,
      filter: { metadata: [{ key: "type", op: "eq", value: "md" }] },
    });
    expect(markdown.map((result) => result.chunk.text).sort()).toEqual(["shared words there", "shared words, second version"]);
  });

  it("sees writes of another instance on the same data directory", async () => {
    const writer = newStore();
    const reader2 = newStore(writer.dataDir);
    expect(await reader2.count("org-a")).toBe(0);
    await writer.upsert("org-a", [documentVersion("late", ["written by another process"])]);
    const results = await reader2.searchByText("org-a", "another process", { topK: 5, filter: {} });
    expect(results.map((result) => result.chunk.docId)).toEqual(["late"]);
    await writer.delete("org-a", ["late"]);
    expect(await reader2.searchByText("org-a", "another process", { topK: 5, filter: {} })).toEqual([]);
  });

  it("a store without in-memory indexes writes for one that serves: its writes appear there, and it cannot search", async () => {
    const serving = newStore();
    const writer = newStore(serving.dataDir, { inMemoryIndexes: false });
    await writer.upsert("org-a", [documentVersion("w", ["written by a worker thread"], { vectors: [[0, 0, 1]] })], {
      embeddingModel: model,
    });
    expect(await writer.contentHashes("org-a", ["w"])).toEqual(new Map([["w", "w-v1"]]));
    await expect(writer.searchByText("org-a", "worker", { topK: 5, filter: {} })).rejects.toThrow(/without in-memory indexes/);
    await serving.refresh("org-a");
    expect((await serving.searchByText("org-a", "worker thread", { topK: 5, filter: {} })).map((result) => result.chunk.docId)).toEqual([
      "w",
    ]);
    expect(
      (await serving.searchByVector("org-a", Float32Array.from([0, 0, 1]), model, { topK: 1, filter: {} })).map(
        (result) => result.chunk.id,
      ),
    ).toEqual(["w::0"]);
  });

  it("rebuilds its indexes, a slice at a time, when another connection switched the vectors to another model (a reindex)", async () => {
    const serving = newStore(undefined, { refreshSliceMs: 0 });
    const other = newStore(serving.dataDir);
    const modelB = { id: "test-model-b", dimension: 2 };
    const docs = Array.from({ length: 20 }, (_, index) =>
      documentVersion(`doc-${index}`, [`switch text ${index}`], { vectors: [[1, 0, index === 7 ? 1 : 0]] }),
    );
    await serving.upsert("org-a", docs, { embeddingModel: model });
    expect(await serving.count("org-a")).toBe(20);
    // A write-only connection (an ingestion worker), open before the switch.
    const worker = newStore(serving.dataDir, { inMemoryIndexes: false });
    expect((await worker.contentHashes("org-a", ["doc-0"])).size).toBe(1);
    // Another process reindexes to model B and switches.
    const now = new Date().toISOString();
    const target = await other.beginReindex("org-a", {
      jobId: "job-1",
      orgId: "org-a",
      model: modelB,
      fromModel: model,
      state: "running",
      total: 20,
      processed: 0,
      startedAt: now,
      updatedAt: now,
    });
    for (let chunks = await target.pending(8, undefined); chunks.length > 0; chunks = await target.pending(8, undefined)) {
      await target.write(chunks.map((chunk) => ({ ...chunk, embedding: Float32Array.from(chunk.docId === "doc-7" ? [0, 1] : [1, 0]) })));
    }
    expect(await target.activate()).toBe(true);
    // The serving store follows at once: its model, then its indexes, rebuilt with the event loop running.
    expect(await serving.vectorModel("org-a")).toEqual(modelB);
    const turns = await eventLoopTurns(() => serving.refresh("org-a"));
    expect(turns).toBeGreaterThanOrEqual(1);
    const results = await serving.searchByVector("org-a", Float32Array.from([0, 1]), modelB, { topK: 1, filter: {} });
    expect(results.map((result) => result.chunk.docId)).toEqual(["doc-7"]);
    const refused = await serving.searchByVector("org-a", Float32Array.from([1, 0, 0]), model, { topK: 1, filter: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(DocqaError.isInstance(refused) && refused.code).toBe("embedding_model_mismatch");
    // The write-only connection opened before the switch refuses vectors of the old model.
    const stale = await worker
      .upsert("org-a", [documentVersion("late", ["late text"], { vectors: [[1, 0, 0]] })], { embeddingModel: model })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(DocqaError.isInstance(stale) && stale.code).toBe("embedding_model_mismatch");
    await worker.upsert("org-a", [documentVersion("late", ["late text"], { vectors: [[0, 1]] })], { embeddingModel: modelB });
    expect(await serving.count("org-a")).toBe(21);
  });

  it("refresh replays writes made elsewhere one document per step, letting the event loop run between steps", async () => {
    const serving = newStore(undefined, { refreshSliceMs: 0 });
    const writer = newStore(serving.dataDir, { inMemoryIndexes: false });
    const versions = (tag: string) =>
      Array.from({ length: 40 }, (_, index) => documentVersion(`doc-${index}`, [`${tag} text one`, `${tag} text two`], { tag }));
    await writer.upsert("org-a", versions("old"));
    expect(await serving.count("org-a")).toBe(80);
    await writer.upsert("org-a", versions("new"));
    const turns = await eventLoopTurns(() => serving.refresh("org-a"));
    // 40 documents replaced, one per step: the loop ran between them.
    expect(turns).toBeGreaterThanOrEqual(39);
    const results = await serving.searchByText("org-a", "text", { topK: 100, filter: {} });
    expect(results).toHaveLength(80);
    expect(new Set(results.map((result) => result.chunk.contentHash.split("-").at(-1)))).toEqual(new Set(["new"]));
  });

  it("stages a large document in steps during a refresh: a search meanwhile sees it wholly old, then wholly new", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "docqa-store-")), "org.sqlite");
    const settings = {
      path,
      orgId: "org-a",
      analyzer: createEnglishAnalyzer(),
      bm25: { k1: 0.9, b: 0.4 },
      vectorIndex: { mode: "exact" as const, minVectors: 20_000, hnsw: { connectivity: 16, expansionAdd: 128, expansionSearch: 64 } },
      logger: silentLogger,
    };
    const serving = new OrganisationStore({ ...settings, refreshSliceMs: 0 });
    const writer = new OrganisationStore({ ...settings, inMemoryIndexes: false });
    const texts = (word: string) => Array.from({ length: 200 }, (_, index) => `${word} paragraph ${index}`);
    writer.upsert([documentVersion("manual", texts("alpha"), { tag: "v1" })], undefined);
    await serving.refresh();
    writer.upsert([documentVersion("manual", texts("omega"), { tag: "v2" })], undefined);
    const seen = new Set<string>();
    const turns = await eventLoopTurns(
      () => serving.refresh(),
      () => {
        const old = serving.searchByText("alpha", 500, {}).length;
        const current = serving.searchByText("omega", 500, {}).length;
        seen.add(`${old}/${current}/${serving.count()}`);
      },
    );
    expect(turns).toBeGreaterThanOrEqual(200 / 32);
    expect(seen).toEqual(new Set(["200/0/200", "0/200/200"]));
    expect(serving.searchByText("omega", 500, {})).toHaveLength(200);
    serving.close();
    writer.close();
  });

  it("builds its indexes in steps on first use, and a write committed meanwhile replaces the document wholly", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-store-"));
    const writer = newStore(directory, { inMemoryIndexes: false });
    await writer.upsert(
      "org-a",
      Array.from({ length: 300 }, (_, index) => documentVersion(`doc-${index}`, ["first version", "first again"], { tag: "v1" })),
    );
    const serving = newStore(directory, { refreshSliceMs: 0 });
    let rewritten = false;
    const turns = await eventLoopTurns(
      () => serving.refresh("org-a"),
      async (turn) => {
        // Between two pages of the load, the first document gets a new version with fewer chunks.
        if (turn === 1 && !rewritten) {
          rewritten = true;
          await writer.upsert("org-a", [documentVersion("doc-0", ["second version"], { tag: "v2" })]);
        }
      },
    );
    expect(rewritten).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(await serving.count("org-a")).toBe(599);
    const first = await serving.searchByText("org-a", "version", { topK: 1000, filter: { docIds: ["doc-0"] } });
    expect(first.map((result) => [result.chunk.id, result.chunk.contentHash])).toEqual([["doc-0::0", "doc-0-v2"]]);
  });

  it("refuses vectors of a different embedding model and leaves the store unchanged", async () => {
    const store = newStore();
    await store.upsert("org-a", [documentVersion("one", ["first"], { vectors: [[1, 0, 0]] })], { embeddingModel: model });
    const other = { id: "other-model", dimension: 3 };
    const write = store.upsert("org-a", [documentVersion("two", ["second"], { vectors: [[0, 1, 0]] })], { embeddingModel: other });
    await expect(write).rejects.toSatisfy((error: unknown) => DocqaError.isInstance(error) && error.code === "embedding_model_mismatch");
    await expect(store.searchByVector("org-a", Float32Array.from([1, 0, 0]), other, { topK: 1, filter: {} })).rejects.toThrow(
      /holds 3-dimensional vectors of test-model/,
    );
    expect(await store.count("org-a")).toBe(1);
  });

  it("handles unicode text and an empty organisation", async () => {
    const store = newStore();
    expect(await store.searchByText("empty-org", "anything", { topK: 5, filter: {} })).toEqual([]);
    await store.upsert("org-a", [documentVersion("unicode", ["Ünïcödé naïve café — 東京都の天気 😀"])]);
    expect((await store.searchByText("org-a", "東京", { topK: 5, filter: {} }))[0]?.chunk.text).toBe(
      "Ünïcödé naïve café — 東京都の天気 😀",
    );
    expect((await store.searchByText("org-a", "CAFÉ", { topK: 5, filter: {} }))[0]?.chunk.docId).toBe("unicode");
  });
});

describe("embedded store with an HNSW graph", () => {
  it("builds the graph in the background, agrees with exact search, and keeps filters exact", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-hnsw-"));
    const store = createEmbeddedStore({ dataDir: directory, vectorIndex: { mode: "hnsw" } });
    stores.push(store);
    const dimension = 16;
    const hnswModel = { id: "hnsw-test", dimension };
    const vectorFor = (index: number) => Float32Array.from({ length: dimension }, (_, d) => Math.sin((index + 1) * (d + 1)));
    const documents: DocumentVersion[] = Array.from({ length: 400 }, (_, index) => {
      const version = documentVersion(`v${index}`, [`vector document ${index}`], {
        acl: index < 4 ? "|user:reader@example.org|" : "|user:someone@example.org|",
        vectors: [Array.from(vectorFor(index))],
      });
      return version;
    });
    await store.upsert("org-a", documents, { embeddingModel: hnswModel });
    for (let attempt = 0; attempt < 200 && (await store.vectorIndexStatus("org-a")).approximate !== "ready"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await store.vectorIndexStatus("org-a")).toEqual({ vectors: 400, approximate: "ready" });
    const everyone = { userName: "someone@example.org", roles: [], groups: [] };
    const found = await store.searchByVector("org-a", vectorFor(123), hnswModel, { topK: 3, filter: { principal: everyone } });
    expect(found[0]?.chunk.docId).toBe("v123");
    expect(found[0]?.score).toBeCloseTo(1, 4);
    // 4 of 400 readable (1 %): the exact scan answers, so all four come back.
    const filtered = await store.searchByVector("org-a", vectorFor(200), hnswModel, { topK: 8, filter: { principal: reader } });
    expect(filtered.map((result) => result.chunk.docId).sort()).toEqual(["v0", "v1", "v2", "v3"]);
    await store.delete("org-a", ["v123"]);
    const afterDelete = await store.searchByVector("org-a", vectorFor(123), hnswModel, { topK: 3, filter: { principal: everyone } });
    expect(afterDelete.map((result) => result.chunk.docId)).not.toContain("v123");
  });
});

describe("embedded store: open files", () => {
  it("creates no file when an organisation without one is read", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-store-"));
    const store = newStore(dataDir);
    const principalFilter = { principal: reader };
    expect(await store.count("nobody")).toBe(0);
    expect(await store.searchByText("nobody", "anything", { topK: 5, filter: principalFilter })).toEqual([]);
    expect(await store.searchByVector("nobody", Float32Array.of(1, 0, 0), model, { topK: 5, filter: principalFilter })).toEqual([]);
    expect(await store.contentHashes("nobody", ["a"])).toEqual(new Map());
    expect(await store.derivedDocuments("nobody", ["a"])).toEqual([]);
    await store.delete("nobody", ["a"]);
    await store.upsert("nobody", [], { deleteDocIds: ["a"] });
    expect(readdirSync(dataDir)).toEqual([]);
    expect(store.openOrganisations()).toBe(0);
  });

  it("keeps at most maxOpenOrganisations files open and reopens the others with their data", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-store-"));
    temporaryDirectories.push(dataDir);
    const store = createEmbeddedStore({ dataDir, maxOpenOrganisations: 2 });
    stores.push(store);
    for (const orgId of ["org-1", "org-2", "org-3", "org-4"]) {
      await store.upsert(orgId, [documentVersion(`doc-${orgId}`, [`text of ${orgId} about lighthouses`], { vectors: [[1, 0, 0]] })], {
        embeddingModel: model,
      });
      expect(store.openOrganisations()).toBeLessThanOrEqual(2);
    }
    expect(readdirSync(dataDir).filter((name) => name.endsWith(".sqlite"))).toHaveLength(4);
    for (const orgId of ["org-1", "org-2", "org-3", "org-4"]) {
      const found = await store.searchByText(orgId, "lighthouses", { topK: 5, filter: { principal: reader } });
      expect(found.map((result) => result.chunk.docId)).toEqual([`doc-${orgId}`]);
      expect(store.openOrganisations()).toBeLessThanOrEqual(2);
    }
  });

  it("reports a file that is not a database as store_corrupt", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-store-"));
    const store = newStore(dataDir);
    await store.upsert("org-x", [documentVersion("a", ["alpha"])]);
    await store.close();
    const file = readdirSync(dataDir).find((name) => name.endsWith(".sqlite")) as string;
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name));
    writeFileSync(join(dataDir, file), "this is not a SQLite database ".repeat(200));
    const reopened = newStore(dataDir);
    const error = await reopened.count("org-x").catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_corrupt");
  });
});

describe.skipIf(!built && process.env.CI !== "true")("embedded store: descriptor limit (needs `npm run build`)", () => {
  const runChild = (organisations: number, maxOpen: number) => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-fds-"));
    temporaryDirectories.push(dataDir);
    // 64 descriptors: Node itself uses about 25; 40 organisations need 120 when all stay open.
    const output = execFileSync(
      "sh",
      ["-c", `ulimit -n 64 && exec "$0" "$@"`, process.execPath, fixture, dataDir, String(organisations), String(maxOpen)],
      {
        encoding: "utf8",
      },
    );
    return JSON.parse(output) as { written: number; read: number; open: number; failure?: { code: string; message: string } };
  };

  it("serves 40 organisations under a 64-descriptor limit with 8 open at most", () => {
    expect(runChild(40, 8)).toEqual({ written: 40, read: 40, open: 8 });
  });

  it("reports running out of descriptors as store_unavailable, never as corruption", () => {
    const result = runChild(40, 1000);
    expect(result.written).toBeLessThan(40);
    expect(result.failure?.code).toBe("store_unavailable");
    expect(result.failure?.message).toMatch(/run out of file descriptors \(EMFILE\).*MAX_OPEN_ORGANISATIONS/);
  });
});
