/**
 * The {@link IngestionExecutor} on a pool of worker threads (piscina): each task (an `/upsert`,
 * one file of a job) runs in a worker (`ingestion-worker.ts`), which writes the stores
 * itself; the serving thread's stores replay what it committed (`DocumentStores.refresh`, in time
 * slices), so the event loop is never held for long: an `/upsert` resolves after the replay, so
 * the caller reads its own writes; a file's replay runs in the background, so that a job's next
 * file is not held up by it (searches catch up before they read, and `settle` waits for it). Threads start on demand, up to `min(MAX_INGESTION_THREADS,
 * os.availableParallelism())`, and stop after a few idle minutes; tasks beyond them wait in the
 * pool's queue, which the admission (`INGESTION_QUEUE_SIZE`) bounds. A task that embeds carries a
 * channel on which its worker offers shares of large embedding calls; this thread runs each offer
 * as an `embed-share` task (`embedding-shares.ts`). Closing lets started tasks stop between steps
 * and waits for every one of them before the threads end, so that no thread is terminated while
 * its model runs. See decision record 0006.
 */
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import { basename } from "node:path";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import type { DocqaConfig } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import { deserializeError } from "../errors/serialized-error.js";
import { settleAll } from "../lifecycle/settle-all.js";
import type { AuditLog } from "../logging/audit-log.js";
import type { Logger } from "../logging/logger.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import { builtEntryUrl } from "../threads/built-entry-url.js";
import type { EmbeddingProgress } from "./embed-chunks.js";
import { type EmbeddedShare, relayShareOffers, type ShareOffer } from "./embedding-shares.js";
import type { FilePlan, IngestedFile } from "./ingest-file.js";
import type { IngestionExecutor } from "./ingestion-executor.js";
import type { IngestionTask, IngestionTaskOutcome, IngestionWorkerData } from "./ingestion-tasks.js";
import type { UpsertDocumentsResult } from "./upsert-documents.js";
import { forwardWorkerChannel } from "./worker-log-channel.js";

/** Settings of {@link createWorkerPoolExecutor}. */
export interface WorkerPoolExecutorSettings {
  /** The service's resolved configuration; each worker builds its stores and embeddings from it. */
  config: DocqaConfig;
  logger: Logger;
  /** Receives the workers' audit lines; default none. */
  audit?: AuditLog | undefined;
  /** Receives the workers' `indexed` metric events; default none. */
  metrics?: ServiceMetrics | undefined;
  /** Applies an organisation's writes made by a worker to this thread's stores (`DocumentStores.refresh`). */
  refresh(orgId: string): Promise<void>;
  /** Worker threads at most; default `min(MAX_INGESTION_THREADS, os.availableParallelism())`. */
  threads?: number | undefined;
  /** The worker entry (`ingestion-worker.js` of the build); default {@link ingestionWorkerUrl}. */
  workerUrl?: URL | undefined;
  /** Milliseconds an idle worker lives (its model stays loaded meanwhile); default 300000. */
  idleTimeoutMs?: number | undefined;
  /**
   * Milliseconds `close()` waits for the started tasks to stop before it terminates their threads
   * anyway (a task stuck outside the model); default {@link defaultStopTimeoutMs}.
   */
  stopTimeoutMs?: number | undefined;
}

/** Nice increment of the worker threads: lower priority than the serving thread. */
const workerNiceIncrement = 10;

/** Milliseconds an idle worker lives by default. */
const defaultIdleTimeoutMs = 5 * 60_000;

/**
 * Milliseconds `close()` waits by default for started tasks to stop. A task stops at its next
 * check of the stop flag, at the latest after the model's current call (`stoppable-embeddings.ts`);
 * this only bounds a task stuck elsewhere.
 */
export const defaultStopTimeoutMs = 30_000;

/**
 * The built worker entry, `ingestion-worker.js` (see {@link builtEntryUrl}); undefined when the
 * package is not built.
 */
export function ingestionWorkerUrl(): URL | undefined {
  return builtEntryUrl("ingestion-worker", import.meta.url);
}

/** The pool's threads for `config`: `min(MAX_INGESTION_THREADS, os.availableParallelism())`. */
export function ingestionThreads(config: DocqaConfig): number {
  return Math.max(1, Math.min(config.ingestion.maxIngestionThreads, availableParallelism()));
}

/**
 * ONNX Runtime threads of each worker's model: `EMBED_THREADS` when set, else the cores divided
 * among the pool's threads (at least 1), so that workers embedding at once never run more threads
 * than there are cores. A single large task still uses every core, through data-parallel shares
 * (`embeddings/data-parallel-embeddings.ts`). Measured with all-MiniLM-L6-v2 int8 on 2 cores:
 * one model on 2 threads 134.7 chunks/s, two workers of 1 thread 133.0, two workers of 2
 * threads 104.4 (`bench/embedding-throughput.ts` reports the same comparison).
 */
export function workerEmbeddingThreads(config: DocqaConfig, poolThreads: number): number {
  if (config.embeddings.threads > 0) return config.embeddings.threads;
  return Math.max(1, Math.floor(availableParallelism() / Math.max(1, poolThreads)));
}

/**
 * Young-generation heap of each worker thread, MiB (`resourceLimits.maxYoungGenerationSizeMb`).
 * Node ends a thread that reaches its old-generation limit by granting the garbage collection in
 * progress 16 MiB more (`kExtraHeapAllowance` in node's `src/node_worker.cc`) and terminating the
 * thread; a scavenge that promotes more than that aborts the whole process instead
 * (nodejs/node#47224). V8 sizes the young generation from the heap (192 MiB for a 4,096 MiB heap,
 * a third of it per semi-space), so a scavenge can promote tens of MiB. Measured with mammoth
 * parsing DOCX files past the limit (Node 24.21): with V8's default, 5 of 6 runs aborted the
 * process at a 64 MiB heap (2 MiB of empty paragraphs), 1 of 16 at 256 MiB (4 MiB), 1 of 8 at
 * 128 MiB (8 MiB of text); with 32 MiB, 30 of 30 runs over the same cases ended the thread alone
 * (48 of 48 with 16 MiB; `BENCH_ONLY=docx-memory` repeats the comparison). The cost, an `/upsert`
 * of a 2 MB document in a worker (RAPTOR on, loaded 2-core machine): 9.0 s on average with V8's
 * default (12 runs), 9.4 s with 32 MiB (6 runs), 9.7 s with 16 MiB (12 runs).
 */
export const workerYoungGenerationMegabytes = 32;

/** The `resourceLimits` of the pool's threads: `INGESTION_WORKER_HEAP_MB` of old generation, {@link workerYoungGenerationMegabytes} of young. */
export function workerResourceLimits(config: DocqaConfig): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: config.ingestion.workerHeapMegabytes, maxYoungGenerationSizeMb: workerYoungGenerationMegabytes };
}

/**
 * The error of a task whose worker thread failed: a file whose task took the thread past its heap
 * limit (`ERR_WORKER_OUT_OF_MEMORY`) is `file_too_large`, so the job lists it with a stable code
 * and goes on (the pool replaces the thread); anything else is `internal_error`.
 */
function workerFailure(task: IngestionTask, error: unknown, heapMegabytes: number): DocqaError {
  const message = (error as Error).message;
  if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY" && task.kind === "file") {
    const name = task.file.name ?? (task.file.path ? basename(task.file.path) : "the file");
    return new DocqaError(
      "file_too_large",
      `${name} needs more memory to parse than an ingestion thread has (INGESTION_WORKER_HEAP_MB=${heapMegabytes}); lower MAX_ARCHIVE_BYTES or raise INGESTION_WORKER_HEAP_MB`,
      { component: "ingestion", cause: error },
    );
  }
  return new DocqaError("internal_error", `an ingestion worker failed: ${message}`, { component: "ingestion", cause: error });
}

/**
 * Creates the executor on a pool of worker threads. No thread starts before the first task.
 *
 * @throws {DocqaError} `config_invalid` when no worker entry is found (the package is not built).
 */
export function createWorkerPoolExecutor(settings: WorkerPoolExecutorSettings): IngestionExecutor {
  const workerUrl = settings.workerUrl ?? ingestionWorkerUrl();
  if (!workerUrl) {
    throw new DocqaError(
      "config_invalid",
      "the ingestion worker (dist/ingestion-worker.js) is missing: build @docqa/core or set INGESTION_WORKERS=false",
      {
        component: "ingestion",
      },
    );
  }
  const threads = settings.threads ?? ingestionThreads(settings.config);
  const logChannel = `docqa-ingestion-${randomUUID()}`;
  const logs = forwardWorkerChannel(logChannel, settings);
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const workerConfig: DocqaConfig = {
    ...settings.config,
    embeddings: { ...settings.config.embeddings, threads: workerEmbeddingThreads(settings.config, threads) },
  };
  const workerData: IngestionWorkerData = { config: workerConfig, logChannel, stop, threads };
  let pool: Piscina<IngestionTask, IngestionTaskOutcome> | undefined;
  const poolOf = () => {
    pool ??= new Piscina<IngestionTask, IngestionTaskOutcome>({
      filename: workerUrl.href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: settings.idleTimeoutMs ?? defaultIdleTimeoutMs,
      // Tasks are asynchronous: workers wait for messages instead of blocking on Atomics.wait.
      atomics: "disabled",
      // Lower the workers' scheduling priority (Linux/macOS nice +10, via @napi-rs/nice; the
      // model's own threads inherit it): when the cores are busy, the serving thread runs first.
      niceIncrement: workerNiceIncrement,
      // A thread whose heap passes INGESTION_WORKER_HEAP_MB ends (ERR_WORKER_OUT_OF_MEMORY); piscina
      // starts another for the next task, and the process gets the thread's heap back.
      resourceLimits: workerResourceLimits(settings.config),
      workerData,
    });
    return pool;
  };
  /** The tasks handed to the pool and not settled yet, queued or started. */
  const inFlight = new Set<Promise<IngestionTaskOutcome>>();
  const runOnPool = (task: IngestionTask, transferList?: MessagePort[]): Promise<IngestionTaskOutcome> => {
    const run = transferList ? poolOf().run(task, { transferList }) : poolOf().run(task);
    inFlight.add(run);
    const forget = () => inFlight.delete(run);
    run.then(forget, forget);
    return run;
  };
  let closing: Promise<void> | undefined;
  /** Each organisation's latest refresh after a file task, chained so each starts after the one before. */
  const refreshes = new Map<string, Promise<void>>();
  const refreshLater = (orgId: string): void => {
    const next = (refreshes.get(orgId) ?? Promise.resolve())
      .then(() => settings.refresh(orgId))
      .catch((error: unknown) =>
        settings.logger.debug(`applying an ingestion worker's writes failed: ${(error as Error).message}`, { component: "ingestion" }),
      );
    refreshes.set(orgId, next);
    void next.finally(() => {
      if (refreshes.get(orgId) === next) refreshes.delete(orgId);
    });
  };

  // No AbortSignal reaches piscina: aborting a started task terminates its thread, and terminating
  // a thread while onnxruntime-node runs aborts the whole process. A caller's signal is checked
  // before the task is queued; closing the pool stops started tasks through the shared flag.
  const runTask = async <T>(task: IngestionTask, signal?: AbortSignal, ports: MessagePort[] = []): Promise<T> => {
    signal?.throwIfAborted();
    if (closing) throw new DocqaError("store_unavailable", "the service is stopping: retry the ingestion", { component: "ingestion" });
    let outcome: IngestionTaskOutcome;
    // A task that embeds offers shares to the other workers through its own channel (embedding-shares.ts).
    const channel = task.kind === "embed-share" || task.kind === "plan-file" || threads < 2 ? undefined : new MessageChannel();
    const closeChannel = channel ? relayShareOffers(channel.port1, embedShare) : undefined;
    try {
      const transfer = channel ? [channel.port2, ...ports] : ports;
      const sent = channel ? ({ ...task, sharesPort: channel.port2 } as IngestionTask) : task;
      outcome = transfer.length > 0 ? await runOnPool(sent, transfer) : await runOnPool(sent);
    } catch (error) {
      throw workerFailure(task, error, settings.config.ingestion.workerHeapMegabytes);
    } finally {
      closeChannel?.();
    }
    if (!outcome.ok) throw deserializeError(outcome.error);
    return outcome.value as T;
  };
  /** Runs an offered share on the pool; undefined when a worker skipped it (taken back) or failed. */
  async function embedShare({ id: _id, ...share }: ShareOffer): Promise<EmbeddedShare | undefined> {
    // Once closing, the offering worker embeds its shares itself (or stops first).
    if (closing) return undefined;
    const outcome = await runOnPool({ kind: "embed-share", ...share });
    return outcome.ok ? (outcome.value as EmbeddedShare | undefined) : undefined;
  }

  return {
    mode: "workers",
    threads,
    async upsert(task) {
      const { signal, ...rest } = task;
      const result = await runTask<UpsertDocumentsResult>({ kind: "upsert", ...rest }, signal);
      await settings.refresh(task.orgId);
      return result;
    },
    async ingestFile(request) {
      // A listener cannot cross to the thread: the worker posts the file's embedding progress on a
      // port of its own (after each slice embedded), and the outcome carries the final one.
      const { signal, onEmbeddingProgress: listener, ...rest } = request;
      const progress = listener ? new MessageChannel() : undefined;
      progress?.port1.on("message", (update: EmbeddingProgress) => listener?.(update));
      try {
        const result = await runTask<IngestedFile>(
          { kind: "file", ...rest, ...(progress ? { progressPort: progress.port2 } : {}) },
          signal,
          progress ? [progress.port2] : [],
        );
        // Applied in the background: the job's next file starts at once, and every search
        // catches up with committed writes before it reads (`settle` waits for it).
        if (!result.unchanged) refreshLater(request.orgId);
        return result;
      } finally {
        progress?.port1.close();
      }
    },
    async settle(orgId) {
      await refreshes.get(orgId);
    },
    planFile(request) {
      const { signal, onEmbeddingProgress: _listener, ...rest } = request;
      return runTask<FilePlan>({ kind: "plan-file", ...rest }, signal);
    },
    embedDocuments(texts, modelId) {
      return runTask<number[][] | undefined>({ kind: "embed", texts, modelId });
    },
    close() {
      closing ??= (async () => {
        Atomics.store(stop, 0, 1);
        // Not piscina's close(): its version 5.3.2 terminates every thread once it has seen as
        // many task completions as there are threads, whichever threads they came from, so a
        // thread still running its model was terminated (and the process aborted) as soon as
        // another thread's task ended. Every task is awaited here; then the idle threads end.
        const stopped = await settleAll(inFlight, settings.stopTimeoutMs ?? defaultStopTimeoutMs);
        if (!stopped) {
          settings.logger.warn("ingestion tasks did not stop in time; terminating their worker threads", {
            component: "ingestion",
            tasks: inFlight.size,
          });
        }
        await pool?.destroy();
        pool = undefined;
        logs.close();
      })();
      return closing;
    },
  };
}
