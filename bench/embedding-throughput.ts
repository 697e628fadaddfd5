/**
 * Embedding throughput (`BENCH_ONLY=embedding`): docqa against the CPU pipelines a Python user
 * runs, fastembed (Qdrant) and sentence-transformers (ONNX backend), in one run, on the same
 * chunks (the first 1,000 SciFact abstracts chunked at the default `CHUNK_SIZE`/`CHUNK_OVERLAP`,
 * title and text as docqa indexes them), the same int8 ONNX files (all-MiniLM-L6-v2 and
 * bge-small-en-v1.5 from ../shared/data/models) and the same cores. Also measured in the same run:
 * docqa's embedding before token batching (the transformers.js pipeline, fixed batches of 16 in
 * slices of 64 chunks, `engine: "pipeline"`), on the int8 file and, as docqa shipped it, on fp32
 * weights (its default dtype then): the baseline of the ≥ 4x target. The shared models hold only
 * the int8 file, so the fp32 figure is measured on an fp32 twin built by `fp32-twin.py` (the same
 * graph with float matrix products; see there) unless the model directory has `onnx/model.onnx`.
 * And docqa's ingestion path as the service runs it: the pool of ingestion worker threads
 * (`createWorkerPoolExecutor`, one thread per core), where large calls are shared between the
 * workers (data-parallel, `DataParallelEmbeddings`).
 *
 * Reported per model (model loaded and warmed up first; the best of `BENCH_EMBED_ROUNDS` rounds,
 * default 2, run in turn; `BENCH_EMBED_MODELS=all-MiniLM-L6-v2` measures one model): chunks per
 * second of wall time, and chunks per CPU-second (the process's CPU time over all its threads),
 * which still compares pipelines fairly when other work shares the cores; and the agreement of
 * docqa's vectors with each reference (cosine per chunk: minimum, mean, share ≥ 0.99).
 *
 * The references run in virtual environments this benchmark creates from PyPI on first use, in
 * `bench/.venv/` (git-ignored): fastembed 0.9.1 (about 300 MB), and sentence-transformers 5.7.0
 * with its ONNX extra (about 6 GB: PyPI's torch wheel pulls the CUDA libraries, although only the
 * CPU is used); the fp32 twin is built with onnx 1.23.2 into `bench/.models/` (git-ignored).
 * `BENCH_REFERENCES=fastembed` leaves sentence-transformers out; without python3 the references
 * and the fp32 baseline are skipped with a message.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, silentLogger, TransformersEmbeddings } from "@docqa/core";
import { chunkDocument, createWorkerPoolExecutor, embedChunks, embeddingModelPreset, sourceFromInput } from "@docqa/core/ingestion";
import { type DocumentVersion, indexedText } from "@docqa/core/stores";
import { findLocalModels, type LocalModel, sharedDataPath } from "@docqa/core/testing";
import { modelEnvironment } from "./local-model.ts";
import { fp32Weights, pythonEnvironment } from "./python-environments.ts";
import type { BenchmarkRow } from "./statistics.ts";

const root = join(import.meta.dirname, "..");
const rounds = Math.max(1, Number(process.env.BENCH_EMBED_ROUNDS ?? 2));
const threads = availableParallelism();

type Library = "fastembed" | "sentence-transformers";

/** The first `count` SciFact abstracts, chunked as docqa chunks them by default. */
async function scifactChunks(count: number): Promise<DocumentVersion[]> {
  const folder = sharedDataPath("ir", "scifact") as string;
  const config = loadConfig({});
  const lines = readFileSync(join(folder, "corpus.jsonl"), "utf8").split("\n").filter(Boolean).slice(0, count);
  const versions: DocumentVersion[] = [];
  for (const line of lines) {
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    versions.push(
      await chunkDocument(
        sourceFromInput(record._id, { title: record.title, content: record.text }),
        { chunkSize: config.ingestion.chunkSize, chunkOverlap: config.ingestion.chunkOverlap },
        { orgId: "bench", uploader: "bench@example.org" },
      ),
    );
  }
  return versions;
}

interface Measured {
  /** Chunks per second of wall time. */
  chunksPerSecond: number;
  /** Chunks per second of the process's CPU time, all threads. */
  chunksPerCpuSecond: number;
  vectors: Float32Array[];
  details: string;
}

/** Wall and CPU time of `work`, in seconds. */
async function clocked<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Runs a reference pipeline once; its vectors come back in input order. */
function runReference(python: string, library: Library, model: LocalModel, textsFile: string, count: number): Measured {
  const output = join(mkdtempSync(join(tmpdir(), "docqa-bench-embed-")), "vectors.f32");
  const stdout = execFileSync(
    python,
    [
      join(root, "bench", "embedding-reference.py"),
      "--library",
      library,
      "--texts",
      textsFile,
      "--model-dir",
      join(model.root, model.id),
      "--model-name",
      model.id,
      "--pooling",
      embeddingModelPreset(model.id).pooling,
      "--dimension",
      String(model.dimension),
      "--threads",
      String(threads),
      "--output",
      output,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, TOKENIZERS_PARALLELISM: "false" } },
  );
  const result = JSON.parse(stdout.trim().split("\n").at(-1) as string) as {
    chunks: number;
    seconds: number;
    cpuSeconds: number;
    version: string;
    batchSize: number;
  };
  const data = new Float32Array(readFileSync(output).buffer.slice(0));
  const vectors = Array.from({ length: count }, (_, index) => data.subarray(index * model.dimension, (index + 1) * model.dimension));
  return {
    chunksPerSecond: result.chunks / result.seconds,
    chunksPerCpuSecond: result.chunks / result.cpuSeconds,
    vectors,
    details: `${library} ${result.version}, batch ${result.batchSize}`,
  };
}

/** docqa's ingestion path: `embedChunks` with the default `TransformersEmbeddings` (no cache). */
async function runDocqa(embeddings: TransformersEmbeddings, versions: DocumentVersion[]): Promise<Measured> {
  const { seconds, cpuSeconds } = await clocked(() => embedChunks(versions, embeddings));
  const vectors = versions.flatMap((version) => version.chunks.map((chunk) => chunk.embedding as Float32Array));
  return { chunksPerSecond: vectors.length / seconds, chunksPerCpuSecond: vectors.length / cpuSeconds, vectors, details: "" };
}

/** Embeds `texts` with `embed` in calls of `sliceSize` texts, clocked. */
async function runInSlices(
  embed: (slice: string[]) => Promise<readonly (readonly number[])[] | undefined>,
  texts: string[],
  sliceSize: number,
): Promise<Measured> {
  const {
    result: vectors,
    seconds,
    cpuSeconds,
  } = await clocked(async () => {
    const embedded: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += sliceSize) {
      for (const vector of (await embed(texts.slice(start, start + sliceSize))) ?? []) embedded.push(Float32Array.from(vector));
    }
    return embedded;
  });
  return { chunksPerSecond: texts.length / seconds, chunksPerCpuSecond: texts.length / cpuSeconds, vectors, details: "" };
}

/** docqa before token batching: the transformers.js pipeline, 16 texts per pass, 64 chunks per call in chunk order. */
function runPipeline(embeddings: TransformersEmbeddings, texts: string[]): Promise<Measured> {
  return runInSlices((slice) => embeddings.embedDocuments(slice), texts, 64);
}

/**
 * docqa's ingestion path: the worker pool (one thread per core, each model on its share of the
 * cores), fed in `embedChunks`'s slices of 256 texts; each slice is shared between the workers.
 */
async function runWorkers(model: LocalModel, texts: string[]): Promise<Measured> {
  const config = loadConfig({ ...modelEnvironment(model), EMBED_ALLOW_REMOTE: "false", EMBED_CACHE_MAX_ENTRIES: "0" });
  const executor = createWorkerPoolExecutor({ config, logger: silentLogger, refresh: async () => {}, threads });
  try {
    // Start every worker and load its model before the clock starts.
    await Promise.all(Array.from({ length: threads }, () => executor.embedDocuments(texts.slice(0, 8))));
    return await runInSlices((slice) => executor.embedDocuments(slice), texts, 256);
  } finally {
    await executor.close();
  }
}

function agreement(ours: readonly Float32Array[], theirs: readonly Float32Array[]): { minimum: number; mean: number; atLeast099: number } {
  const cosines = ours.map((vector, index) => {
    const other = theirs[index] as Float32Array;
    let dot = 0;
    for (let component = 0; component < vector.length; component++) dot += (vector[component] as number) * (other[component] as number);
    return dot;
  });
  return {
    minimum: Math.min(...cosines),
    mean: cosines.reduce((sum, value) => sum + value, 0) / cosines.length,
    atLeast099: cosines.filter((value) => value >= 0.99).length / cosines.length,
  };
}

/** Runs the comparison; empty when SciFact or the models are absent. */
export async function benchmarkEmbeddingThroughput(): Promise<BenchmarkRow[]> {
  if (!sharedDataPath("ir", "scifact")) {
    console.log("embedding throughput benchmark skipped: ../shared/data/ir/scifact is absent");
    return [];
  }
  const models = (process.env.BENCH_EMBED_MODELS ?? "all-MiniLM-L6-v2,bge-small-en-v1.5")
    .split(",")
    .map((name) => name.trim())
    .map((name) => findLocalModels([name]).find((model) => model.id.endsWith(name)))
    .filter((model): model is LocalModel => model !== undefined);
  if (models.length === 0) {
    console.log("embedding throughput benchmark skipped: no model under ../shared/data/models");
    return [];
  }
  const wanted = (process.env.BENCH_REFERENCES ?? "fastembed,sentence-transformers").split(",");
  const pythons = new Map<Library, string>();
  for (const library of ["fastembed", "sentence-transformers"] as const) {
    if (!wanted.includes(library)) continue;
    const python = pythonEnvironment(library);
    if (python) pythons.set(library, python);
  }
  const versions = await scifactChunks(1000);
  const texts = versions.flatMap((version) => version.chunks.map((chunk) => indexedText(chunk)));
  const textsFile = join(mkdtempSync(join(tmpdir(), "docqa-bench-embed-")), "chunks.jsonl");
  writeFileSync(textsFile, `${texts.map((text) => JSON.stringify({ text })).join("\n")}\n`);
  const label = `${texts.length} chunks of 1,000 SciFact abstracts, ${threads} threads`;
  console.log(`embedding throughput: ${label}, best of ${rounds} rounds`);

  const rows: BenchmarkRow[] = [];
  for (const model of models) {
    const settings = { modelName: model.id, localModelPath: model.root, allowRemote: false };
    const docqa = new TransformersEmbeddings(settings);
    const pipeline = new TransformersEmbeddings({ ...settings, engine: "pipeline" });
    await docqa.load();
    await pipeline.load();
    await docqa.embedDocuments(texts.slice(0, 8));
    await pipeline.embedDocuments(texts.slice(0, 8));
    // Best wall throughput and best CPU efficiency of each pipeline over the rounds.
    const best = new Map<string, Measured>();
    const keep = (name: string, measured: Measured) => {
      const previous = best.get(name);
      best.set(name, {
        ...(previous && previous.chunksPerSecond >= measured.chunksPerSecond ? previous : measured),
        chunksPerCpuSecond: Math.max(previous?.chunksPerCpuSecond ?? 0, measured.chunksPerCpuSecond),
      });
      console.log(
        `  ${model.id}: ${name} ${measured.chunksPerSecond.toFixed(1)} chunks/s, ${measured.chunksPerCpuSecond.toFixed(1)} chunks per CPU-second`,
      );
    };
    const fp32Root = fp32Weights(model);
    const shipped = fp32Root
      ? new TransformersEmbeddings({ ...settings, localModelPath: fp32Root, engine: "pipeline", dtype: "fp32" })
      : undefined;
    await shipped?.embedDocuments(texts.slice(0, 8));
    for (let round = 0; round < rounds; round++) {
      keep("docqa", await runDocqa(docqa, await scifactChunks(1000)));
      keep("docqa ingestion workers", await runWorkers(model, texts));
      for (const [library, python] of pythons) keep(library, runReference(python, library, model, textsFile, texts.length));
      keep("docqa before token batching", await runPipeline(pipeline, texts));
      if (shipped) keep("docqa before, fp32 weights", await runPipeline(shipped, texts));
    }
    const ours = best.get("docqa") as Measured;
    const figures = (measured: Measured, against: Measured) => ({
      "chunks/s": measured.chunksPerSecond,
      "chunks per CPU-s": measured.chunksPerCpuSecond,
      "CPU-efficiency ratio": measured.chunksPerCpuSecond / against.chunksPerCpuSecond,
    });
    const before = best.get("docqa before token batching") as Measured;
    rows.push({
      benchmark: `embedding throughput, ${label}`,
      configuration: `docqa, ${model.id} int8 (${docqa.dtype})`,
      figures: figures(ours, before),
      baseline: {
        name: `docqa before token batching, chunks/s (${before.chunksPerCpuSecond.toFixed(1)} per CPU-s)`,
        value: before.chunksPerSecond,
      },
      ratio: ours.chunksPerSecond / before.chunksPerSecond,
    });
    const workers = best.get("docqa ingestion workers") as Measured;
    const workersAgreement = agreement(workers.vectors, ours.vectors);
    rows.push({
      benchmark: `embedding throughput, ${label}`,
      configuration: `docqa ingestion workers (${threads} threads, data-parallel shares), ${model.id} int8; agreement with one thread: cosine min ${workersAgreement.minimum.toFixed(4)}`,
      figures: figures(workers, ours),
      baseline: { name: `docqa in one thread, chunks/s (${ours.chunksPerCpuSecond.toFixed(1)} per CPU-s)`, value: ours.chunksPerSecond },
      ratio: workers.chunksPerSecond / ours.chunksPerSecond,
    });
    const fp32 = best.get("docqa before, fp32 weights");
    if (fp32) {
      rows.push({
        benchmark: `embedding throughput, ${label}`,
        configuration: `docqa ingestion workers, ${model.id} int8, against docqa as shipped before (pipeline engine, fp32 weights${fp32Root === model.root ? "" : " of the fp32 twin"})`,
        figures: figures(workers, fp32),
        baseline: { name: `docqa before, fp32, chunks/s (${fp32.chunksPerCpuSecond.toFixed(1)} per CPU-s)`, value: fp32.chunksPerSecond },
        ratio: workers.chunksPerSecond / fp32.chunksPerSecond,
      });
    }
    for (const library of pythons.keys()) {
      const reference = best.get(library) as Measured;
      const agreed = agreement(ours.vectors, reference.vectors);
      rows.push({
        benchmark: `embedding throughput, ${label}`,
        configuration: `docqa, ${model.id} int8; agreement: cosine min ${agreed.minimum.toFixed(4)}, mean ${agreed.mean.toFixed(5)}, ${(agreed.atLeast099 * 100).toFixed(1)} % >= 0.99`,
        figures: figures(ours, reference),
        baseline: {
          name: `${reference.details}, chunks/s (${reference.chunksPerCpuSecond.toFixed(1)} per CPU-s)`,
          value: reference.chunksPerSecond,
        },
        ratio: ours.chunksPerSecond / reference.chunksPerSecond,
      });
    }
  }
  return rows;
}
