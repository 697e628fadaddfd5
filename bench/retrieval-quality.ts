/**
 * Retrieval quality on BEIR SciFact (../shared/data/ir/scifact, 300 test queries), all in one run:
 *
 * - BM25 alone, RAPTOR off and on (no model needed);
 * - with a local embedding model (see `local-model.ts`): vector alone, hybrid with min-max and
 *   z-score normalisation, reciprocal rank fusion, hybrid with RAPTOR, and a sweep of the fusion
 *   weight (WEIGHT_VECTOR from 0 to 1, WEIGHT_BM25 = 1 − WEIGHT_VECTOR) for both normalisations;
 * - HNSW recall@10 against exact search on the same real embeddings.
 *
 * Chunk embeddings are cached across the runs (LangChain's `CacheBackedEmbeddings`), so each
 * abstract is embedded once. The sweep is also written to `bench/results/scifact-sweep.json`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type RagService } from "@docqa/core";
import { type BeirDataset, type EvaluateRetrievalOptions, evaluateRetrieval, loadBeirDataset } from "@docqa/core/evaluation";
import { ExactVectorIndex, HnswVectorIndex } from "@docqa/core/stores";
import { sharedDataPath } from "@docqa/core/testing";
import { CacheBackedEmbeddings } from "@langchain/classic/embeddings/cache_backed";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { InMemoryStore } from "@langchain/core/stores";
import { benchmarkModel, loadEmbeddings } from "./local-model.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const root = join(import.meta.dirname, "..");

function newService(useRaptor: boolean, embeddings: EmbeddingsInterface | null, modelId?: string, dimension?: number): RagService {
  return createRagService({
    config: {
      stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")) },
      logging: { level: "silent" },
      ingestion: { useRaptor },
      embeddings: { provider: embeddings ? "transformers" : "none", ...(dimension ? { dimension } : {}) },
    },
    embeddings,
    embeddingModelId: modelId,
  });
}

/** Runs the SciFact evaluation; empty when the data set is absent. */
export async function benchmarkRetrievalQuality(): Promise<BenchmarkRow[]> {
  const folder = sharedDataPath("ir", "scifact");
  if (!folder) {
    console.log("retrieval quality benchmark skipped: ../shared/data/ir/scifact is absent");
    return [];
  }
  const dataset = await loadBeirDataset(folder);
  const rows: BenchmarkRow[] = [];
  const evaluate = (service: RagService, options: EvaluateRetrievalOptions) => evaluateRetrieval(service, dataset, options);

  // BM25 alone, with and without RAPTOR.
  const bm25Results = [];
  for (const useRaptor of [false, true]) {
    const service = newService(useRaptor, null);
    bm25Results.push(await evaluate(service, {}));
    await service.close();
  }
  const [bm25, bm25Raptor] = bm25Results as [Awaited<ReturnType<typeof evaluateRetrieval>>, Awaited<ReturnType<typeof evaluateRetrieval>>];
  rows.push({
    benchmark: "SciFact nDCG@10 (300 queries)",
    configuration: "BM25 only, RAPTOR on vs off",
    figures: { "nDCG@10 RAPTOR on": bm25Raptor.ndcgAt10, "recall@100 on": bm25Raptor.recallAt100, "recall@100 off": bm25.recallAt100 },
    baseline: { name: "nDCG@10 RAPTOR off (published BM25: Pyserini 0.679, Elasticsearch 0.690)", value: bm25.ndcgAt10 },
    ratio: bm25Raptor.ndcgAt10 / bm25.ndcgAt10,
  });

  const model = benchmarkModel("SciFact quality");
  if (!model) return rows;
  const embeddings = Object.assign(
    CacheBackedEmbeddings.fromBytesStore(await loadEmbeddings(model), new InMemoryStore<Uint8Array>(), { namespace: model.id }),
    {
      model: model.id,
    },
  );
  const hybrid = newService(false, embeddings, model.id, model.dimension);
  const vectorOnly = await evaluate(hybrid, { retrieval: { weightVector: 1, weightBm25: 0 } });
  const bm25Only = await evaluate(hybrid, { skipIngestion: true, retrieval: { weightVector: 0, weightBm25: 1 } });
  const best = Math.max(vectorOnly.ndcgAt10, bm25Only.ndcgAt10);
  const variants: [string, EvaluateRetrievalOptions["retrieval"]][] = [
    ["hybrid, min-max, 0.5/0.5", { weightVector: 0.5, weightBm25: 0.5, normalization: "min-max" }],
    ["hybrid, z-score, 0.5/0.5", { weightVector: 0.5, weightBm25: 0.5, normalization: "z-score" }],
    [
      "hybrid, min-max, 0.5/0.5, 1,000 candidates per retriever",
      { weightVector: 0.5, weightBm25: 0.5, normalization: "min-max", vectorTopK: 1000, bm25TopK: 1000 },
    ],
    ["reciprocal rank fusion, 0.5/0.5", { weightVector: 0.5, weightBm25: 0.5, fusion: "rrf" }],
  ];
  rows.push({
    benchmark: "SciFact nDCG@10 (300 queries)",
    configuration: `vector only, ${model.id}`,
    figures: { "nDCG@10": vectorOnly.ndcgAt10, "recall@100": vectorOnly.recallAt100 },
    baseline: { name: "BM25 only nDCG@10", value: bm25Only.ndcgAt10 },
    ratio: vectorOnly.ndcgAt10 / bm25Only.ndcgAt10,
  });
  for (const [name, retrieval] of variants) {
    const result = await evaluate(hybrid, { skipIngestion: true, retrieval });
    rows.push({
      benchmark: "SciFact nDCG@10 (300 queries)",
      configuration: `${name}, ${model.id} (ratio: against max(BM25, vector))`,
      figures: { "nDCG@10": result.ndcgAt10, "recall@100": result.recallAt100, "gain over max": result.ndcgAt10 - best },
      baseline: { name: "max(BM25 only, vector only) nDCG@10", value: best },
      ratio: result.ndcgAt10 / best,
    });
  }

  // The weight sweep, for both normalisations.
  const sweep: { normalization: string; weightVector: number; ndcgAt10: number; recallAt100: number }[] = [];
  for (const normalization of ["min-max", "z-score"] as const) {
    for (let step = 0; step <= 10; step++) {
      const weightVector = step / 10;
      const result = await evaluate(hybrid, {
        skipIngestion: true,
        retrieval: { weightVector, weightBm25: 1 - weightVector, normalization },
      });
      sweep.push({ normalization, weightVector, ndcgAt10: result.ndcgAt10, recallAt100: result.recallAt100 });
    }
  }
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  writeFileSync(join(root, "bench", "results", "scifact-sweep.json"), `${JSON.stringify({ model: model.id, sweep }, null, 2)}\n`);
  console.log(`\nSciFact fusion weight sweep (${model.id}); nDCG@10 by WEIGHT_VECTOR (WEIGHT_BM25 = 1 - WEIGHT_VECTOR):`);
  console.log(
    `| WEIGHT_VECTOR | ${sweep
      .filter((entry) => entry.normalization === "min-max")
      .map((entry) => entry.weightVector.toFixed(1))
      .join(" | ")} |`,
  );
  console.log(
    `|---|${sweep
      .filter((entry) => entry.normalization === "min-max")
      .map(() => "---")
      .join("|")}|`,
  );
  for (const normalization of ["min-max", "z-score"]) {
    console.log(
      `| ${normalization} | ${sweep
        .filter((entry) => entry.normalization === normalization)
        .map((entry) => entry.ndcgAt10.toFixed(4))
        .join(" | ")} |`,
    );
  }
  console.log("");
  await hybrid.close();

  const raptorService = newService(true, embeddings, model.id, model.dimension);
  const raptor = await evaluate(raptorService, {});
  await raptorService.close();
  const hybridDefault = sweep.find((entry) => entry.normalization === "min-max" && entry.weightVector === 0.5) as (typeof sweep)[number];
  rows.push({
    benchmark: "SciFact nDCG@10 (300 queries)",
    configuration: `hybrid 0.5/0.5 min-max, ${model.id}, RAPTOR on vs off`,
    figures: { "nDCG@10 RAPTOR on": raptor.ndcgAt10, "recall@100 on": raptor.recallAt100 },
    baseline: { name: "nDCG@10 RAPTOR off", value: hybridDefault.ndcgAt10 },
    ratio: raptor.ndcgAt10 / hybridDefault.ndcgAt10,
  });
  rows.push(await hnswRecall(dataset, embeddings, model.id, model.dimension));
  return rows;
}

/** HNSW recall@10 against exact search on the real SciFact embeddings (cached from the runs above). */
async function hnswRecall(
  dataset: BeirDataset,
  embeddings: EmbeddingsInterface,
  modelId: string,
  dimension: number,
): Promise<BenchmarkRow> {
  const vectors = await embeddings.embedDocuments(
    dataset.corpus.map((document) => (document.title ? `${document.title}\n${document.text}` : document.text)),
  );
  const exact = new ExactVectorIndex(dimension, vectors.length);
  const graph = new HnswVectorIndex(dimension, { connectivity: 16, expansionAdd: 128, expansionSearch: 64 });
  const block = new Float32Array(vectors.length * dimension);
  vectors.forEach((vector, slot) => {
    exact.set(slot, Float32Array.from(vector));
    block.set(exact.vectorAt(slot) as Float32Array, slot * dimension);
  });
  graph.add(
    vectors.map((_, slot) => slot),
    block,
  );
  const queries = await Promise.all(dataset.queries.map((query) => embeddings.embedQuery(query.text)));
  let overlap = 0;
  const exactTimes: number[] = [];
  const graphTimes: number[] = [];
  for (const query of queries) {
    const vector = Float32Array.from(query);
    let started = performance.now();
    const truth = new Set(exact.search(vector, 10).map((result) => result.id));
    exactTimes.push(performance.now() - started);
    started = performance.now();
    const found = graph.search(vector, 64).slice(0, 10);
    graphTimes.push(performance.now() - started);
    overlap += found.filter((result) => truth.has(result.id)).length;
  }
  return {
    benchmark: `HNSW (M 16, ef 64) recall@10 against exact search, SciFact ${vectors.length} real embeddings`,
    configuration: modelId,
    figures: { "recall@10": overlap / (10 * queries.length), "HNSW p50 ms": percentile(graphTimes, 50) },
    baseline: { name: "exact p50 ms", value: percentile(exactTimes, 50) },
    ratio: percentile(exactTimes, 50) / percentile(graphTimes, 50),
  };
}
