/**
 * `BENCH_ONLY=scale npm run bench`: docqa at 100k and 1M chunks, on the embedded store and on the
 * engines (the three-node OpenSearch cluster for BM25 and the registry, Milvus for vectors), in one
 * run. The corpus (real text repeated with distinct ids; real embeddings for a sample, synthetic
 * vectors around them for the rest) is described in `bench/scale-corpus.ts`; each step runs in a
 * child process of its own (`bench/scale-child.ts`).
 *
 * Per target and size: ingestion chunks/s (chunks and vectors already made), time to reopen (a
 * fresh process until the first search is answered; the embedded store also until its HNSW graph
 * is ready: first built, then, in a second reopening, loaded from the snapshot the first saved), resident memory (the docqa process; for the cluster also the engines' processes) and
 * disk per million chunks, `/predict` and `/api/search` p50/p99 with BM25, vectors and hybrid
 * (query embeddings precomputed), and recall@10 of approximate against exact vector search. Every
 * figure at the largest size is printed with its ratio to the same figure at the smallest size of
 * the same run, and the load average before and after each step (2 shared cores).
 *
 * Settings: `BENCH_SCALE_SIZES` (default `100000,1000000`), `BENCH_SCALE_TARGETS` (default
 * `embedded,cluster`; the cluster needs `scripts/services/start-opensearch-cluster.sh`, Milvus
 * from `scripts/services/start-all.sh` and `source scripts/services/env.sh`),
 * `BENCH_SCALE_QUERIES` (timed requests per route and mode, default 300), `BENCH_SCALE_DIR`
 * (where the embedded store's data goes, default the system's temporary directory), and
 * `HNSW_CONNECTIVITY` and `HNSW_EXPANSION_SEARCH` as for docqa (the embedded store's and Milvus's
 * graphs; the rows name the ef used). Results are also written to `bench/results/scale.json`.
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { hnswExpansionSearchFor } from "@docqa/core/stores";
import type { BenchmarkRow } from "./statistics.ts";

/** The figures of one target at one size. */
interface ScaleFigures {
  target: string;
  chunks: number;
  ingest: { chunksPerSecond: number; seconds: number; load: [number, number] };
  serve: {
    reopenMs: number;
    graphReadyMs?: number;
    rssBytes: number;
    engineRssBytes?: number;
    diskBytes?: number;
    latency: Record<string, { p50: number; p99: number }>;
    recallAt10: number;
    load: [number, number];
  };
  /** The embedded store opened again after `serve`, with the HNSW graph `serve` saved. */
  reopen?: { reopenMs: number; graphReadyMs?: number; rssBytes: number; loadedFromSnapshot: boolean; load: [number, number] };
}

const sizes = (process.env.BENCH_SCALE_SIZES ?? "100000,1000000").split(",").map(Number);
const targets = (process.env.BENCH_SCALE_TARGETS ?? "embedded,cluster").split(",");
const servicesDir = process.env.DOCQA_SERVICES_DIR ?? join(import.meta.dirname, "..", ".services");

async function child(
  command: "ingest" | "serve" | "reopen",
  target: string,
  size: number,
  location: string,
): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(import.meta.dirname, "scale-child.ts"), command, target, String(size), location],
    {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 4 * 3600 * 1000,
    },
  ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`scale ${command} ${target} ${size} failed: ${error.message}\n${error.stderr ?? ""}`);
  });
  const line = stdout.split("\n").find((item) => item.startsWith("RESULT "));
  if (!line) throw new Error(`scale ${command} ${target} ${size}: no result in ${stdout.slice(-500)}`);
  return JSON.parse(line.slice("RESULT ".length)) as Record<string, unknown>;
}

/** Resident bytes of the processes in these pidfiles (the engines of the cluster target). */
function residentBytes(pidfiles: readonly string[]): number {
  let total = 0;
  for (const pidfile of pidfiles) {
    if (!existsSync(pidfile)) continue;
    const pid = readFileSync(pidfile, "utf8").trim();
    const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, "utf8") : "";
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    if (rss) total += Number(rss[1]) * 1024;
    // Milvus Lite's and Milvus's launchers start the server as a child process.
    for (const line of execFileSync("ps", ["-o", "rss=", "--ppid", pid], { encoding: "utf8" }).trim().split("\n")) {
      if (line.trim() !== "") total += Number(line.trim()) * 1024;
    }
  }
  return total;
}

const enginePidfiles = () => [
  ...[1, 2, 3].map((node) => join(servicesDir, "opensearch-cluster", `node-${node}`, "node.pid")),
  join(servicesDir, "milvus", "milvus.pid"),
];

/** Bytes the cluster target's indexes take: OpenSearch's store size (replicas included) and Milvus's data directory growth. */
async function clusterDiskBytes(base: string, milvusBefore: number): Promise<number> {
  const url = (process.env.DOCQA_TEST_OPENSEARCH_CLUSTER_URLS ?? "").split(",")[0];
  const indices = (await (await fetch(`${url}/_cat/indices/${base}*?format=json&bytes=b&h=store.size`)).json()) as {
    "store.size": string;
  }[];
  return indices.reduce((total, index) => total + Number(index["store.size"]), 0) + Math.max(0, milvusDataBytes() - milvusBefore);
}

function milvusDataBytes(): number {
  const folder = join(servicesDir, "milvus", "data");
  return existsSync(folder) ? Number(execFileSync("du", ["-sb", folder], { encoding: "utf8" }).split("\t")[0]) : 0;
}

async function dropCluster(base: string): Promise<void> {
  const url = (process.env.DOCQA_TEST_OPENSEARCH_CLUSTER_URLS ?? "").split(",")[0];
  await fetch(`${url}/${base}*`, { method: "DELETE" }).catch(() => undefined);
  const { MilvusClient } = await import("@zilliz/milvus2-sdk-node");
  const client = new MilvusClient({ address: process.env.DOCQA_TEST_MILVUS_URI ?? "", timeout: 120_000, logLevel: "error" });
  for (const collection of (await client.showCollections()).data) {
    if (collection.name.startsWith(base)) await client.dropCollection({ collection_name: collection.name });
  }
  await client.closeConnection();
}

const load = (): number => Math.round((loadavg()[0] ?? 0) * 10) / 10;

async function measure(target: string, size: number): Promise<ScaleFigures> {
  const embedded = target === "embedded";
  const location = embedded
    ? mkdtempSync(join(process.env.BENCH_SCALE_DIR ?? tmpdir(), "docqa-scale-"))
    : `docqa_scale_${randomBytes(4).toString("hex")}`;
  const milvusBefore = embedded ? 0 : milvusDataBytes();
  try {
    console.log(`scale: ${target}, ${size} chunks: ingesting (load ${load()})`);
    const ingestLoad = load();
    const ingest = (await child("ingest", target, size, location)) as ScaleFigures["ingest"];
    ingest.load = [ingestLoad, load()];
    console.log(`scale: ${target}, ${size} chunks: ${ingest.chunksPerSecond.toFixed(0)} chunks/s; serving (load ${load()})`);
    const serveLoad = load();
    const diskBeforeServe = embedded ? undefined : await clusterDiskBytes(location, milvusBefore);
    const serve = (await child("serve", target, size, location)) as ScaleFigures["serve"];
    serve.load = [serveLoad, load()];
    if (!embedded) {
      serve.engineRssBytes = residentBytes(enginePidfiles());
      serve.diskBytes = diskBeforeServe;
      return { target, chunks: size, ingest, serve };
    }
    console.log(`scale: ${target}, ${size} chunks: reopening with the saved HNSW graph (load ${load()})`);
    const reopenLoad = load();
    const reopen = (await child("reopen", target, size, location)) as NonNullable<ScaleFigures["reopen"]>;
    reopen.load = [reopenLoad, load()];
    return { target, chunks: size, ingest, serve, reopen };
  } finally {
    if (embedded) rmSync(location, { recursive: true, force: true });
    else await dropCluster(location).catch((error: unknown) => console.log(`scale: could not drop ${location}: ${String(error)}`));
  }
}

/** The rows of one measurement, with ratios against the same figures at the baseline size. */
function rowsOf(figures: ScaleFigures, baseline: ScaleFigures | undefined): BenchmarkRow[] {
  const perMillion = 1_000_000 / figures.chunks;
  const values: [string, number, number | undefined][] = [
    ["ingest chunks/s", figures.ingest.chunksPerSecond, baseline?.ingest.chunksPerSecond],
    ["reopen s", figures.serve.reopenMs / 1000, baseline ? baseline.serve.reopenMs / 1000 : undefined],
    ...(figures.serve.graphReadyMs !== undefined
      ? ([
          [
            "reopen until HNSW ready s",
            figures.serve.graphReadyMs / 1000,
            baseline?.serve.graphReadyMs !== undefined ? baseline.serve.graphReadyMs / 1000 : undefined,
          ],
        ] as [string, number, number | undefined][])
      : []),
    ...(figures.reopen
      ? ([
          [
            `second reopen s (HNSW graph ${figures.reopen.loadedFromSnapshot ? "loaded from its snapshot" : "rebuilt: no snapshot"})`,
            figures.reopen.reopenMs / 1000,
            baseline?.reopen ? baseline.reopen.reopenMs / 1000 : undefined,
          ],
          [
            "second reopen until HNSW ready s",
            (figures.reopen.graphReadyMs ?? Number.NaN) / 1000,
            baseline?.reopen?.graphReadyMs !== undefined ? baseline.reopen.graphReadyMs / 1000 : undefined,
          ],
        ] as [string, number, number | undefined][])
      : []),
    ["docqa RSS MB", figures.serve.rssBytes / 1e6, baseline ? baseline.serve.rssBytes / 1e6 : undefined],
    // Memory per million chunks: the growth over the baseline size (the process's fixed part, about
    // 350 MB with the service's modules, cancels out).
    ...(baseline
      ? ([
          [
            "docqa RSS MB per 1M chunks (growth over the baseline size)",
            ((figures.serve.rssBytes - baseline.serve.rssBytes) / 1e6) * (1_000_000 / (figures.chunks - baseline.chunks)),
            undefined,
          ],
        ] as [string, number, number | undefined][])
      : []),
    ...(figures.serve.engineRssBytes !== undefined
      ? ([
          [
            "engines RSS MB",
            figures.serve.engineRssBytes / 1e6,
            baseline?.serve.engineRssBytes !== undefined ? baseline.serve.engineRssBytes / 1e6 : undefined,
          ],
        ] as [string, number, number | undefined][])
      : []),
    ...(figures.serve.diskBytes !== undefined
      ? ([
          [
            "disk MB per 1M chunks",
            (figures.serve.diskBytes / 1e6) * perMillion,
            baseline?.serve.diskBytes !== undefined ? (baseline.serve.diskBytes / 1e6) * (1_000_000 / baseline.chunks) : undefined,
          ],
        ] as [string, number, number | undefined][])
      : []),
    ["recall@10 approximate vs exact", figures.serve.recallAt10, baseline?.serve.recallAt10],
  ];
  for (const [name, timing] of Object.entries(figures.serve.latency)) {
    values.push([`${name} p50 ms`, timing.p50, baseline?.serve.latency[name]?.p50]);
    values.push([`${name} p99 ms`, timing.p99, baseline?.serve.latency[name]?.p99]);
  }
  // The embedded store's default ef grows with the graph (Milvus's stays 128 when unset).
  const ef = process.env.HNSW_EXPANSION_SEARCH ?? `${hnswExpansionSearchFor(figures.chunks)} (default at this size)`;
  const reopenLoad = figures.reopen ? `, reopen ${figures.reopen.load.join("→")}` : "";
  const configuration = `${figures.target}, ${figures.chunks.toLocaleString("en")} chunks, HNSW ef ${ef} (load ingest ${figures.ingest.load.join("→")}, serve ${figures.serve.load.join("→")}${reopenLoad})`;
  return values.map(([name, value, base]) => ({
    benchmark: "scale",
    configuration: `${configuration}: ${name}`,
    figures: { [name]: value },
    ...(base !== undefined && baseline !== figures
      ? { baseline: { name: `${name} at ${baseline?.chunks.toLocaleString("en")}`, value: base }, ratio: value / base }
      : {}),
  }));
}

/** Runs the scale benchmark for every target and size. */
export async function benchmarkScale(): Promise<BenchmarkRow[]> {
  const measured: ScaleFigures[] = [];
  for (const target of targets) {
    if (target === "cluster" && !(process.env.DOCQA_TEST_OPENSEARCH_CLUSTER_URLS && process.env.DOCQA_TEST_MILVUS_URI)) {
      console.log(
        "scale: cluster skipped (start scripts/services/start-opensearch-cluster.sh and start-all.sh, then source scripts/services/env.sh)",
      );
      continue;
    }
    for (const size of sizes) measured.push(await measure(target, size));
  }
  const folder = join(import.meta.dirname, "results");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "scale.json"), `${JSON.stringify({ date: new Date().toISOString(), measured }, null, 2)}\n`);
  return measured.flatMap((figures) => {
    const baseline = measured.find((other) => other.target === figures.target && other.chunks === Math.min(...sizes));
    return rowsOf(figures, baseline === figures ? undefined : baseline);
  });
}
