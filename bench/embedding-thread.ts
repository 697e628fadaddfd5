/**
 * Answering with a model, the serving thread's event loop with the forward passes in the serving
 * thread (`EMBED_WORKER=false`, the baseline) and in the embedding thread (`EMBED_WORKER=true`,
 * the default; `packages/core/src/threads/model-thread.ts`), in the same run
 * (`BENCH_ONLY=embedding-thread`). Each configuration is a service over the first 300 SciFact
 * abstracts with the local model (bge-small when present), answering SciFact's questions two at a time
 * for `BENCH_THREAD_SECONDS` (default 20) after a warm-up. Figures: the event-loop delay
 * (`monitorEventLoopDelay`, 1 ms resolution), how late a 10 ms timer fires (what any other request
 * waits), and `predict` latency and throughput.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createRagService, loadConfig } from "@docqa/core";
import { sharedDataPath } from "@docqa/core/testing";
import { benchmarkModel, modelEnvironment } from "./local-model.ts";
import { type BenchmarkRow, comparedRow, percentile } from "./statistics.ts";

const seconds = Number(process.env.BENCH_THREAD_SECONDS ?? 20);
const principal = { userName: "bench@example.org", roles: ["admin"], groups: [] };

interface Measured {
  loopDelayP99: number;
  loopDelayMax: number;
  timerLateP99: number;
  predictP50: number;
  predictP99: number;
  predictsPerSecond: number;
}

async function measure(environment: Record<string, string>, corpus: string[], questions: string[]): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-thread-"));
  const service = createRagService({ config: loadConfig({ ...environment, DATA_DIR: dataDir, LOG_LEVEL: "error" }) });
  try {
    const documents = Object.fromEntries(
      corpus.map((line) => {
        const record = JSON.parse(line) as { _id: string; title: string; text: string };
        return [record._id, { title: record.title, content: record.text }];
      }),
    );
    await service.upsert({ orgId: "bench", principal, uploader: principal.userName, documents });
    for (const query of questions.slice(0, 5)) await service.predict({ orgId: "bench", principal, query });

    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const late: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      late.push(now - last - 10);
      last = now;
    }, 10);
    const latencies: number[] = [];
    let next = 0;
    const end = performance.now() + seconds * 1000;
    const ask = async () => {
      while (performance.now() < end) {
        const query = questions[next++ % questions.length] as string;
        const started = performance.now();
        await service.predict({ orgId: "bench", principal, query });
        latencies.push(performance.now() - started);
      }
    };
    await Promise.all([ask(), ask()]);
    clearInterval(timer);
    delay.disable();
    return {
      loopDelayP99: delay.percentile(99) / 1e6,
      loopDelayMax: delay.max / 1e6,
      timerLateP99: percentile(late, 99),
      predictP50: percentile(latencies, 50),
      predictP99: percentile(latencies, 99),
      predictsPerSecond: latencies.length / seconds,
    };
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs both configurations; empty when SciFact or a model is absent. */
export async function benchmarkEmbeddingThread(): Promise<BenchmarkRow[]> {
  const model = benchmarkModel("embedding thread");
  const scifact = sharedDataPath("ir", "scifact");
  if (!model || !scifact) return [];
  const corpus = readFileSync(join(scifact, "corpus.jsonl"), "utf8").split("\n").filter(Boolean).slice(0, 300);
  const questions = readFileSync(join(scifact, "queries.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { text: string }).text);
  const environment = { ...modelEnvironment(model), RAG_LLM_PROVIDER: "extractive" };
  const inServingThread = await measure({ ...environment, EMBED_WORKER: "false" }, corpus, questions);
  const inEmbeddingThread = await measure({ ...environment, EMBED_WORKER: "true" }, corpus, questions);
  const benchmark = `answering with ${model.id}, 2 questions at a time for ${seconds} s`;
  const row = (name: string, key: keyof Measured): BenchmarkRow =>
    comparedRow(
      benchmark,
      name,
      { label: "embedding thread (EMBED_WORKER=true)", value: inEmbeddingThread[key] },
      { label: "in the serving thread (EMBED_WORKER=false)", value: inServingThread[key] },
    );
  return [
    row("event-loop delay p99 ms", "loopDelayP99"),
    row("event-loop delay max ms", "loopDelayMax"),
    row("10 ms timer late by p99 ms", "timerLateP99"),
    row("predict p50 ms", "predictP50"),
    row("predict p99 ms", "predictP99"),
    row("predicts/s", "predictsPerSecond"),
  ];
}
