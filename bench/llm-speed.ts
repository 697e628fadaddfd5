/**
 * The in-process language model against the model's own speed limit (`BENCH_ONLY=llm`), in one run
 * on one machine: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (`npm run models:test-llm`), 2 threads.
 *
 * - Baseline: llama.cpp's `llama-bench` on the same file and threads (`-p 512 -n 128 -r 3`): prompt
 *   processing and generation tokens/s, built by `scripts/services/start-llama-server.sh --build-only`.
 * - docqa, through `ChatLlamaCpp` (the provider `RAG_LLM_PROVIDER=llama-cpp` builds): generation
 *   tokens/s of free text (128 tokens, like `tg128`) and of the Answer JSON under its grammar (the
 *   answer prompt over a handbook of the test set), one call at a time.
 * - Overhead before the first token: time from the call to the first generated text, minus
 *   llama-bench's time to a first token after as many prompt tokens (`-p <tokens> -n 1`: a batch of
 *   that size, then one generated token).
 * - The same through `service.predict` (BM25 retrieval, the pipeline, the answer prompt): time from
 *   the call to the first token, minus llama-bench's time to a first token after the answer call's
 *   prompt tokens.
 * - Event-loop delay (`monitorEventLoopDelay`, 1 ms resolution) while two answers generate at once,
 *   against the delay of the idle process over the same time.
 * Targets (issue 25): generation ≥ 0.9 × llama-bench; overhead ≤ 50 ms; event-loop p99 < 20 ms.
 * Measure on a quiet machine: `uptime` is printed before and after.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { chatModelFromConfig, createRagService, resolveConfig } from "@docqa/core";
import {
  answerJsonSchema,
  answerMessages,
  ChatLlamaCpp,
  LlamaCppRuntime,
  type LocalGeneration,
  sharedLlamaCppRuntime,
  toLocalMessage,
} from "@docqa/core/answering";
import { testLanguageModelPath } from "@docqa/core/testing";
import { type BenchmarkRow, comparedRow, percentile } from "./statistics.ts";

const threads = 2;
const repetitions = Number(process.env.BENCH_LLM_REPETITIONS ?? 3);
const principal = { userName: "bench@example.org", roles: ["admin"], groups: [] };

/** llama-bench's figures: tokens/s of prompt processing (pp512) and generation (tg128). */
interface LlamaBenchFigures {
  promptTokensPerSecond: number;
  generationTokensPerSecond: number;
  build: string;
}

function llamaBench(modelPath: string): LlamaBenchFigures {
  const binaries = execFileSync("scripts/services/start-llama-server.sh", ["--build-only"], { encoding: "utf8" }).trim();
  const output = execFileSync(
    join(binaries, "llama-bench"),
    ["-m", modelPath, "-t", String(threads), "-p", "512", "-n", "128", "-r", "3", "-o", "json"],
    { encoding: "utf8", maxBuffer: 16 * 2 ** 20 },
  );
  const runs = JSON.parse(output) as { n_prompt: number; n_gen: number; avg_ts: number; build_commit?: string; build_number?: number }[];
  const prompt = runs.find((run) => run.n_prompt > 0 && run.n_gen === 0);
  const generation = runs.find((run) => run.n_gen > 0 && run.n_prompt === 0);
  if (!prompt || !generation) throw new Error(`unexpected llama-bench output: ${output}`);
  return {
    promptTokensPerSecond: prompt.avg_ts,
    generationTokensPerSecond: generation.avg_ts,
    build: `${generation.build_number ?? "?"} (${generation.build_commit ?? "?"})`,
  };
}

/**
 * The model's own time to a first token after `tokens` new prompt tokens, from llama-bench on the
 * same file and threads (`-p <tokens> -n 1`): the prompt processed as one batch of that size plus
 * one generated token, in ms. A batch of a few tokens is processed at about the generation rate,
 * not at pp512's (about 33 tokens/s for 10 tokens against 86 for 512 here), so the baseline is
 * measured at the batch size the call evaluated. Memoised per size.
 */
const firstTokenBaselines = new Map<number, number>();
function modelFirstTokenMs(modelPath: string, tokens: number): number {
  const known = firstTokenBaselines.get(tokens);
  if (known !== undefined) return known;
  const binaries = execFileSync("scripts/services/start-llama-server.sh", ["--build-only"], { encoding: "utf8" }).trim();
  const output = execFileSync(
    join(binaries, "llama-bench"),
    ["-m", modelPath, "-t", String(threads), "-p", String(tokens), "-n", "1", "-r", "3", "-o", "json"],
    { encoding: "utf8", maxBuffer: 16 * 2 ** 20 },
  );
  const runs = JSON.parse(output) as { n_prompt: number; n_gen: number; avg_ts: number }[];
  const prompt = runs.find((run) => run.n_prompt > 0 && run.n_gen === 0);
  const generation = runs.find((run) => run.n_gen > 0 && run.n_prompt === 0);
  if (!prompt || !generation) throw new Error(`unexpected llama-bench output: ${output}`);
  const ms = (1000 * tokens) / prompt.avg_ts + 1000 / generation.avg_ts;
  firstTokenBaselines.set(tokens, ms);
  return ms;
}

/** Tokens/s after the first text: generation speed, without the prompt. */
const generationRate = (generation: LocalGeneration) =>
  (generation.outputTokens - 1) / ((generation.totalMs - (generation.firstTextMs ?? 0)) / 1000);

const median = (values: number[]) => percentile(values, 50);

/** A handbook of short policies, long enough for a realistic answer prompt (about 600 tokens). */
const handbook: Record<string, { title: string; content: string }> = {
  vacation: {
    title: "Vacation policy",
    content:
      "Full-time employees receive 25 vacation days per calendar year; part-time employees receive a share in proportion to their contracted hours. Unused vacation days may be carried over until March 31 of the following year, after which they expire. Requests go to the line manager at least two weeks in advance; requests for more than ten consecutive days need four weeks' notice.",
  },
  travel: {
    title: "Travel policy",
    content:
      "Travel expenses must be submitted within 30 days of the trip, with receipts for every item above 10 euros. Economy class is the default for flights under six hours; business class needs the approval of a director. Hotel costs are reimbursed up to 150 euros per night in most cities and up to 220 euros in London, Paris, New York and Tokyo.",
  },
  remote: {
    title: "Remote work",
    content:
      "Employees may work remotely up to three days per week after their probation period. Equipment for the home office (a monitor, a chair and a headset) is provided once every four years. Remote work from another country is limited to 20 working days per year because of tax and insurance rules.",
  },
  sick: {
    title: "Sick leave",
    content:
      "Sick leave of up to three days needs no medical certificate; from the fourth day a certificate from a doctor is required. Sick days do not reduce the vacation allowance. Employees who fall ill during their vacation get those days back when they present a certificate.",
  },
};

/** Questions with distinct wording, so that each prompt is evaluated anew (no cached prefix beyond the system prompt). */
const questions = [
  "How many vacation days do full-time employees get, and when do unused days expire?",
  "What is the hotel limit for a trip to Paris?",
  "How often is home office equipment provided?",
  "From which day of sick leave is a medical certificate needed?",
  "How much notice does a request for twelve consecutive vacation days need?",
  "Which class may employees fly for a four-hour flight?",
];

function contextText(): string {
  return Object.values(handbook)
    .map((document, index) => `[Source: doc_${index + 1}] ${document.title}\n${document.content}`)
    .join("\n\n");
}

export async function benchmarkLlmSpeed(): Promise<BenchmarkRow[]> {
  const modelPath = testLanguageModelPath("qwen2.5-coder-1.5b");
  if (!modelPath) {
    console.log("llm: skipped (no .models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf: run npm run models:test-llm)");
    return [];
  }
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(", ");
  console.log(`llm: load average before: ${load()}`);
  // llama-bench runs before and after docqa's measurements, and the baseline is the mean of both,
  // so that a change of the machine's load during the run affects both sides alike.
  const before = llamaBench(modelPath);
  const baseline: LlamaBenchFigures = { ...before };
  const promptMs = (tokens: number) => (1000 * tokens) / baseline.promptTokensPerSecond;

  const runtime = new LlamaCppRuntime({ modelPath, threads, sequences: 2, queueSize: 4, contextSize: 4096 });
  const rows: BenchmarkRow[] = [];
  const answersMeasured: LocalGeneration[] = [];
  try {
    await runtime.load();
    const model = new ChatLlamaCpp({ runtime, maxTokens: 128 });
    // Free text of exactly 128 tokens, like tg128: a request the model does not finish early.
    const freeText: LocalGeneration[] = [];
    for (let index = 0; index < repetitions + 1; index++) {
      const generation = await runtime.generate({
        messages: [{ role: "user", content: `Write a long essay about the history of lighthouses, part ${index + 1}.` }],
        maxTokens: 128,
        temperature: 0,
      });
      if (index > 0) freeText.push(generation);
    }
    rows.push(generationRow("docqa in process, free text, 128 tokens", freeText.map(generationRate), baseline));

    // The Answer JSON under its grammar, one call at a time: generation speed and first-token overhead.
    const answers: LocalGeneration[] = [];
    for (const question of questions.slice(0, repetitions + 1)) {
      const messages = answerMessages({ question, contextText: contextText() }).map(toLocalMessage);
      answers.push(await runtime.generate({ messages, jsonSchema: answerJsonSchema, maxTokens: 512, temperature: 0 }));
    }
    const measured = answers.slice(1);
    rows.push(generationRow("docqa in process, Answer JSON with its grammar", measured.map(generationRate), baseline));
    answersMeasured.push(...measured);
    rows.push(firstTokenRow(measured, modelPath, promptMs));

    // Event-loop delay while two answers generate at once, against the idle process.
    const idle = monitorEventLoopDelay({ resolution: 1 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    idle.disable();
    const busy = monitorEventLoopDelay({ resolution: 1 });
    busy.enable();
    const pair = await Promise.all(
      questions
        .slice(0, 2)
        .map((question) =>
          model
            .withStructuredOutput(answerJsonSchema)
            .invoke(answerMessages({ question: `${question} Please answer briefly.`, contextText: contextText() })),
        ),
    );
    busy.disable();
    if (pair.length !== 2) throw new Error("two answers expected");
    rows.push({
      ...comparedRow(
        "llm event loop (two answers at once)",
        "event-loop delay p99 ms",
        { label: "docqa in process, two structured answers generating", value: busy.percentile(99) / 1e6 },
        { label: "idle process", value: idle.percentile(99) / 1e6 },
      ),
      figures: { "event-loop delay p99 ms": busy.percentile(99) / 1e6, "max ms": busy.max / 1e6 },
    });
  } finally {
    await runtime.dispose();
  }
  const after = llamaBench(modelPath);
  for (const [label, figures] of [
    ["before", before],
    ["after", after],
  ] as const) {
    console.log(
      `llm: llama-bench ${label} (build ${figures.build}, ${threads} threads): pp512 ${figures.promptTokensPerSecond.toFixed(1)} tok/s, tg128 ${figures.generationTokensPerSecond.toFixed(1)} tok/s`,
    );
  }
  baseline.promptTokensPerSecond = (before.promptTokensPerSecond + after.promptTokensPerSecond) / 2;
  baseline.generationTokensPerSecond = (before.generationTokensPerSecond + after.generationTokensPerSecond) / 2;
  for (const row of rows) {
    if (row.baseline?.name.includes("llama-bench tg128")) {
      row.baseline.value = baseline.generationTokensPerSecond;
      row.ratio = (Object.values(row.figures)[0] as number) / baseline.generationTokensPerSecond;
    }
  }
  // The first-token overheads above used the "before" prompt rate; recomputed with the mean.
  for (const row of rows) {
    if (row.benchmark === "llm first token (answer prompt)") Object.assign(row, firstTokenRow(answersMeasured, modelPath, promptMs));
  }

  rows.push(...(await servicePredict(modelPath)));
  const served = await serverGeneration(baseline);
  if (served) rows.push(served);
  console.log(`llm: load average after: ${load()}`);
  return rows;
}

/**
 * docqa's openai provider on `llama-server` (`DOCQA_TEST_LLAMA_SERVER_URL`, from
 * `scripts/services/start-llama-server.sh` and `source scripts/services/env.sh`; skipped without
 * it): free text of 128 tokens streamed through the chat model `chatModelFromConfig` builds, tokens/s
 * after the first streamed piece (pieces counted; the server streams one token a piece), against
 * llama-bench's tg128 of the same run. The server must run the same model file with 2 threads.
 */
async function serverGeneration(baseline: LlamaBenchFigures): Promise<BenchmarkRow | undefined> {
  const url = process.env.DOCQA_TEST_LLAMA_SERVER_URL;
  if (!url) {
    console.log(
      "llm: llama-server row skipped (no DOCQA_TEST_LLAMA_SERVER_URL: start-llama-server.sh, then source scripts/services/env.sh)",
    );
    return undefined;
  }
  const config = resolveConfig({
    models: {
      provider: "openai",
      hostedBaseUrl: `${url}/v1`,
      hostedApiKey: "none",
      generatorModel: "qwen2.5-coder-1.5b-instruct",
    },
  });
  const choice = await chatModelFromConfig(config);
  if (choice.status !== "ready") throw new Error(`llama-server chat model not ready: ${JSON.stringify(choice)}`);
  // 128 tokens like tg128 (the provider itself sets no limit: the Answer's own length bounds it).
  Object.assign(choice.model, { maxTokens: 128 });
  const rates: number[] = [];
  for (let index = 0; index < repetitions + 1; index++) {
    const started = performance.now();
    let first: number | undefined;
    let pieces = 0;
    const stream = await choice.model.stream([["user", `Write a long essay about the history of lighthouses, part ${index + 1}.`]]);
    for await (const chunk of stream) {
      if (typeof chunk.content !== "string" || chunk.content === "") continue;
      pieces++;
      first ??= performance.now();
    }
    const elapsed = (performance.now() - (first ?? started)) / 1000;
    if (index > 0 && pieces > 1) rates.push((pieces - 1) / elapsed);
  }
  return generationRow("docqa openai provider on llama-server, free text, 128 tokens", rates, baseline);
}

/** A generation-speed row: the median of `rates` (tokens/s) against llama-bench's tg128. */
function generationRow(label: string, rates: number[], baseline: LlamaBenchFigures): BenchmarkRow {
  return comparedRow(
    "llm generation (2 threads)",
    "tok/s",
    { label, value: median(rates) },
    { label: "llama-bench tg128", value: baseline.generationTokensPerSecond },
  );
}

/**
 * The first-token row of the answer generations: time to first token minus the model's own time to
 * a first token after as many new prompt tokens ({@link modelFirstTokenMs}); the pp512-rate figure
 * of earlier runs is printed beside it.
 */
function firstTokenRow(measured: LocalGeneration[], modelPath: string, promptMs: (tokens: number) => number): BenchmarkRow {
  const overheads = measured.map(
    (generation) => (generation.firstTextMs ?? Number.NaN) - modelFirstTokenMs(modelPath, generation.inputTokens),
  );
  const first = measured[0] as LocalGeneration;
  return {
    benchmark: "llm first token (answer prompt)",
    configuration: `docqa in process: time to first token minus llama-bench's time to a first token after as many prompt tokens (${first.inputTokens} evaluated)`,
    figures: {
      "overhead ms p50": median(overheads),
      "overhead ms max": Math.max(...overheads),
      "first token ms p50": median(measured.map((generation) => generation.firstTextMs ?? Number.NaN)),
      "overhead ms p50 against the pp512 rate": median(
        measured.map((generation) => (generation.firstTextMs ?? Number.NaN) - promptMs(generation.inputTokens)),
      ),
    },
    baseline: { name: `llama-bench first token ms (pp${first.inputTokens} + tg1)`, value: modelFirstTokenMs(modelPath, first.inputTokens) },
  };
}

/**
 * `service.predict` with `RAG_LLM_PROVIDER=llama-cpp`: time from the call to the first token,
 * minus the model's own time to a first token after the answer call's evaluated prompt tokens
 * ({@link modelFirstTokenMs}).
 */
async function servicePredict(modelPath: string): Promise<BenchmarkRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-llm-"));
  const config = resolveConfig({
    stores: { dataDir },
    logging: { level: "error" },
    ingestion: { useRaptor: false },
    embeddings: { provider: "none" },
    models: { provider: "llama-cpp", localModelPath: modelPath, localThreads: threads, numPredict: 512 },
  });
  const service = createRagService({ config, embeddings: null });
  // The service's model: the shared runtime of these settings; its generations are recorded here.
  const runtime = sharedLlamaCppRuntime({
    modelPath,
    threads,
    sequences: config.models.localSequences,
    queueSize: config.models.localQueueSize,
    contextSize: config.models.numCtx ?? 8192,
  });
  const generations: LocalGeneration[] = [];
  const generate = runtime.generate.bind(runtime);
  runtime.generate = async (request) => {
    const generation = await generate(request);
    generations.push(generation);
    return generation;
  };
  try {
    await service.upsert({ orgId: "bench", principal, uploader: principal.userName, documents: handbook });
    await runtime.load();
    // Warm-up: loads the grammar and the system prompt into a sequence.
    await service.predict({ orgId: "bench", principal, query: questions[0] as string });
    const overheads: number[] = [];
    const firsts: number[] = [];
    for (const query of questions.slice(1, repetitions + 1)) {
      generations.length = 0;
      const started = performance.now();
      let first: number | undefined;
      await service.predict({
        orgId: "bench",
        principal,
        query,
        onToken: () => {
          first ??= performance.now() - started;
        },
      });
      const answer = generations.at(-1);
      if (first === undefined || !answer) continue;
      firsts.push(first);
      overheads.push(first - modelFirstTokenMs(modelPath, answer.inputTokens));
    }
    if (overheads.length === 0) {
      console.log("llm: service.predict reached the model in none of the questions (no token streamed)");
      return [];
    }
    return [
      {
        benchmark: "llm first token (service.predict)",
        configuration:
          "BM25 retrieval + pipeline + answer call: time to first token minus llama-bench's time to a first token after the answer call's prompt tokens",
        figures: { "overhead ms p50": median(overheads), "overhead ms max": Math.max(...overheads), "first token ms p50": median(firsts) },
      },
    ];
  } finally {
    await service.close();
    await runtime.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
