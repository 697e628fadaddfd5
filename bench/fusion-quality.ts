/**
 * Fusion quality across data sets and embedding models, in one run (`BENCH_ONLY=fusion`): for
 * each local model (all-MiniLM-L6-v2, bge-small-en-v1.5 under ../shared/data/models) and each
 * BEIR-layout set (SciFact, and the SQuAD 2.0 and XQuAD retrieval views), the corpus is indexed
 * once, each query's vector and BM25 lists are retrieved 1,000 deep through the service, and
 * every fusion is computed from those lists with the service's own functions (`fuseWeighted`,
 * `fuseReciprocalRank`): weighted sum 0.5/0.5 with z-score or min-max normalisation, and
 * reciprocal rank fusion, at 8 to 1,000 candidates per retriever. A fusion over N candidates is
 * exactly what the service returns with `VECTOR_RETRIEVER_TOP_K` = `BM25_RETRIEVER_TOP_K` = N.
 *
 * Indexes persist in `bench/results/indexes/` (set `DOCQA_BENCH_INDEX_DIR` to move them), so a
 * second run embeds nothing. Results go to `bench/results/fusion-quality.json` and are printed as
 * a Markdown table of nDCG@10 per configuration, with the gain over the better single retriever.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRagService, type RagService } from "@docqa/core";
import { type BeirDataset, evaluateRetrieval, loadBeirDataset, meanMetrics, type RetrievalMetrics } from "@docqa/core/evaluation";
import { type FusedChunk, fuseReciprocalRank, fuseWeighted } from "@docqa/core/retrieval";
import type { ScoredChunk } from "@docqa/core/stores";
import { findLocalModels, sharedDataPath } from "@docqa/core/testing";
import type { BenchmarkRow } from "./statistics.ts";

const root = join(import.meta.dirname, "..");
const indexRoot = process.env.DOCQA_BENCH_INDEX_DIR ?? join(root, "bench", "results", "indexes");
const evaluator = { userName: "evaluator@docqa.invalid", roles: [], groups: [] };
const orgId = "eval";

/** Candidates per retriever compared. */
export const candidateDepths = [8, 10, 20, 30, 40, 50, 100, 200, 500, 1000] as const;
const listDepth = 1000;

/** The data sets of the study: name and BEIR folder. */
export function fusionDatasets(): { name: string; folder: string }[] {
  const sets = [
    { name: "scifact", folder: sharedDataPath("ir", "scifact") },
    { name: "squad-v2-2articles", folder: sharedDataPath("qa", "squad-v2-dev-2articles", "retrieval") },
    { name: "xquad-en", folder: sharedDataPath("qa", "xquad-en", "retrieval") },
  ];
  return sets.filter((set): set is { name: string; folder: string } => set.folder !== undefined);
}

/** One query's raw lists. */
interface QueryLists {
  queryId: string;
  vector: ScoredChunk[];
  keyword: ScoredChunk[];
}

/** nDCG@10 and the other metrics of one configuration on one set with one model. */
export interface FusionResult {
  dataset: string;
  model: string;
  configuration: string;
  metrics: RetrievalMetrics;
}

/** A service over a persistent index of `dataset` embedded with `model`. */
function indexedService(dataset: string, model: { id: string; root: string; dimension: number }): RagService {
  const dataDir = join(indexRoot, `${dataset}--${model.id.replaceAll("/", "--")}`);
  mkdirSync(dataDir, { recursive: true });
  return createRagService({
    config: {
      stores: { dataDir },
      logging: { level: "warn" },
      ingestion: { useRaptor: false },
      embeddings: {
        provider: "transformers",
        modelPath: model.root,
        modelName: model.id,
        dimension: model.dimension,
        allowRemote: false,
      },
    },
  });
}

/** Ranks documents by their best chunk, 100 deep. */
function documentRanking(chunks: readonly FusedChunk[] | readonly ScoredChunk[]): string[] {
  const ranking: string[] = [];
  const seen = new Set<string>();
  for (const { chunk } of chunks) {
    if (seen.has(chunk.docId)) continue;
    seen.add(chunk.docId);
    ranking.push(chunk.docId);
    if (ranking.length === 100) break;
  }
  return ranking;
}

async function retrieveLists(service: RagService, dataset: BeirDataset): Promise<QueryLists[]> {
  const lists: QueryLists[] = [];
  for (const query of dataset.queries) {
    const search = (weightVector: number) =>
      service.search({
        orgId,
        principal: evaluator,
        query: query.text,
        limit: listDepth,
        retrieval: {
          weightVector,
          weightBm25: 1 - weightVector,
          normalization: "min-max",
          fusion: "weighted",
          vectorTopK: listDepth,
          bm25TopK: listDepth,
        },
      });
    const [vector, keyword] = await Promise.all([search(1), search(0)]);
    lists.push({
      queryId: query.id,
      vector: vector.results.map((result) => ({ chunk: result.chunk, score: result.vectorScore as number })),
      keyword: keyword.results.map((result) => ({ chunk: result.chunk, score: result.keywordScore as number })),
    });
  }
  return lists;
}

/** The configurations compared, each a function from a query's lists to its fused chunks. */
function configurations(): [string, (lists: QueryLists) => readonly FusedChunk[] | readonly ScoredChunk[]][] {
  const entries: [string, (lists: QueryLists) => readonly FusedChunk[] | readonly ScoredChunk[]][] = [
    ["bm25", (lists) => lists.keyword],
    ["vector", (lists) => lists.vector],
  ];
  for (const normalization of ["z-score", "min-max"] as const) {
    for (const depth of candidateDepths) {
      entries.push([
        `${normalization} ${depth}`,
        (lists) =>
          fuseWeighted({
            vector: lists.vector.slice(0, depth),
            keyword: lists.keyword.slice(0, depth),
            weightVector: 0.5,
            weightKeyword: 0.5,
            normalization,
          }),
      ]);
    }
  }
  for (const depth of [8, 100, 1000]) {
    entries.push([
      `rrf ${depth}`,
      (lists) =>
        fuseReciprocalRank([
          { results: lists.vector.slice(0, depth), weight: 0.5 },
          { results: lists.keyword.slice(0, depth), weight: 0.5 },
        ]),
    ]);
  }
  return entries;
}

/** Runs the study; prints the tables; returns every result. */
export async function runFusionStudy(): Promise<FusionResult[]> {
  const models = findLocalModels(["all-MiniLM-L6-v2", "bge-small-en-v1.5"]);
  const results: FusionResult[] = [];
  for (const model of models) {
    for (const { name, folder } of fusionDatasets()) {
      const dataset = await loadBeirDataset(folder);
      const service = indexedService(name, model);
      const started = performance.now();
      await evaluateRetrieval(service, dataset, {
        orgId,
        batchSize: 100,
        limit: 1,
        onProgress: (phase, done, total) => {
          if (phase === "ingest") process.stderr.write(`\r${name} with ${model.id}: ${done}/${total} documents indexed`);
        },
      });
      process.stderr.write(` (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
      const lists = await retrieveLists(service, dataset);
      await service.close();
      for (const [configuration, fuse] of configurations()) {
        const metrics = meanMetrics(
          lists.map((entry) => ({
            ranking: documentRanking(fuse(entry)),
            judgements: dataset.qrels.get(entry.queryId) ?? new Map(),
          })),
        );
        results.push({ dataset: name, model: model.id, configuration, metrics });
      }
    }
  }
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  writeFileSync(join(root, "bench", "results", "fusion-quality.json"), `${JSON.stringify(results, null, 2)}\n`);
  printStudy(results);
  return results;
}

/** Prints nDCG@10 per configuration (rows) and set/model (columns), with the gain over max(BM25, vector). */
function printStudy(results: readonly FusionResult[]): void {
  const columns = [...new Set(results.map((result) => `${result.dataset} / ${result.model.split("/").at(-1)}`))];
  const names = [...new Set(results.map((result) => result.configuration))];
  const find = (column: string, configuration: string) =>
    results.find((result) => `${result.dataset} / ${result.model.split("/").at(-1)}` === column && result.configuration === configuration);
  const best = (column: string) => Math.max(find(column, "bm25")?.metrics.ndcgAt10 ?? 0, find(column, "vector")?.metrics.ndcgAt10 ?? 0);
  console.log("\nnDCG@10 (gain over max(BM25, vector)), weights 0.5/0.5, N candidates per retriever:");
  console.log(`| configuration | ${columns.join(" | ")} | worst gain |`);
  console.log(`|---|${columns.map(() => "---").join("|")}|---|`);
  for (const name of names) {
    const gains = columns.map((column) => (find(column, name)?.metrics.ndcgAt10 ?? 0) - best(column));
    const cells = columns.map((column, index) => {
      const value = find(column, name)?.metrics.ndcgAt10 ?? Number.NaN;
      const gain = gains[index] as number;
      return name === "bm25" || name === "vector" ? value.toFixed(4) : `${value.toFixed(4)} (${gain >= 0 ? "+" : ""}${gain.toFixed(4)})`;
    });
    const worst = name === "bm25" || name === "vector" ? "" : Math.min(...gains).toFixed(4);
    console.log(`| ${name} | ${cells.join(" | ")} | ${worst} |`);
  }
  console.log("");
}

/** `BENCH_ONLY=fusion`: the study, and one row per set and model for the configuration `chosen`. */
export async function benchmarkFusionQuality(chosen = process.env.BENCH_FUSION ?? "min-max 100"): Promise<BenchmarkRow[]> {
  const results = await runFusionStudy();
  const rows: BenchmarkRow[] = [];
  const keys = [...new Set(results.map((result) => `${result.dataset}|${result.model}`))];
  for (const key of keys) {
    const [dataset, model] = key.split("|") as [string, string];
    const of = (configuration: string) =>
      results.find((result) => result.dataset === dataset && result.model === model && result.configuration === configuration)?.metrics
        .ndcgAt10 ?? Number.NaN;
    const best = Math.max(of("bm25"), of("vector"));
    rows.push({
      benchmark: `${dataset} nDCG@10`,
      configuration: `${chosen}, ${model}`,
      figures: { "nDCG@10": of(chosen), "gain over max": of(chosen) - best, BM25: of("bm25"), vector: of("vector") },
      baseline: { name: "max(BM25, vector)", value: best },
      ratio: of(chosen) / best,
    });
  }
  return rows;
}
