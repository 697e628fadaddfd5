/**
 * Speed of the embedded index against the hardware and against peers, in one run:
 *
 * - BM25 per-query latency at 10k and 100k chunks: docqa's embedded store (through its public
 *   API, including fetching the top results from SQLite) against SQLite FTS5 (`bm25()`, porter
 *   tokenizer, through `node:sqlite`) and MiniSearch, on the same chunks and the 300 SciFact test
 *   queries.
 * - Exact 384-dimension vector search at 10k, 100k and 1M vectors: docqa's index against the
 *   hardware floor (bytes scanned / this machine's single-thread read bandwidth, measured by a
 *   native read loop, `bench/read-bandwidth.ts`) and LangChain's `MemoryVectorStore` (10k and
 *   100k).
 * - The pre-LLM `/predict` path at 100k chunks (normalise, hybrid retrieve with ACL filtering,
 *   fuse, context), with the query embedding precomputed.
 * - The whole retrieval path at 20k chunks against LangChain's `BM25Retriever` plus
 *   `MemoryVectorStore` on the same chunks and vectors.
 * - The exact-scan kernel alone (`bench/scan-kernel.ts`, also `BENCH_ONLY=kernel`): the
 *   WebAssembly SIMD kernel against the read-bandwidth floor, plain JavaScript `Float32Array`
 *   loops and `usearch`'s `exactSearch`, at 100k x 384 (decision record 0004).
 *
 * Chunks are SciFact sentences recombined into ~800-character passages, so term statistics are
 * those of real text; vectors are clustered synthetic vectors ({@link clusteredVectors}): exact
 * search speed does not depend on their values, and approximate recall needs their structure.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createEmbeddedStore, createRagService, type EmbeddedStore } from "@docqa/core";
import { buildContext } from "@docqa/core/answering";
import { splitSentences } from "@docqa/core/retrieval";
import { type ChunkRecord, type DocumentVersion, ExactVectorIndex, HnswVectorIndex } from "@docqa/core/stores";
import { sharedDataPath } from "@docqa/core/testing";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { BM25Retriever } from "@langchain/community/retrievers/bm25";
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { readBandwidth } from "./read-bandwidth.ts";
import { benchmarkScanKernel } from "./scan-kernel.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";
import { clusteredVectors, dimension, random } from "./synthetic-vectors.ts";

const require = createRequire(import.meta.url);
const MiniSearch = require("minisearch") as typeof import("minisearch").default;

const model = { id: "bench-random-384", dimension };

function passages(sentences: readonly string[], count: number, next: () => number): string[] {
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    let text = "";
    while (text.length < 800) text += `${sentences[Math.floor(next() * sentences.length)]} `;
    texts.push(text.trim());
  }
  return texts;
}

async function timed(runs: number, work: (index: number) => unknown): Promise<number[]> {
  for (let index = 0; index < Math.min(20, runs); index++) await work(index);
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    await work(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * ACL of chunk `index`: every chunk is readable by group `staff`; groups `p10`, `p1`, `p01` and
 * `p001` can read 10 %, 1 %, 0.1 % and 0.01 % of the chunks.
 */
function aclOf(index: number): string {
  const groups = ["staff"];
  if (index % 10 === 0) groups.push("p10");
  if (index % 100 === 0) groups.push("p1");
  if (index % 1000 === 0) groups.push("p01");
  if (index % 10000 === 0) groups.push("p001");
  return `|${groups.map((group) => `group:${group}`).join("|")}|`;
}

async function fillStore(store: EmbeddedStore, texts: readonly string[], vectors: readonly Float32Array[] | undefined): Promise<void> {
  const batch = 5000;
  for (let start = 0; start < texts.length; start += batch) {
    const documents: DocumentVersion[] = texts.slice(start, start + batch).map((text, offset) => {
      const docId = `d${start + offset}`;
      const chunk: ChunkRecord = {
        id: `${docId}::0`,
        docId,
        chunkIndex: 0,
        text,
        title: "",
        source: "bench",
        ownerId: "owner@example.org",
        acl: aclOf(start + offset),
        metadata: {},
        contentHash: docId,
        embedding: vectors?.[start + offset],
      };
      return { docId, contentHash: docId, chunks: [chunk] };
    });
    await store.upsert("bench", documents, { embeddingModel: vectors ? model : undefined });
  }
}

class FixedEmbeddings extends Embeddings {
  private readonly vector: number[];
  constructor(vector: number[]) {
    super({});
    this.vector = vector;
  }
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map(() => this.vector);
  }
  override async embedQuery(): Promise<number[]> {
    return this.vector;
  }
}

/** Runs the index-speed benchmarks; empty when SciFact is absent. */
export async function benchmarkIndexSpeed(): Promise<BenchmarkRow[]> {
  const folder = sharedDataPath("ir", "scifact");
  if (!folder) {
    console.log("index speed benchmark skipped: ../shared/data/ir/scifact is absent");
    return [];
  }
  const lines = (name: string) => readFileSync(join(folder, name), "utf8").trim().split("\n");
  const sentences = lines("corpus.jsonl").flatMap((line) => splitSentences((JSON.parse(line) as { text: string }).text));
  const testIds = new Set(
    lines("qrels/test.tsv")
      .slice(1)
      .map((line) => line.split("\t")[0]),
  );
  const queries = lines("queries.jsonl")
    .map((line) => JSON.parse(line) as { _id: string; text: string })
    .filter((query) => testIds.has(query._id))
    .map((query) => query.text);
  const next = random(42);
  const rows: BenchmarkRow[] = [...(await benchmarkScanKernel())];
  // The benchmark's user reads every chunk through group "staff": searches pay for the ACL filter.
  const principal = { userName: "reader@example.org", roles: [], groups: ["staff"] };

  for (const size of [10_000, 100_000]) {
    const texts = passages(sentences, size, next);
    const store = createEmbeddedStore({ dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")) });
    await fillStore(store, texts, undefined);
    const ours = await timed(queries.length, (index) =>
      store.searchByText("bench", queries[index % queries.length] as string, { topK: 8, filter: { principal } }),
    );

    const database = new DatabaseSync(":memory:");
    database.exec("CREATE VIRTUAL TABLE chunks USING fts5(text, tokenize = 'porter unicode61')");
    const insert = database.prepare("INSERT INTO chunks (text) VALUES (?)");
    database.exec("BEGIN");
    for (const text of texts) insert.run(text);
    database.exec("COMMIT");
    const search = database.prepare("SELECT rowid, bm25(chunks) AS score FROM chunks WHERE chunks MATCH ? ORDER BY score LIMIT 8");
    const ftsQuery = (query: string) =>
      [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].map((term) => `"${term}"`).join(" OR ");
    const fts = await timed(queries.length, (index) => search.all(ftsQuery(queries[index % queries.length] as string)));
    database.close();

    const mini = new MiniSearch({ fields: ["text"], storeFields: [] });
    mini.addAll(texts.map((text, id) => ({ id, text })));
    const miniSearch = await timed(queries.length, (index) =>
      mini.search(queries[index % queries.length] as string, { combineWith: "OR" }).slice(0, 8),
    );

    const p50 = percentile(ours, 50);
    rows.push({
      benchmark: `BM25 top-8, ${size / 1000}k chunks, ACL-filtered`,
      configuration: "docqa embedded store",
      figures: { "p50 ms": p50, "p95 ms": percentile(ours, 95) },
      baseline: { name: `SQLite FTS5 p50 ms (p95 ${percentile(fts, 95).toFixed(2)})`, value: percentile(fts, 50) },
      ratio: percentile(fts, 50) / p50,
    });
    rows.push({
      benchmark: `BM25 top-8, ${size / 1000}k chunks, ACL-filtered`,
      configuration: "docqa embedded store",
      figures: { "p50 ms": p50 },
      baseline: { name: `MiniSearch p50 ms (p95 ${percentile(miniSearch, 95).toFixed(2)})`, value: percentile(miniSearch, 50) },
      ratio: percentile(miniSearch, 50) / p50,
    });
    await store.close();
  }

  const clustered = clusteredVectors(next);
  for (const size of [10_000, 100_000, 1_000_000]) {
    const index = new ExactVectorIndex(dimension, size);
    const stored: Float32Array[] = [];
    for (let slot = 0; slot < size; slot++) {
      const vector = clustered();
      index.set(slot, vector);
      if (size <= 100_000) stored.push(vector);
    }
    const queryVectors = Array.from({ length: 50 }, () => clustered());
    const bytes = size * dimension * 4;
    // The floor is measured right before the scan, on a buffer of the same size, so that both see the same machine load.
    const bandwidth = readBandwidth(bytes);
    const ours = await timed(50, (run) => index.search(queryVectors[run % 50] as Float32Array, 8));
    const p50 = percentile(ours, 50);
    const floor = bandwidth ? (bytes / bandwidth.bytesPerSecond) * 1000 : Number.NaN;
    rows.push({
      benchmark: `exact vector search top-8, ${size >= 1e6 ? `${size / 1e6}M` : `${size / 1000}k`} x ${dimension}-d`,
      configuration: `docqa (${index.accelerated ? "WebAssembly SIMD" : "JavaScript"})`,
      figures: {
        "p50 ms": p50,
        "p95 ms": percentile(ours, 95),
        "best ms": Math.min(...ours),
        "read GB/s": (bandwidth?.bytesPerSecond ?? Number.NaN) / 1e9,
      },
      baseline: { name: "read-bandwidth floor ms (bytes / single-thread read bandwidth, bench/memory-read-bandwidth.c)", value: floor },
      ratio: p50 / floor,
    });
    if (size === 100_000) {
      const graph = new HnswVectorIndex(dimension, { connectivity: 16, expansionAdd: 128, expansionSearch: 64 });
      const buildStarted = performance.now();
      for (let start = 0; start < size; start += 200) {
        const slots = Array.from({ length: Math.min(200, size - start) }, (_, offset) => start + offset);
        const block = new Float32Array(slots.length * dimension);
        slots.forEach((slot, row) => {
          block.set(stored[slot] as Float32Array, row * dimension);
        });
        graph.add(slots, block);
      }
      const buildSeconds = (performance.now() - buildStarted) / 1000;
      const approximate = await timed(50, (run) => graph.search(queryVectors[run % 50] as Float32Array, 64));
      let overlap = 0;
      for (const query of queryVectors) {
        const exact = new Set(index.search(query, 10).map((result) => result.id));
        overlap += graph
          .search(query, 64)
          .slice(0, 10)
          .filter((result) => exact.has(result.id)).length;
      }
      rows.push({
        benchmark: "approximate vector search (HNSW, usearch, M 16, ef 64), 100k x 384-d clustered vectors",
        configuration: `recall@10 against exact ${(overlap / (10 * queryVectors.length)).toFixed(3)}; build ${buildSeconds.toFixed(1)} s`,
        figures: { "p50 ms": percentile(approximate, 50), "p95 ms": percentile(approximate, 95) },
        baseline: { name: "exact p50 ms", value: p50 },
        ratio: p50 / percentile(approximate, 50),
      });
    }
    if (size <= 100_000) {
      const memory = new MemoryVectorStore(new FixedEmbeddings([]));
      memory.memoryVectors = stored.map((vector, slot) => ({ content: "", embedding: Array.from(vector), metadata: {}, id: String(slot) }));
      const runs = size >= 100_000 ? 10 : 30;
      const langchain = await timed(runs, (run) =>
        memory.similaritySearchVectorWithScore(Array.from(queryVectors[run % 50] as Float32Array), 8),
      );
      rows.push({
        benchmark: `exact vector search top-8, ${size / 1000}k x ${dimension}-d`,
        configuration: "docqa",
        figures: { "p50 ms": p50 },
        baseline: { name: "LangChain MemoryVectorStore p50 ms", value: percentile(langchain, 50) },
        ratio: percentile(langchain, 50) / p50,
      });
    }
  }

  // The pre-LLM path at 100k chunks (exact, then with an HNSW graph), ACL-filtered recall of the
  // HNSW store against the exact one, and the whole retrieval path at 20k against LangChain.
  const texts100k = passages(sentences, 100_000, next);
  const vectors100k = texts100k.map(() => clustered());
  const stores: Partial<Record<"exact" | "auto", EmbeddedStore>> = {};
  for (const [size, mode] of [
    [100_000, "exact"],
    [100_000, "auto"],
    [20_000, "exact"],
  ] as const) {
    const texts = size === 100_000 ? texts100k : passages(sentences, size, next);
    const vectors = size === 100_000 ? vectors100k : texts.map(() => clustered());
    const store = createEmbeddedStore({ dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")), vectorIndex: { mode } });
    await fillStore(store, texts, vectors);
    while (mode === "auto" && (await store.vectorIndexStatus("bench")).approximate !== "ready")
      await new Promise((resolve) => setTimeout(resolve, 100));
    const queryVector = Array.from(clustered());
    const embeddings = new FixedEmbeddings(queryVector);
    // The service's own search pipeline (normalise, plan, retrieve, access filter, rerank, top-k)
    // with its default retrieval settings, then the context: the pre-LLM part of /predict. The
    // spec's 8 + 8 candidates with z-score (the previous default) is the same-run baseline.
    const service = createRagService({
      config: { stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")) }, embeddings: { dimension }, logging: { level: "silent" } },
      stores: store,
      embeddings,
      embeddingModelId: model.id,
    });
    await service.ready();
    const defaults = service.config.retrieval;
    const specSettings = { fusionCandidates: 0, normalization: "z-score" as const };
    const path = async (query: string, retrieval?: typeof specSettings) => {
      const result = await service.search({ orgId: "bench", principal, query, retrieval });
      return buildContext(result.results, { maxDocChars: 4000, maxContextChars: 16000 });
    };
    // The 20k comparison with LangChain retrieves 8 + 8, as LangChain's retrievers below do.
    const ours = await timed(queries.length, (index) =>
      path(queries[index % queries.length] as string, size === 100_000 ? undefined : specSettings),
    );
    if (size === 100_000) {
      const spec = await timed(queries.length, (index) => path(queries[index % queries.length] as string, specSettings));
      rows.push({
        benchmark: "pre-LLM /predict path, 100k chunks (normalise, hybrid retrieve, ACL, fuse, context)",
        configuration: `docqa defaults (${defaults.scoreNormalization}, FUSION_CANDIDATES ${defaults.fusionCandidates}), VECTOR_INDEX=${mode === "auto" ? "auto (HNSW graph ready)" : "exact"}, query embedding precomputed`,
        figures: { "p50 ms": percentile(ours, 50), "p95 ms": percentile(ours, 95), "p99 ms": percentile(ours, 99) },
        baseline: { name: "8 + 8 candidates, z-score (previous default) p50 ms", value: percentile(spec, 50) },
        ratio: percentile(ours, 50) / percentile(spec, 50),
      });
      stores[mode] = store;
      continue;
    }
    const documents = texts.map((text, index) => new Document({ pageContent: text, metadata: { id: index } }));
    const bm25 = BM25Retriever.fromDocuments(documents, { k: 8 });
    const memory = new MemoryVectorStore(embeddings);
    memory.memoryVectors = documents.map((document, index) => ({
      content: document.pageContent,
      embedding: Array.from(vectors[index] as Float32Array),
      metadata: document.metadata,
      id: String(index),
    }));
    const langchain = await timed(20, async (index) => {
      const query = queries[index % queries.length] as string;
      await Promise.all([bm25.invoke(query), memory.similaritySearchVectorWithScore(queryVector, 8)]);
    });
    rows.push({
      benchmark: "whole retrieval path, 20k chunks (BM25 + vector + fusion)",
      configuration: "docqa",
      figures: { "p50 ms": percentile(ours, 50), "p95 ms": percentile(ours, 95) },
      baseline: { name: "LangChain BM25Retriever + MemoryVectorStore p50 ms", value: percentile(langchain, 50) },
      ratio: percentile(langchain, 50) / percentile(ours, 50),
    });
    await store.close();
  }

  const exactStore = stores.exact as EmbeddedStore;
  const graphStore = stores.auto as EmbeddedStore;
  const probes = Array.from({ length: 50 }, () => clustered());
  for (const [group, share] of [
    ["p10", "10 %"],
    ["p1", "1 %"],
    ["p01", "0.1 %"],
    ["p001", "0.01 %"],
  ] as const) {
    const filter = { principal: { userName: "selective@example.org", roles: [], groups: [group] } };
    let overlap = 0;
    let expected = 0;
    const times: number[] = [];
    for (const probe of probes) {
      const truth = new Set(
        (await exactStore.searchByVector("bench", probe, model, { topK: 10, filter })).map((result) => result.chunk.id),
      );
      const started = performance.now();
      const found = await graphStore.searchByVector("bench", probe, model, { topK: 10, filter });
      times.push(performance.now() - started);
      overlap += found.filter((result) => truth.has(result.chunk.id)).length;
      expected += truth.size;
    }
    rows.push({
      benchmark: `ACL-filtered vector top-10 at ${share} selectivity, 100k chunks (VECTOR_INDEX=auto)`,
      configuration: "recall@10 against exact filtered search",
      figures: { "recall@10": overlap / Math.max(1, expected), "p50 ms": percentile(times, 50) },
      baseline: { name: "exact filtered recall", value: 1 },
      ratio: overlap / Math.max(1, expected),
    });
  }
  await exactStore.close();
  await graphStore.close();
  return rows;
}
