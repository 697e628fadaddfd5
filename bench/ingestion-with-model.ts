/**
 * `BENCH_ONLY=ingestion-model`: ingestion of ../shared/data/documents with an embedding model
 * (bge-small-en-v1.5 by default) against the embedding benchmark's throughput, in one run on the
 * same machine. Issue 27 asks that ingesting the folder reach at least 80 % of the chunks per
 * second that embedding alone reaches.
 *
 * - **Ingestion**: what `docqa ingest` runs (`createRagService` from the configuration, so the
 *   pool of ingestion worker threads; `ingestFiles` with `plan`), into a fresh data directory with
 *   an empty embedding cache and the default settings (RAPTOR on): loading, chunking, planning,
 *   embedding, summaries, the embedding cache, durable SQLite writes and the serving thread's
 *   replay of them. Chunks per second = distinct texts the model embedded (every chunk stored,
 *   RAPTOR summary nodes included: the model's whole work) per second of the whole job.
 * - **Embedding alone**: the same distinct texts, read back from the store, embedded by the
 *   same pool as the embedding benchmark's "docqa ingestion workers" row does
 *   (`bench/embedding-throughput.ts`: `IngestionExecutor.embedDocuments` in calls of 256, each
 *   shared between the workers), after the workers have loaded the model.
 *
 * Both are given per wall-clock second and per CPU-second of the process (all threads), the fair
 * figure on a machine shared with other work. `BENCH_DOCUMENTS` names another folder,
 * `BENCH_INGEST_MODEL` another model of ../shared/data/models.
 */
import { readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createRagService, loadConfig, silentLogger } from "@docqa/core";
import { createWorkerPoolExecutor, findFiles, ingestionThreads, supportedFormats } from "@docqa/core/ingestion";
import { indexedText } from "@docqa/core/stores";
import { findLocalModels, sharedDataPath } from "@docqa/core/testing";
import { modelEnvironment } from "./local-model.ts";
import type { BenchmarkRow } from "./statistics.ts";

/** Texts per call of the embedding-alone run: `embedChunks`'s slice, as the embedding benchmark feeds the workers. */
const sliceSize = 256;

interface Clocked<T> {
  result: T;
  seconds: number;
  cpuSeconds: number;
}

async function clocked<T>(work: () => Promise<T>): Promise<Clocked<T>> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** The distinct texts the model embedded for the organisation (chunks and summary nodes), from its SQLite file, and how many are summaries. */
function storedTexts(dataDir: string): { texts: string[]; summaries: number } {
  const file = readdirSync(dataDir).find((name) => name.endsWith(".sqlite") && name.startsWith("docs_collection"));
  if (!file) throw new Error(`no organisation file in ${dataDir}`);
  const database = new DatabaseSync(join(dataDir, file), { readOnly: true });
  try {
    const rows = database.prepare("SELECT title, text, metadata FROM chunks ORDER BY id").all() as {
      title: string;
      text: string;
      metadata: string;
    }[];
    const texts = [...new Set(rows.map((row) => indexedText(row)))];
    const summaries = new Set(
      rows
        .filter((row) => typeof (JSON.parse(row.metadata) as { raptor_level?: unknown }).raptor_level === "number")
        .map((row) => indexedText(row)),
    ).size;
    return { texts, summaries };
  } finally {
    database.close();
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

/** Runs the comparison; empty when the documents folder or the model is absent. */
export async function benchmarkIngestionWithModel(): Promise<BenchmarkRow[]> {
  const folder = process.env.BENCH_DOCUMENTS ?? sharedDataPath("documents");
  const model = findLocalModels([process.env.BENCH_INGEST_MODEL ?? "bge-small-en-v1.5"])[0];
  if (!folder || !model) {
    console.log("ingestion with a model skipped: ../shared/data/documents or the model is absent");
    return [];
  }
  const dataDir = join(tmpdir(), `docqa-bench-ingest-${process.pid}`);
  rmSync(dataDir, { recursive: true, force: true });
  const environment = { ...process.env, ...modelEnvironment(model), EMBED_ALLOW_REMOTE: "false", DATA_DIR: dataDir, LOG_LEVEL: "silent" };
  const config = loadConfig(environment);
  const { files } = await findFiles([folder], [...supportedFormats, "markdown", "ndjson", "jsonl"]);
  console.log(`ingestion with ${model.id}: ${files.length} files of ${folder}; load average ${load()}`);
  try {
    // Ingestion, as `docqa ingest` runs it.
    const service = createRagService({ config, logger: silentLogger });
    await service.ready();
    const ingestion = await clocked(() =>
      service.ingestFiles(
        {
          orgId: "bench",
          principal: { userName: "bench@example.org", roles: ["admin"], groups: [] },
          files: files.map((file) => ({ path: file.path, docId: file.relativePath })),
          metadata: { acl: "|user:_all_|", owner_id: "bench@example.org" },
        },
        { plan: true },
      ),
    );
    await service.close();
    const { texts, summaries } = storedTexts(dataDir);
    console.log(
      `  ingested ${ingestion.result.files.ingested} files (${ingestion.result.files.failed} rejected), ${texts.length} distinct texts embedded (${summaries} of them summary nodes) in ${ingestion.seconds.toFixed(1)} s (${ingestion.cpuSeconds.toFixed(0)} CPU-s); load average ${load()}`,
    );

    // Embedding alone: the same texts through the same pool, in the embedding benchmark's calls.
    const executor = createWorkerPoolExecutor({ config, logger: silentLogger, refresh: async () => {} });
    let embedding: Clocked<number>;
    try {
      const threads = ingestionThreads(config);
      await Promise.all(Array.from({ length: threads }, () => executor.embedDocuments(texts.slice(0, 8))));
      embedding = await clocked(async () => {
        let embedded = 0;
        for (let start = 0; start < texts.length; start += sliceSize) {
          embedded += ((await executor.embedDocuments(texts.slice(start, start + sliceSize))) ?? []).length;
        }
        return embedded;
      });
    } finally {
      await executor.close();
    }
    console.log(
      `  embedded the same ${embedding.result} texts alone in ${embedding.seconds.toFixed(1)} s (${embedding.cpuSeconds.toFixed(0)} CPU-s); load average ${load()}`,
    );

    const perSecond = { ingestion: texts.length / ingestion.seconds, embedding: embedding.result / embedding.seconds };
    const perCpuSecond = { ingestion: texts.length / ingestion.cpuSeconds, embedding: embedding.result / embedding.cpuSeconds };
    const name = `${model.id.split("/").at(-1)}, ${files.length} files, ${texts.length} chunks (${summaries} summary nodes)`;
    return [
      {
        benchmark: "ingestion with a model",
        configuration: `chunks/s: docqa ingest (workers, plan, RAPTOR, cache, SQLite), ${name}`,
        figures: { "chunks/s": perSecond.ingestion, seconds: ingestion.seconds },
        baseline: { name: "chunks/s embedding alone (the embedding benchmark's workers)", value: perSecond.embedding },
        ratio: perSecond.ingestion / perSecond.embedding,
      },
      {
        benchmark: "ingestion with a model",
        configuration: `chunks per CPU-second: docqa ingest, ${name}`,
        figures: { "chunks/cpu-s": perCpuSecond.ingestion, "cpu-s": ingestion.cpuSeconds },
        baseline: { name: "chunks per CPU-second embedding alone", value: perCpuSecond.embedding },
        ratio: perCpuSecond.ingestion / perCpuSecond.embedding,
      },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
