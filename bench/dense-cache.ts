/**
 * Answering with the dense-signal cache off (`DENSE_CACHE_ENTRIES=0`, the baseline) and on (the
 * default), in the same run (`BENCH_ONLY=dense-cache`). Two services over the paragraphs of the
 * shared SQuAD v2 dev set (2 articles, 87 paragraphs, 626 questions, many per paragraph) answer
 * the same stream: `BENCH_DENSE_QUESTIONS` (default 200) of its questions in a fixed shuffled
 * order, one at a time, each question answered by the two services in turn so that both see the
 * same load. The cache starts empty but for two warm-up questions' passages. Figures: questions/s (questions over the summed latency),
 * `predict` p50/p95, the `decide-answerable` stage's p50 (where the dense signal is computed), the
 * cache hit rate (1 − passages embedded with the cache / without it, from the services' `embedded`
 * events), answers correct (an unanswerable question abstained, or a gold answer in the callout),
 * and how many answers differ between the two. The model: `BENCH_DENSE_MODEL` (a model id under
 * ../shared/data/models or $DOCQA_MODELS_DIR), default `Xenova/all-MiniLM-L6-v2`, with the
 * extractive answerer. `BENCH_DENSE_ENTRIES` sets the cached service's `DENSE_CACHE_ENTRIES`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, type PredictResult, type RagService } from "@docqa/core";
import type { ServiceMetrics } from "@docqa/core/telemetry";
import { findLocalModels, sharedDataPath } from "@docqa/core/testing";
import { modelEnvironment } from "./local-model.ts";
import { type BenchmarkRow, comparedRow, percentile } from "./statistics.ts";

const questionCount = Number(process.env.BENCH_DENSE_QUESTIONS ?? 200);
const modelId = process.env.BENCH_DENSE_MODEL ?? "Xenova/all-MiniLM-L6-v2";
/** `DENSE_CACHE_ENTRIES` of the cached service; default the setting's default. */
const cacheEntries = process.env.BENCH_DENSE_ENTRIES;
const principal = { userName: "bench@example.org", roles: ["admin"], groups: [] };

/** A service and what its metric events counted since the stream began. */
interface Measured {
  service: RagService;
  dataDir: string;
  latencies: number[];
  denseStage: number[];
  passagesEmbedded: number;
  counting: boolean;
}

async function start(
  environment: Record<string, string>,
  documents: Record<string, { title: string; content: string }>,
): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-dense-"));
  const measured: Measured = { service: undefined as never, dataDir, latencies: [], denseStage: [], passagesEmbedded: 0, counting: false };
  const metrics: ServiceMetrics = {
    embedded: (event) => {
      if (measured.counting && event.operation === "documents" && event.outcome === "ok") measured.passagesEmbedded += event.texts;
    },
    stage: (event) => {
      if (measured.counting && event.stage === "decide-answerable") measured.denseStage.push(event.seconds * 1000);
    },
  };
  measured.service = createRagService({ config: loadConfig({ ...environment, DATA_DIR: dataDir, LOG_LEVEL: "error" }), metrics });
  await measured.service.upsert({ orgId: "bench", principal, uploader: principal.userName, documents });
  return measured;
}

async function ask(measured: Measured, query: string): Promise<PredictResult> {
  const started = performance.now();
  const result = await measured.service.predict({ orgId: "bench", principal, query });
  measured.latencies.push(performance.now() - started);
  return result;
}

/** A question of the SQuAD v2 set's `questions.jsonl`. */
interface SquadQuestion {
  question: string;
  answers: string[];
  is_impossible: boolean;
}

/** Abstained on an unanswerable question, or a gold answer in the callout of an answerable one (as `docqa eval`'s "gold in callout"). */
function isCorrect(question: SquadQuestion, result: PredictResult): boolean {
  if (question.is_impossible) return result.abstained;
  const callout = result.answer.callout_answer.toLowerCase();
  return !result.abstained && question.answers.some((answer) => callout.includes(answer.toLowerCase()));
}

/** A fixed pseudo-random permutation (mulberry32), so every run asks in the same order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/** Runs both configurations; empty when the SQuAD set or the model is absent. */
export async function benchmarkDenseCache(): Promise<BenchmarkRow[]> {
  const model = findLocalModels([modelId]).find((candidate) => candidate.id === modelId);
  const squad = sharedDataPath("qa", "squad-v2-dev-2articles");
  if (!model || !squad) {
    console.log(`dense cache: skipped (${model ? "no SQuAD v2 set under ../shared/data/qa" : `model ${modelId} not found`})`);
    return [];
  }
  const read = (file: string) =>
    readFileSync(join(squad, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, string>);
  const documents = Object.fromEntries(
    read("contexts.jsonl").map((record) => [record._id as string, { title: record.title as string, content: record.text as string }]),
  );
  const questions = shuffled(read("questions.jsonl"), 17).slice(0, questionCount) as unknown as SquadQuestion[];
  const environment = { ...modelEnvironment(model), RAG_LLM_PROVIDER: "extractive" };
  const off = await start({ ...environment, DENSE_CACHE_ENTRIES: "0" }, documents);
  const on = await start(cacheEntries ? { ...environment, DENSE_CACHE_ENTRIES: cacheEntries } : environment, documents);
  try {
    // Warm-up (model load, first forward passes) with two questions outside the stream; their
    // passages stay in the cache.
    for (const query of ["Who ruled the duchy?", "What is a prime number?"]) for (const measured of [off, on]) await ask(measured, query);
    const cached = on;
    let differing = 0;
    const correct = new Map<Measured, number>([
      [off, 0],
      [cached, 0],
    ]);
    for (const measured of [off, cached]) {
      measured.latencies = [];
      measured.denseStage = [];
      measured.counting = true;
    }
    const started = performance.now();
    for (const question of questions) {
      const [without, withCache] = [await ask(off, question.question), await ask(cached, question.question)];
      if (JSON.stringify(without.answer) !== JSON.stringify(withCache.answer) || without.abstained !== withCache.abstained) differing++;
      if (isCorrect(question, without)) correct.set(off, (correct.get(off) as number) + 1);
      if (isCorrect(question, withCache)) correct.set(cached, (correct.get(cached) as number) + 1);
    }
    const wall = (performance.now() - started) / 1000;
    const figures = (measured: Measured) => ({
      perSecond: measured.latencies.length / (measured.latencies.reduce((sum, value) => sum + value, 0) / 1000),
      p50: percentile(measured.latencies, 50),
      p95: percentile(measured.latencies, 95),
      stageP50: percentile(measured.denseStage, 50),
      correct: correct.get(measured) as number,
    });
    const [baseline, cache] = [figures(off), figures(cached)];
    const hitRate = 1 - cached.passagesEmbedded / off.passagesEmbedded;
    const benchmark = `answering ${questions.length} SQuAD v2 questions over its 87 paragraphs with ${model.id} (extractive), ${wall.toFixed(0)} s`;
    const row = (name: string, key: keyof typeof baseline): BenchmarkRow =>
      comparedRow(
        benchmark,
        name,
        { label: `dense cache on (DENSE_CACHE_ENTRIES=${cacheEntries ?? "default"})`, value: cache[key] },
        { label: "with the cache off (DENSE_CACHE_ENTRIES=0)", value: baseline[key] },
      );
    return [
      row("questions/s", "perSecond"),
      row("predict p50 ms", "p50"),
      row("predict p95 ms", "p95"),
      row("decide-answerable p50 ms", "stageP50"),
      row("answers correct", "correct"),
      {
        benchmark,
        configuration: "dense cache on",
        figures: {
          "hit rate": hitRate,
          "passages embedded": cached.passagesEmbedded,
          "passages embedded without the cache": off.passagesEmbedded,
          "answers differing": differing,
        },
      },
    ];
  } finally {
    for (const measured of [off, on]) {
      await measured.service.close().catch(() => {});
      rmSync(measured.dataDir, { recursive: true, force: true });
    }
  }
}
