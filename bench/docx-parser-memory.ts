/**
 * DOCX parser memory (issue 24), `BENCH_ONLY=docx-memory npm run bench` after `npm run build`; a
 * few minutes. The figures behind the archive limits' defaults (`packages/core/src/ingestion/
 * loaders/archive-limits.ts`):
 *
 * 1. For each XML shape of `docx-parse-child.ts`, the smallest V8 old-generation heap
 *    (`resourceLimits.maxOldGenerationSizeMb`, with the pool's young generation) in which a worker
 *    thread completes `loadFile` on a DOCX with `BENCH_DOCX_MB` (default 2) MiB of XML, found by
 *    bisection to 3 %, less the heap the same worker needs for a one-paragraph DOCX: MiB of heap
 *    per MiB of XML. Beside it, the peak RSS growth of a child process doing the same load, per
 *    MiB of XML (RSS also counts garbage not yet collected, so it is the larger figure). Baseline:
 *    paragraphs of ordinary text.
 * 2. The archive cap derived from the worst shape and the default worker heap
 *    (`heap × docxParseHeapShare ÷ heap per byte`, whole MiB), against the committed constant.
 * 3. The check: a DOCX of the worst shape with as much XML as the committed cap allows loads in a
 *    worker under the default heap.
 * 4. A worker that runs out of heap (256 MiB, 4 MiB of empty paragraphs), in a fresh process,
 *    three runs: its RSS before, at its peak while the worker runs, 2 s and 15 s after it ended,
 *    and 2 s after a new worker has loaded a small document.
 * 5. Whether running out of heap ends the thread alone or aborts the whole process
 *    (nodejs/node#47224), with V8's default young generation and with the pool's
 *    (`workerYoungGenerationMegabytes`), `BENCH_DOCX_OOM_TRIALS` (default 8) runs of three cases
 *    each, every run in a child process of its own.
 */
import { fork } from "node:child_process";
import {
  archiveBytesForHeap,
  defaultWorkerHeapMegabytes,
  docxParseHeapPerXmlByte,
  docxParseHeapShare,
  workerYoungGenerationMegabytes,
} from "@docqa/core/ingestion";
import { loadInWorker, type ParseOutcome, shapes, type WorkerDeathOutcome } from "./docx-parse-child.ts";
import type { BenchmarkRow } from "./statistics.ts";

const mebibyte = 1024 * 1024;
const childUrl = new URL("./docx-parse-child.ts", import.meta.url);
const xmlMegabytes = Number(process.env.BENCH_DOCX_MB ?? 2);
const progress = (message: string) => process.stderr.write(`[docx-memory] ${message}\n`);

/** The smallest heap (MiB) in which the load completes, by bisection to 3 % (at least 4 MiB). */
async function smallestHeap(shape: string, bytes: number): Promise<number> {
  let low = 8;
  let high = Math.ceil(64 + (200 * bytes) / mebibyte);
  while (!(await loadInWorker(shape, bytes, high)).ok) {
    low = high;
    high *= 2;
  }
  while (high - low > Math.max(4, high * 0.03)) {
    const middle = Math.round((low + high) / 2);
    if ((await loadInWorker(shape, bytes, middle)).ok) high = middle;
    else low = middle;
  }
  return high;
}

/** Runs `docx-parse-child.ts` in a child process of its own with `args`; resolves with what it printed, parsed. */
function child<T>(args: string[], environment: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const process = fork(childUrl, args, {
      stdio: ["ignore", "pipe", "inherit", "ipc"],
      env: { ...globalThis.process.env, ...environment },
    });
    let output = "";
    process.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    process.on("exit", (code) => {
      try {
        resolve(JSON.parse(output) as T);
      } catch (error) {
        reject(new Error(`docx-parse-child ${args.join(" ")} exited with ${code} printing ${output} (${(error as Error).message})`));
      }
    });
  });
}

export async function benchmarkDocxParserMemory(): Promise<BenchmarkRow[]> {
  const rows: BenchmarkRow[] = [];
  const bytes = xmlMegabytes * mebibyte;
  const floor = await smallestHeap("text paragraphs", 100);
  progress(`a worker loading a one-paragraph DOCX needs ${floor} MiB of heap`);
  const perShape = new Map<string, { heapPerMebibyte: number; rssPerMebibyte: number }>();
  for (const shape of Object.keys(shapes)) {
    const heap = await smallestHeap(shape, bytes);
    const loaded = await child<ParseOutcome>(["--child", shape, String(bytes)]);
    const rss = loaded.maxRss - loaded.rssBefore;
    const figures = { heapPerMebibyte: (heap - floor) / xmlMegabytes, rssPerMebibyte: rss / mebibyte / xmlMegabytes };
    perShape.set(shape, figures);
    progress(`${shape}: smallest heap ${heap} MiB for ${xmlMegabytes} MiB of XML; child RSS growth ${(rss / mebibyte).toFixed(0)} MiB`);
  }
  const baseline = perShape.get("text paragraphs")?.heapPerMebibyte ?? Number.NaN;
  for (const [shape, figures] of perShape) {
    rows.push({
      benchmark: "DOCX parser memory",
      configuration: `${shape}, ${xmlMegabytes} MiB of XML`,
      figures: { "heap MiB per MiB of XML": figures.heapPerMebibyte, "child RSS growth MiB per MiB of XML": figures.rssPerMebibyte },
      baseline: { name: "heap MiB per MiB, text paragraphs", value: baseline },
      ratio: figures.heapPerMebibyte / baseline,
    });
  }
  const [worstShape, worst] = [...perShape].reduce((left, right) => (right[1].heapPerMebibyte > left[1].heapPerMebibyte ? right : left));
  const derived = Math.max(1, Math.floor((defaultWorkerHeapMegabytes * docxParseHeapShare) / worst.heapPerMebibyte));
  const committed = archiveBytesForHeap(defaultWorkerHeapMegabytes) / mebibyte;
  rows.push({
    benchmark: "DOCX parser memory",
    configuration: `archive cap for a ${defaultWorkerHeapMegabytes} MiB worker heap, share ${docxParseHeapShare}, worst shape ${worstShape}`,
    figures: {
      "derived cap MiB": derived,
      "measured heap per MiB": worst.heapPerMebibyte,
      "committed heap per MiB": docxParseHeapPerXmlByte,
    },
    baseline: { name: "committed cap MiB (archive-limits.ts)", value: committed },
    ratio: derived / committed,
  });

  // 3. The worst shape at the committed cap, under the default heap.
  const atCap = await loadInWorker(worstShape, committed * mebibyte - 200, defaultWorkerHeapMegabytes);
  progress(
    `${worstShape} at the committed cap (${committed} MiB) under ${defaultWorkerHeapMegabytes} MiB: ${atCap.ok ? "loaded" : atCap.error}`,
  );
  rows.push({
    benchmark: "DOCX parser memory",
    configuration: `${worstShape}, ${committed} MiB of XML (the cap), worker heap ${defaultWorkerHeapMegabytes} MiB`,
    figures: { "loaded (1 = yes)": atCap.ok ? 1 : 0 },
  });

  // 4. A worker that runs out of heap, and its replacement, in a fresh process, three times (the
  // dead worker's heap goes back at once or when V8 releases its pooled pages, about 8 s later).
  const inMebibytes = (value: number) => value / mebibyte;
  for (let run = 1; run <= 3; run++) {
    const death = await child<WorkerDeathOutcome>(["--worker-death", "256", String(4 * mebibyte)]);
    rows.push({
      benchmark: "DOCX parser memory",
      configuration: `process RSS (MiB) around a worker that runs out of its 256 MiB heap, then a new worker's load; run ${run}`,
      figures: {
        peak: inMebibytes(death.peak),
        "2 s after it ended": inMebibytes(death.afterDeath),
        "15 s after": inMebibytes(death.settled),
        "after the new worker": inMebibytes(death.afterReplacement),
        "died (1 = yes)": death.died ? 1 : 0,
        "replaced (1 = yes)": death.replaced ? 1 : 0,
      },
      baseline: { name: "before", value: inMebibytes(death.before) },
      ratio: death.settled / death.before,
    });
  }
  // 5. Running out of heap: does Node end the thread alone, or abort the process? With V8's
  // default young generation and with the pool's, BENCH_DOCX_OOM_TRIALS runs (default 8) per case.
  const trials = Number(process.env.BENCH_DOCX_OOM_TRIALS ?? 8);
  const cases = [
    ["empty paragraphs", 2, 64],
    ["empty paragraphs", 4, 256],
    ["text paragraphs", 8, 128],
  ] as const;
  for (const young of ["default", String(workerYoungGenerationMegabytes)]) {
    let aborted = 0;
    let ended = 0;
    for (const [shape, megabytes, heap] of cases) {
      for (let trial = 0; trial < trials; trial++) {
        const outcome = await outOfHeapTrial([shape, String(megabytes * mebibyte), String(heap), young]);
        if (outcome === "thread") ended++;
        else aborted++;
      }
    }
    progress(`young generation ${young}: ${ended} threads ended alone, ${aborted} processes aborted`);
    rows.push({
      benchmark: "DOCX parser memory",
      configuration: `a worker out of heap (${cases.map(([shape, megabytes, heap]) => `${megabytes} MiB of ${shape} in ${heap} MiB`).join("; ")}), young generation ${young === "default" ? "V8's default" : `${young} MiB`}`,
      figures: { runs: ended + aborted, "process aborted": aborted, "thread ended alone": ended },
    });
  }
  return rows;
}

/** One `--out-of-heap` trial in a child process: `thread` when the thread ended alone, `aborted` when the process died. */
function outOfHeapTrial(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const process = fork(childUrl, ["--out-of-heap", ...args], { stdio: ["ignore", "pipe", "ignore", "ipc"] });
    let output = "";
    process.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    process.on("exit", (code, signal) => resolve(signal === "SIGABRT" || code === 134 ? "aborted" : output.trim()));
  });
}
