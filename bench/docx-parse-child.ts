/**
 * One DOCX load for `docx-parser-memory.ts`, run in a worker thread (to find the smallest heap it
 * completes in) or in a child process of its own (`--child <shape> <bytes>`, to read its peak
 * RSS): builds a DOCX whose main part holds about `bytes` bytes of XML of one shape, then loads it
 * with `loadFile` (mammoth and the section split, the archive limits raised out of the way).
 * Posts or prints `{ ok, xmlBytes, rssBefore, maxRss }`. `--worker-death <heap MiB> <bytes>`: in a
 * fresh process, the RSS around a worker that runs out of heap and a new worker after it.
 * `--out-of-heap <shape> <bytes> <heap MiB> <young MiB | default>`: whether a worker running out
 * of heap ends alone or aborts the process.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { loadFile, workerYoungGenerationMegabytes } from "@docqa/core/ingestion";
import { craftZip, paragraphBlock, wordDocumentEntries } from "@docqa/core/testing";

/** The XML shapes measured: each a generator of about `bytes` bytes of body content. */
export const shapes: Record<string, (bytes: number) => string> = {
  "text paragraphs": (bytes) => paragraphBlock(bytes, Number.MAX_SAFE_INTEGER, 3),
  "Word paragraph attributes": (bytes) => fill(bytes, '<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3" w:rsidP="00D4E5F6"/>'),
  "empty paragraphs": (bytes) => fill(bytes, "<w:p/>"),
  "one-character paragraphs": (bytes) => fill(bytes, "<w:p><w:r><w:t>a</w:t></w:r></w:p>"),
  "line breaks": (bytes) => `<w:p>${fill(bytes - 11, "<w:r><w:br/></w:r>")}</w:p>`,
  "table cells": (bytes) => `<w:tbl><w:tr>${fill(bytes - 34, "<w:tc><w:p/></w:tc>")}</w:tr></w:tbl>`,
  "unrecognised elements": (bytes) => fill(bytes, "<w:x/>"),
};

function fill(bytes: number, unit: string): string {
  return unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));
}

/** What one load reports. */
export interface ParseOutcome {
  ok: boolean;
  /** Bytes of XML in the main part. */
  xmlBytes: number;
  /** Process RSS before the load and its peak (bytes); meaningful in a child process of its own. */
  rssBefore: number;
  maxRss: number;
  error?: string;
}

async function parseOnce(shape: string, bytes: number): Promise<ParseOutcome> {
  const block = shapes[shape]?.(bytes);
  if (block === undefined) throw new Error(`unknown shape ${shape}`);
  const archive = craftZip(wordDocumentEntries({ block }));
  const xmlBytes = Buffer.byteLength(block);
  const limits = {
    maxFileBytes: 2 ** 31,
    maxExtractedChars: 2 ** 30,
    maxArchiveBytes: 2 ** 31,
    maxArchiveEntryBytes: 2 ** 31,
    maxCompressionRatio: 1e9,
  };
  const rssBefore = process.memoryUsage.rss();
  try {
    await loadFile({ name: "shape.docx", bytes: archive }, { limits, chunkSize: 1000 });
  } catch (error) {
    // An empty document (no text) still went through the whole parse.
    if (!/contains no text/.test((error as Error).message)) {
      return { ok: false, xmlBytes, rssBefore, maxRss: process.resourceUsage().maxRSS * 1024, error: (error as Error).message };
    }
  }
  return { ok: true, xmlBytes, rssBefore, maxRss: process.resourceUsage().maxRSS * 1024 };
}

/** Process RSS (bytes) around a worker that runs out of heap, and a new worker's load after it. */
export interface WorkerDeathOutcome {
  before: number;
  peak: number;
  /** 2 s after the worker ended. */
  afterDeath: number;
  /** 15 s after the worker ended (V8 releases the pages it pooled about 8 s after a collection). */
  settled: number;
  /** 2 s after a new worker loaded a one-paragraph DOCX. */
  afterReplacement: number;
  died: boolean;
  replaced: boolean;
}

/** Loads a DOCX of `shape` in a worker thread under the pool's limits with `heapMegabytes` of old generation. */
export function loadInWorker(shape: string, bytes: number, heapMegabytes: number): Promise<ParseOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { docxShape: shape, bytes },
      // The pool's limits (worker-pool-executor.ts), with the old generation at `heapMegabytes`.
      resourceLimits: { maxOldGenerationSizeMb: heapMegabytes, maxYoungGenerationSizeMb: workerYoungGenerationMegabytes },
    });
    let outcome: ParseOutcome | undefined;
    worker.on("message", (message: ParseOutcome) => {
      outcome = message;
    });
    worker.on("error", (error) => {
      outcome = { ok: false, xmlBytes: bytes, rssBefore: 0, maxRss: 0, error: (error as Error).message };
    });
    worker.on("exit", () => resolve(outcome ?? { ok: false, xmlBytes: bytes, rssBefore: 0, maxRss: 0, error: "no outcome" }));
  });
}

async function workerDeath(heapMegabytes: number, bytes: number): Promise<WorkerDeathOutcome> {
  await sleep(1000);
  const before = process.memoryUsage.rss();
  let peak = before;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, process.memoryUsage.rss());
      await sleep(20);
    }
  })();
  const dying = await loadInWorker("empty paragraphs", bytes, heapMegabytes);
  done = true;
  await sampler;
  await sleep(2000);
  const afterDeath = process.memoryUsage.rss();
  await sleep(13_000);
  const settled = process.memoryUsage.rss();
  const replacement = await loadInWorker("text paragraphs", 100, heapMegabytes);
  await sleep(2000);
  return { before, peak, afterDeath, settled, afterReplacement: process.memoryUsage.rss(), died: !dying.ok, replaced: replacement.ok };
}

/**
 * One load in a worker thread whose heap is too small for it: prints `thread` when Node ended the
 * thread alone (`ERR_WORKER_OUT_OF_MEMORY`); when it aborts the whole process instead, nothing is
 * printed and the process ends with SIGABRT.
 */
function outOfHeapTrial(shape: string, bytes: number, heapMegabytes: number, youngMegabytes: number | undefined): void {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { docxShape: shape, bytes },
    resourceLimits: { maxOldGenerationSizeMb: heapMegabytes, ...(youngMegabytes ? { maxYoungGenerationSizeMb: youngMegabytes } : {}) },
  });
  worker.on("error", (error) => console.log((error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY" ? "thread" : "other"));
  worker.on("message", () => console.log("loaded"));
}

if (!isMainThread && parentPort && (workerData as { docxShape?: string } | undefined)?.docxShape) {
  const { docxShape, bytes } = workerData as { docxShape: string; bytes: number };
  parentPort.postMessage(await parseOnce(docxShape, bytes));
} else if (isMainThread && process.argv[2] === "--child") {
  console.log(JSON.stringify(await parseOnce(process.argv[3] as string, Number(process.argv[4]))));
} else if (isMainThread && process.argv[2] === "--worker-death") {
  console.log(JSON.stringify(await workerDeath(Number(process.argv[3]), Number(process.argv[4]))));
} else if (isMainThread && process.argv[2] === "--out-of-heap") {
  const [shape, bytes, heap, young] = process.argv.slice(3);
  outOfHeapTrial(shape as string, Number(bytes), Number(heap), young === "default" ? undefined : Number(young));
}
