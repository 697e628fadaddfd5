/**
 * The exact-scan kernel alone (`BENCH_ONLY=kernel`, decision record 0004): the WebAssembly SIMD
 * kernel against the read-bandwidth floor, plain JavaScript `Float32Array` loops and `usearch`'s
 * `exactSearch`, at 100k x 384.
 */
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { type IdScore, TopK } from "@docqa/core/retrieval";
import { ExactVectorIndex } from "@docqa/core/stores";
import { readBandwidth } from "./read-bandwidth.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";
import { clusteredVectors, dimension, random } from "./synthetic-vectors.ts";

/** Top-k by inner product over the rows of a row-major `rows x dimension` matrix that `mask` allows (all without one): the simplest JavaScript loop. */
function plainScan(matrix: Float32Array, rows: number, query: Float32Array, topK: number, mask?: Uint8Array): IdScore[] {
  const best = new TopK(topK);
  for (let row = 0; row < rows; row++) {
    if (mask && mask[row] !== 1) continue;
    const offset = row * dimension;
    let dot = 0;
    for (let index = 0; index < dimension; index++) dot += (query[index] as number) * (matrix[offset + index] as number);
    best.offer(row, dot);
  }
  return best.sorted();
}

/** The same scan with four accumulators and the threshold test before the heap, as the kernel does. */
function unrolledScan(matrix: Float32Array, rows: number, query: Float32Array, topK: number, mask?: Uint8Array): IdScore[] {
  const best = new TopK(topK);
  for (let row = 0; row < rows; row++) {
    if (mask && mask[row] !== 1) continue;
    const offset = row * dimension;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let index = 0; index < dimension; index += 4) {
      a += (query[index] as number) * (matrix[offset + index] as number);
      b += (query[index + 1] as number) * (matrix[offset + index + 1] as number);
      c += (query[index + 2] as number) * (matrix[offset + index + 2] as number);
      d += (query[index + 3] as number) * (matrix[offset + index + 3] as number);
    }
    const dot = a + b + c + d;
    if (dot >= best.threshold) best.offer(row, dot);
  }
  return best.sorted();
}

/**
 * The exact-scan kernel of the embedded store (`dot-products.wat`, through `ExactVectorIndex`)
 * against the alternatives it must beat to stay (decision record 0004), top-8 at 100k x 384-d,
 * in one run: plain JavaScript `Float32Array` loops (simple, and unrolled with four
 * accumulators) and `usearch`'s native `exactSearch` (inner product; one thread, and all cores).
 * Searches in the store always carry an ACL mask, which `exactSearch` cannot take: the masked
 * rows compare the kernel (which skips disallowed rows) with `exactSearch` over the allowed rows
 * copied into a scratch matrix, at 100 %, 10 % and 1 % of rows allowed. Ratios are the
 * alternative's p50 over the kernel's (above 1: the kernel is faster). Each alternative's top-8
 * is checked against the kernel's.
 */
export async function benchmarkScanKernel(): Promise<BenchmarkRow[]> {
  const size = 100_000;
  const runs = 100;
  const next = random(7);
  const clustered = clusteredVectors(next);
  const index = new ExactVectorIndex(dimension, size);
  const matrix = new Float32Array(size * dimension);
  for (let slot = 0; slot < size; slot++) {
    const vector = clustered();
    index.set(slot, vector);
    matrix.set(vector, slot * dimension);
  }
  const queries = Array.from({ length: 50 }, () => clustered());
  const usearch = createRequire(import.meta.url)("usearch") as typeof import("usearch");
  const native = (dataset: Float32Array, query: Float32Array, threads: number, ids?: Int32Array): IdScore[] => {
    const found = usearch.exactSearch(dataset, query, dimension, 8, usearch.MetricKind.IP, threads) as import("usearch").Matches;
    return Array.from(found.keys, (key, position) => ({
      id: ids ? (ids[Number(key)] as number) : Number(key),
      score: 1 - (found.distances[position] as number),
    }));
  };
  const scratch = new Float32Array(size * dimension);
  const scratchIds = new Int32Array(size);
  /** `exactSearch` over the allowed rows, copied into a scratch matrix first. */
  const compacted = (query: Float32Array, mask: Uint8Array): IdScore[] => {
    let allowed = 0;
    for (let row = 0; row < size; row++) {
      if (mask[row] !== 1) continue;
      scratch.set(matrix.subarray(row * dimension, (row + 1) * dimension), allowed * dimension);
      scratchIds[allowed++] = row;
    }
    return native(scratch.subarray(0, allowed * dimension), query, 1, scratchIds);
  };
  const label = `exact scan top-8, ${size / 1000}k x ${dimension}-d`;
  const rows: BenchmarkRow[] = [];
  /** Times the kernel and each candidate on the same queries, interleaved so that load changes hit all alike. */
  const compare = (
    benchmark: string,
    ours: (query: Float32Array) => IdScore[],
    candidates: [string, (query: Float32Array) => IdScore[]][],
    floorMs?: number,
  ) => {
    const searches = [ours, ...candidates.map(([, search]) => search)];
    const agreement = candidates.map(() => 0);
    for (const query of queries.slice(0, 10)) {
      const expected = new Set(ours(query).map((result) => result.id));
      candidates.forEach(([, search], position) => {
        agreement[position] = (agreement[position] as number) + search(query).filter((result) => expected.has(result.id)).length;
      });
    }
    const samples = searches.map((): number[] => []);
    for (let run = 0; run < runs; run++) {
      searches.forEach((search, position) => {
        const started = performance.now();
        search(queries[run % queries.length] as Float32Array);
        samples[position]?.push(performance.now() - started);
      });
    }
    const kernelP50 = percentile(samples[0] as number[], 50);
    rows.push({
      benchmark,
      configuration: `docqa ExactVectorIndex (${index.accelerated ? "WebAssembly SIMD kernel" : "JavaScript fallback"})`,
      figures: { "p50 ms": kernelP50, "p95 ms": percentile(samples[0] as number[], 95) },
      ...(floorMs === undefined
        ? {}
        : {
            baseline: {
              name: "read-bandwidth floor ms (bytes / single-thread read bandwidth, bench/memory-read-bandwidth.c)",
              value: floorMs,
            },
            ratio: kernelP50 / floorMs,
          }),
    });
    candidates.forEach(([name], position) => {
      const times = samples[position + 1] as number[];
      rows.push({
        benchmark,
        configuration: `${name} (same top-8: ${((100 * (agreement[position] as number)) / 80).toFixed(0)} %)`,
        figures: { "p50 ms": percentile(times, 50), "p95 ms": percentile(times, 95) },
        baseline: { name: "WebAssembly kernel p50 ms", value: kernelP50 },
        ratio: percentile(times, 50) / kernelP50,
      });
    });
  };
  // The hardware floor: reading the 100k x 384 float32 matrix once at this machine's single-thread read bandwidth.
  const bandwidth = readBandwidth(matrix.byteLength);
  compare(
    `${label}, no filter`,
    (query) => index.search(query, 8),
    [
      ["JavaScript Float32Array loop", (query) => plainScan(matrix, size, query, 8)],
      ["JavaScript Float32Array loop, 4 accumulators", (query) => unrolledScan(matrix, size, query, 8)],
      ["usearch exactSearch (native), 1 thread", (query) => native(matrix, query, 1)],
      [`usearch exactSearch (native), all ${cpus().length} cores`, (query) => native(matrix, query, 0)],
    ],
    bandwidth ? (matrix.byteLength / bandwidth.bytesPerSecond) * 1000 : undefined,
  );
  for (const every of [1, 10, 100]) {
    const mask = new Uint8Array(size);
    for (let row = 0; row < size; row += every) mask[row] = 1;
    compare(`${label}, ACL mask allowing ${100 / every} % of rows`, (query) => index.search(query, 8, mask), [
      ["JavaScript Float32Array loop, 4 accumulators, masked", (query) => unrolledScan(matrix, size, query, 8, mask)],
      ["usearch exactSearch, 1 thread, over the allowed rows copied out", (query) => compacted(query, mask)],
    ]);
  }
  return rows;
}
