/**
 * `BENCH_ONLY=hnsw-expansion npm run bench`: recall@10 of the embedded store's HNSW graph against
 * exact search, and the graph's search latency, at several search list sizes ef, on graphs of the
 * scale corpus (`bench/scale-corpus.ts`) that `bench/scale.ts` built and saved. Each graph is
 * loaded once from its snapshot and searched at every ef (usearch explores max(ef, k) candidates,
 * so searching k = ef candidates is a search at ef); the ef values are interleaved query by query,
 * so that load on the machine weighs on all of them alike. The queries, the exact neighbours and
 * the chunks' vectors are those of `bench/scale-child.ts serve` (its first 100 queries).
 *
 * At each size it finds the smallest ef reaching {@link targetRecall} (interpolating recall
 * linearly in log ef between the measured values), then fits how that ef grows with the graph's
 * size N: ef ∝ N^α, α the least-squares slope of log ef against log N. The store's rule when
 * `HNSW_EXPANSION_SEARCH` is not set (`hnswExpansionSearchFor` in
 * packages/core/src/stores/vector-index.ts) is ef = 128 · (N / 100,000)^α: the former default 128
 * (recall@10 0.964 at 100,000) grown at the fitted rate.
 *
 * Settings: `BENCH_HNSW_GRAPHS`, the graphs as `<chunks>:<data directory>` pairs separated by
 * commas (made by `node bench/scale-child.ts ingest embedded <chunks> <dir>` then
 * `node bench/scale-child.ts reopen embedded <chunks> <dir>`, which builds and saves the graph),
 * `BENCH_HNSW_EF` (default `64,96,128,192,256,320,384,448,512,640,768`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ExactVectorIndex, HnswVectorIndex } from "@docqa/core/stores";
import { chunksPerDocument, chunkVector, loadScaleCorpus, type ScaleCorpus } from "./scale-corpus.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

/** The recall@10 the store's default ef is to reach (issue 29's target at 1M chunks). */
export const targetRecall = 0.95;
/** Queries of the recall measurement (as `bench/scale-child.ts serve`). */
const recallQueries = 100;
/** Timed passes over the queries per ef. */
const rounds = 3;

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

/** The saved graph of the data directory (the snapshot `hnsw-snapshot.ts` writes) and its row ids. */
function savedGraph(directory: string): { graphPath: string; databasePath: string } {
  const header = readdirSync(directory).find((name) => name.endsWith(".sqlite.hnsw.json"));
  if (!header) throw new Error(`hnsw-expansion: no saved HNSW graph in ${directory} (run scale-child.ts reopen first)`);
  const { name } = JSON.parse(readFileSync(join(directory, header), "utf8")) as { name: string };
  const databasePath = join(directory, header.slice(0, -".hnsw.json".length));
  const graphPath = `${databasePath}.hnsw-${name}.usearch`;
  if (!existsSync(graphPath)) throw new Error(`hnsw-expansion: ${graphPath} is missing`);
  return { graphPath, databasePath };
}

/** Chunk number n of each SQLite row id (chunk ids are `d<n / 4>::<n mod 4>`). */
function chunkOfRow(databasePath: string): Map<number, number> {
  const database = new DatabaseSync(databasePath, { readOnly: true });
  const chunks = new Map<number, number>();
  for (const row of database.prepare("SELECT id, chunk_id FROM chunks").iterate() as Iterable<{ id: number; chunk_id: string }>) {
    const match = /^d(\d+)::(\d+)$/.exec(row.chunk_id);
    if (match) chunks.set(Number(row.id), Number(match[1]) * chunksPerDocument + Number(match[2]));
  }
  database.close();
  return chunks;
}

interface SizeFigures {
  chunks: number;
  perEf: { ef: number; recallAt10: number; p50: number; p99: number }[];
  /** The smallest ef with recall@10 ≥ {@link targetRecall}, interpolated between the measured ones; none when no ef reached it. */
  smallestEf?: number;
  load: [string, string];
}

async function measureSize(corpus: ScaleCorpus, chunks: number, directory: string, efs: number[]): Promise<SizeFigures> {
  const { graphPath, databasePath } = savedGraph(directory);
  const rows = chunkOfRow(databasePath);
  const graph = new HnswVectorIndex(corpus.dimension, { connectivity: 16, expansionAdd: 128, expansionSearch: 1 });
  graph.load(graphPath);
  const exact = new ExactVectorIndex(corpus.dimension, chunks);
  for (let n = 0; n < chunks; n++) exact.set(n, chunkVector(corpus, n));
  const queries = Array.from({ length: Math.min(recallQueries, corpus.queries.length) }, (_, index) =>
    corpus.queryVectors.subarray(index * corpus.dimension, (index + 1) * corpus.dimension),
  );
  const truths = queries.map((query) => new Set(exact.search(query, 10).map((hit) => hit.id)));
  const loadBefore = load();
  const found = new Map<number, number>();
  const samples = new Map<number, number[]>(efs.map((ef) => [ef, []]));
  for (let round = 0; round < rounds; round++) {
    queries.forEach((query, position) => {
      // Rotate the order of the ef values from query to query.
      for (let step = 0; step < efs.length; step++) {
        const ef = efs[(position + round + step) % efs.length] as number;
        const began = performance.now();
        const hits = graph.search(query, ef).slice(0, 10);
        samples.get(ef)?.push(performance.now() - began);
        if (round > 0) continue;
        const truth = truths[position] as Set<number>;
        const hitsFound = hits.filter((hit) => truth.has(rows.get(hit.id) ?? -1)).length;
        found.set(ef, (found.get(ef) ?? 0) + hitsFound);
      }
    });
  }
  const wanted = truths.reduce((total, truth) => total + truth.size, 0);
  const perEf = efs.map((ef) => {
    const timings = samples.get(ef) ?? [];
    return { ef, recallAt10: (found.get(ef) ?? 0) / wanted, p50: percentile(timings, 50), p99: percentile(timings, 99) };
  });
  const smallestEf = interpolatedEf(perEf);
  return { chunks, perEf, ...(smallestEf !== undefined ? { smallestEf } : {}), load: [loadBefore, load()] };
}

/**
 * The smallest ef whose recall@10 reaches {@link targetRecall}: between the last measured ef below
 * it and the first at or above it, recall taken as linear in log ef. Undefined when none reaches it.
 */
function interpolatedEf(perEf: SizeFigures["perEf"]): number | undefined {
  const above = perEf.findIndex((figure) => figure.recallAt10 >= targetRecall);
  if (above < 0) return undefined;
  const high = perEf[above] as SizeFigures["perEf"][number];
  const low = perEf[above - 1];
  if (!low) return high.ef;
  const share = (targetRecall - low.recallAt10) / (high.recallAt10 - low.recallAt10);
  return Math.exp(Math.log(low.ef) + share * (Math.log(high.ef) - Math.log(low.ef)));
}

/** α of ef ∝ N^α: the least-squares slope of log ef against log N over the sizes' smallest ef reaching the target. */
function fitExponent(sizes: SizeFigures[]): number | undefined {
  const points = sizes.flatMap((size) =>
    size.smallestEf !== undefined ? [{ x: Math.log(size.chunks), y: Math.log(size.smallestEf) }] : [],
  );
  if (points.length < 2) return undefined;
  const meanX = points.reduce((total, point) => total + point.x, 0) / points.length;
  const meanY = points.reduce((total, point) => total + point.y, 0) / points.length;
  const covariance = points.reduce((total, point) => total + (point.x - meanX) * (point.y - meanY), 0);
  const variance = points.reduce((total, point) => total + (point.x - meanX) ** 2, 0);
  return variance === 0 ? undefined : covariance / variance;
}

/** Measures every graph of `BENCH_HNSW_GRAPHS` at every ef and prints the fitted rule. */
export async function benchmarkHnswExpansion(): Promise<BenchmarkRow[]> {
  const graphs = (process.env.BENCH_HNSW_GRAPHS ?? "").split(",").filter((pair) => pair.includes(":"));
  if (graphs.length === 0) throw new Error("hnsw-expansion: set BENCH_HNSW_GRAPHS to <chunks>:<data dir>[,...]");
  const efs = (process.env.BENCH_HNSW_EF ?? "64,96,128,192,256,320,384,448,512,640,768").split(",").map(Number);
  const corpus = await loadScaleCorpus();
  const sizes: SizeFigures[] = [];
  for (const pair of graphs) {
    const separator = pair.indexOf(":");
    const figures = await measureSize(corpus, Number(pair.slice(0, separator)), pair.slice(separator + 1), efs);
    sizes.push(figures);
    console.log(`hnsw-expansion: ${figures.chunks} chunks (load ${figures.load.join(" -> ")}): ${JSON.stringify(figures.perEf)}`);
  }
  const exponent = fitExponent(sizes);
  console.log(
    `hnsw-expansion: smallest ef with recall@10 >= ${targetRecall}: ${sizes.map((size) => `${size.chunks}: ${size.smallestEf?.toFixed(1) ?? "none measured"}`).join(", ")}; fitted ef = 128 * (N / 100000)^${exponent?.toFixed(3) ?? "? (needs two sizes)"}`,
  );
  return sizes.flatMap((size) =>
    size.perEf.map((figure) => ({
      benchmark: "hnsw-expansion",
      configuration: `${size.chunks.toLocaleString("en")} chunks, ef ${figure.ef} (load ${size.load.join(" -> ")})`,
      figures: { "recall@10": figure.recallAt10, "search p50 ms": figure.p50, "search p99 ms": figure.p99 },
    })),
  );
}
