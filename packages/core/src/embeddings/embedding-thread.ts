/**
 * The embedding thread: a worker thread of its own (piscina, one thread, `embedding-worker.ts`)
 * that runs the forward passes of the serving thread's embedding model. onnxruntime-node runs a
 * session synchronously on the thread that calls it, so a question's embedding (milliseconds) and
 * an answer's dense signal (up to 48 sentences, about 100 ms with bge-small on 2 cores) run in the
 * serving thread would hold its event loop, and every other request with it. Here the serving
 * thread only posts the texts and awaits the vectors.
 *
 * The thread loads the model once and keeps it while the process runs; piscina unreferences an
 * idle thread, so it never keeps a process alive. Calls queue in order on the one thread.
 * {@link EmbeddingThread.close} waits for every call it was given before the thread ends:
 * terminating a thread while onnxruntime-node runs aborts the whole process.
 */
import { Piscina } from "piscina";
import { deserializeError, type SerializedError } from "../errors/serialized-error.js";
import { settleAll } from "../lifecycle/settle-all.js";
import { builtEntryUrl } from "../threads/built-entry-url.js";
import type { EmbeddingModelPreset } from "./embedding-model-presets.js";
import type { EmbeddingDtype } from "./resolve-embedding-dtype.js";

/** The model settings that cross to the thread (plain data; the dtype already resolved). */
export interface ThreadModelSettings {
  modelName: string;
  localModelPath?: string | undefined;
  allowRemote?: boolean | undefined;
  preset: EmbeddingModelPreset;
  dtype: EmbeddingDtype;
  threads: number;
  maxBatchTokens?: number | undefined;
  maxBatchSize?: number | undefined;
}

/** A call: embed `texts` (prefixes already applied) with the model of `settings`; no texts only loads it. */
export interface EmbeddingThreadTask {
  settings: ThreadModelSettings;
  texts: string[];
}

/** The outcome of a call: the vectors row after row (`dimension` components each), or the error. */
export type EmbeddingThreadOutcome = { ok: true; data: Float32Array; dimension: number } | { ok: false; error: SerializedError };

/**
 * The built thread entry, `embedding-worker.js` (see {@link builtEntryUrl}); undefined when the
 * package is not built.
 */
export function embeddingWorkerUrl(): URL | undefined {
  return builtEntryUrl("embedding-worker", import.meta.url);
}

/** Milliseconds {@link EmbeddingThread.close} waits for the calls it was given before the thread is ended anyway. */
const closeTimeoutMs = 30_000;

/** A pool of the one thread with the calls it has been given that have not settled. */
interface Generation {
  pool: Piscina<EmbeddingThreadTask, EmbeddingThreadOutcome>;
  running: Set<Promise<unknown>>;
}

/** One embedding thread; see the module comment. */
export class EmbeddingThread {
  private current: Generation | undefined;

  /** @param workerUrl - the thread entry ({@link embeddingWorkerUrl}). */
  constructor(private readonly workerUrl: URL) {}

  /**
   * Embeds `texts` in the thread, in input order.
   *
   * @throws {DocqaError} what the model threw in the thread (`model_unavailable` when it cannot
   *   be loaded), or `internal_error` when the thread itself failed.
   */
  async embed(settings: ThreadModelSettings, texts: string[]): Promise<Float32Array[]> {
    this.current ??= {
      pool: new Piscina<EmbeddingThreadTask, EmbeddingThreadOutcome>({
        filename: this.workerUrl.href,
        minThreads: 0,
        maxThreads: 1,
        // The model stays loaded for the process's life; an idle thread does not keep it alive.
        idleTimeout: Number.POSITIVE_INFINITY,
        atomics: "disabled",
      }),
      running: new Set(),
    };
    const { pool, running } = this.current;
    const call = pool.run({ settings, texts });
    running.add(call);
    let outcome: EmbeddingThreadOutcome;
    try {
      outcome = await call;
    } finally {
      running.delete(call);
    }
    if (!outcome.ok) throw deserializeError(outcome.error);
    const vectors: Float32Array[] = [];
    for (let row = 0; row < texts.length; row++) {
      vectors.push(outcome.data.subarray(row * outcome.dimension, (row + 1) * outcome.dimension));
    }
    return vectors;
  }

  /** The thread's id (`worker_threads`), undefined before the first call and after {@link close}. */
  get threadId(): number | undefined {
    return this.current?.pool.threads[0]?.threadId;
  }

  /**
   * Ends the thread once every call it was given has settled (at most 30 s); later calls start a
   * new thread. piscina's own `close()` is not used: it ends its threads once as many calls have
   * completed as it has threads, which can end this one in the middle of the next queued call.
   */
  async close(): Promise<void> {
    const generation = this.current;
    this.current = undefined;
    if (!generation) return;
    await settleAll(generation.running, closeTimeoutMs);
    await generation.pool.destroy();
  }
}
