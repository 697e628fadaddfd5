/**
 * Ingestion with embeddings, now against docqa when the embedding issue was filed
 * (`BENCH_ONLY=ingestion-history`): the same SciFact abstracts (first `BENCH_HISTORY_DOCS`, default
 * 1,000) go through each version's `createRagService().upsert` in batches of 500, as `docqa eval`
 * ingested SciFact then (the run a user timed at 13 minutes for 5,183 abstracts), each with its
 * default settings and the same model: the shared int8 file now (`EMBED_DTYPE=auto`), and fp32
 * weights then (its default dtype; the fp32 twin of `fp32-twin.py` when the fp32 file is absent).
 * Everything a user waits for is in the time: parsing, chunking, embedding, RAPTOR summaries,
 * indexing and durable writes.
 *
 * The old version (`BENCH_HISTORY_COMMIT`, default 0d201cc, main's head when the issue was filed)
 * is cloned from this repository into `bench/.baseline/<commit>` (git-ignored) and installed and
 * built there on first use (a few minutes). The two versions run in turn in child processes,
 * `BENCH_HISTORY_ROUNDS` times each (default 2); the best round of each is reported.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { findLocalModels, type LocalModel, sharedDataPath } from "@docqa/core/testing";
import { fp32Weights } from "./python-environments.ts";
import type { BenchmarkRow } from "./statistics.ts";

const root = join(import.meta.dirname, "..");
const commit = process.env.BENCH_HISTORY_COMMIT ?? "0d201cc";
const documents = Number(process.env.BENCH_HISTORY_DOCS ?? 1000);
const rounds = Math.max(1, Number(process.env.BENCH_HISTORY_ROUNDS ?? 2));

interface Ingested {
  documents: number;
  chunks: number;
  seconds: number;
}

/** The old version's tree, cloned, installed and built on first use. */
function baselineTree(): string {
  const tree = join(root, "bench", ".baseline", commit);
  if (existsSync(join(tree, "packages", "core", "dist", "index.js"))) return tree;
  console.log(`building docqa at ${commit} in ${tree} (first run only)`);
  mkdirSync(join(root, "bench", ".baseline"), { recursive: true });
  if (!existsSync(tree)) execFileSync("git", ["clone", "--quiet", "--no-checkout", root, tree], { stdio: "inherit" });
  execFileSync("git", ["-C", tree, "checkout", "--quiet", commit], { stdio: "inherit" });
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--silent"], { cwd: tree, stdio: "inherit" });
  execFileSync("npm", ["run", "build", "--silent"], { cwd: tree, stdio: "inherit" });
  return tree;
}

function ingest(tree: string, corpus: string, environment: Record<string, string>): Ingested {
  const stdout = execFileSync(process.execPath, [join(root, "bench", "ingest-scifact-child.ts"), tree, corpus], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, LOG_LEVEL: "warn", DOCS: String(documents), ...environment },
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Ingested;
}

/** Runs the comparison; empty when SciFact or the models are absent. */
export async function benchmarkIngestionHistory(): Promise<BenchmarkRow[]> {
  const scifact = sharedDataPath("ir", "scifact");
  const models = (process.env.BENCH_EMBED_MODELS ?? "all-MiniLM-L6-v2")
    .split(",")
    .map((name) => findLocalModels([name.trim()]).find((model) => model.id.endsWith(name.trim())))
    .filter((model): model is LocalModel => model !== undefined);
  if (!scifact || models.length === 0) {
    console.log("ingestion history benchmark skipped: SciFact or the models under ../shared/data/models are absent");
    return [];
  }
  const corpus = join(scifact, "corpus.jsonl");
  const tree = baselineTree();
  const rows: BenchmarkRow[] = [];
  for (const model of models) {
    const fp32Root = fp32Weights(model);
    if (!fp32Root) {
      console.log(`ingestion history benchmark: ${model.id} skipped (no fp32 weights and no Python to build the twin)`);
      continue;
    }
    const common = {
      EMBED_PROVIDER: "transformers",
      EMBED_MODEL_NAME: model.id,
      EMBED_DIMENSION: String(model.dimension),
      EMBED_ALLOW_REMOTE: "false",
    };
    const best = { now: Number.POSITIVE_INFINITY, before: Number.POSITIVE_INFINITY, chunks: 0 };
    for (let round = 0; round < rounds; round++) {
      const now = ingest(root, corpus, { ...common, EMBED_MODEL_PATH: model.root, EMBED_CACHE_MAX_ENTRIES: "0" });
      const then = ingest(tree, corpus, { ...common, EMBED_MODEL_PATH: fp32Root });
      console.log(
        `  ${model.id}: now ${now.chunks} chunks in ${now.seconds.toFixed(1)} s; at ${commit} ${then.chunks} chunks in ${then.seconds.toFixed(1)} s`,
      );
      best.now = Math.min(best.now, now.seconds);
      best.before = Math.min(best.before, then.seconds);
      best.chunks = now.chunks;
    }
    rows.push({
      benchmark: `SciFact ingestion with embeddings, ${documents} abstracts (${best.chunks} chunks), upsert in batches of 500`,
      configuration: `docqa now, ${model.id} int8, default settings (embedding cache off), best of ${rounds}`,
      figures: { seconds: best.now, "chunks/s": best.chunks / best.now },
      baseline: {
        name: `docqa at ${commit}, fp32 weights${fp32Root === model.root ? "" : " (twin)"}, chunks/s`,
        value: best.chunks / best.before,
      },
      ratio: best.before / best.now,
    });
  }
  return rows;
}
