/**
 * `BENCH_ONLY=bm25-pruning npm run bench`: the embedded store's BM25 top-k with dynamic pruning
 * (MaxScore, `Bm25Index.search`) against the exhaustive search it replaced
 * (`Bm25Index.searchExhaustively`), in one process, the two interleaved query by query (their
 * order alternating), at 100k and 1M chunks of the scale corpus (`bench/scale-corpus.ts`: real
 * passages repeated with distinct ids, so every term's document frequency is multiplied by the
 * repetitions, about 87 at 1M). Each chunk is analysed and scored as the store does (title and text,
 * the English analyzer, k1 0.9, b 0.4), every slot allowed by a mask (the benchmark's principal
 * reads every chunk, so the store's ACL pre-filter builds such a mask); the 300 SciFact test
 * queries, top 30 (what `/predict` asks of the store's `searchByText` by default:
 * max(`BM25_RETRIEVER_TOP_K` 8, `FUSION_CANDIDATES` 30)). Every pruned
 * result is checked against the exhaustive one. Latency is the index's alone: no analysis of the
 * query, no SQLite, no HTTP.
 *
 * Settings: `BENCH_BM25_SIZES` (default `100000,1000000`), `BENCH_BM25_TOP_K` (default 30),
 * `BENCH_BM25_ROUNDS` (passes over the queries, default 3).
 */
import { loadavg } from "node:os";
import { createEnglishAnalyzer } from "@docqa/core/retrieval";
import { Bm25Index, indexedText } from "@docqa/core/stores";
import { readScaleTexts } from "./scale-corpus.ts";
import { type BenchmarkRow, comparedRow, percentile } from "./statistics.ts";

const sizes = (process.env.BENCH_BM25_SIZES ?? "100000,1000000").split(",").map(Number);
const topK = Number(process.env.BENCH_BM25_TOP_K ?? 30);
const rounds = Number(process.env.BENCH_BM25_ROUNDS ?? 3);
/** BM25 parameters of the embedded store's default (`BM25_K1`, `BM25_B`). */
const parameters = { k1: 0.9, b: 0.4 };

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

/** Runs the comparison at every size; rows give p50 and p99 of both searches, pruned against exhaustive. */
export async function benchmarkBm25Pruning(): Promise<BenchmarkRow[]> {
  const { passages, queries } = readScaleTexts();
  const analyzer = createEnglishAnalyzer();
  const passageTerms = passages.map((passage) => analyzer.analyze(indexedText(passage)));
  const queryTerms = queries.map((query) => analyzer.analyze(query)).filter((terms) => terms.length > 0);
  const rows: BenchmarkRow[] = [];
  for (const size of sizes) {
    const index = new Bm25Index(parameters);
    const building = performance.now();
    for (let slot = 0; slot < size; slot++) index.add(slot, passageTerms[slot % passageTerms.length] as string[]);
    const mask = new Uint8Array(size).fill(1);
    const buildSeconds = (performance.now() - building) / 1000;
    // Warm-up: both paths over every query once (this also sorts and bounds the lists once).
    for (const terms of queryTerms) {
      index.searchExhaustively(terms, topK, mask);
      index.search(terms, topK, mask);
    }
    const loadBefore = load();
    const exhaustive: number[] = [];
    const pruned: number[] = [];
    let mismatches = 0;
    for (let round = 0; round < rounds; round++) {
      queryTerms.forEach((terms, position) => {
        const time = (search: () => unknown, samples: number[]) => {
          const began = performance.now();
          const result = search();
          samples.push(performance.now() - began);
          return result;
        };
        const runExhaustive = () => time(() => index.searchExhaustively(terms, topK, mask), exhaustive);
        const runPruned = () => time(() => index.search(terms, topK, mask), pruned);
        const [first, second] = (round + position) % 2 === 0 ? [runExhaustive(), runPruned()] : [runPruned(), runExhaustive()];
        if (JSON.stringify(first) !== JSON.stringify(second)) mismatches++;
      });
    }
    if (mismatches > 0) throw new Error(`bm25-pruning: ${mismatches} queries gave other results pruned than exhaustive`);
    const loadAfter = load();
    const label = `${size.toLocaleString("en")} chunks, top ${topK}, ${queryTerms.length} queries x ${rounds}, load ${loadBefore} -> ${loadAfter}`;
    console.log(
      `bm25-pruning: ${label}: index built in ${buildSeconds.toFixed(1)} s; exhaustive p50 ${percentile(exhaustive, 50).toFixed(2)} ms, pruned p50 ${percentile(pruned, 50).toFixed(2)} ms`,
    );
    for (const p of [50, 99]) {
      rows.push(
        comparedRow(
          "bm25-pruning",
          `BM25 top-k p${p} ms`,
          { label: `MaxScore, ${label}`, value: percentile(pruned, p) },
          { label: "exhaustive", value: percentile(exhaustive, p) },
        ),
      );
    }
  }
  return rows;
}
