/**
 * A model thread: a worker thread of its own (piscina, one thread, entry `model-worker.ts`) that
 * runs the forward passes of a model the serving thread uses (the embedding model, the
 * cross-encoder reranker). onnxruntime-node runs a session synchronously on the thread that calls
 * it, so a question's embedding (milliseconds), an answer's dense signal (up to 48 sentences,
 * about 100 ms with bge-small on 2 cores) or a reranking (20 pairs, about 200 ms with MiniLM-L6)
 * run in the serving thread would hold its event loop, and every other request with it. Here the
 * serving thread only posts the inputs and awaits the outputs.
 *
 * The thread loads each model once and keeps it while the process runs; piscina unreferences an
 * idle thread, so it never keeps a process alive. Calls queue in order on the one thread; each
 * model owner has a thread of its own, so a question's embedding never waits behind another
 * request's reranking. {@link ModelThread.close} waits for every call it was given before the
 * thread ends: terminating a thread while onnxruntime-node runs aborts the whole process.
 */
import { Piscina } from "piscina";
import { DocqaError } from "../errors/docqa-error.js";
import { deserializeError, type SerializedError } from "../errors/serialized-error.js";
import { settleAll } from "../lifecycle/settle-all.js";
import { builtEntryUrl } from "./built-entry-url.js";

/** What the thread's entry answers a call with: the call's result, or the error it threw. */
export type ModelThreadOutcome<Result> = { ok: true; result: Result } | { ok: false; error: SerializedError };

/**
 * The built thread entry, `model-worker.js` (see {@link builtEntryUrl}); undefined when the
 * package is not built.
 */
export function modelWorkerUrl(): URL | undefined {
  return builtEntryUrl("model-worker", import.meta.url);
}

/** Milliseconds {@link ModelThread.close} waits for the calls it was given before the thread is ended anyway. */
const closeTimeoutMs = 30_000;

/** A pool of the one thread with the calls it has been given that have not settled. */
interface Generation<Task, Result> {
  pool: Piscina<Task, ModelThreadOutcome<Result>>;
  running: Set<Promise<unknown>>;
}

/**
 * One model thread; see the module comment.
 *
 * @typeParam Task - a call's input, structured-clonable (the entry dispatches on its `kind`).
 * @typeParam Result - a call's result, structured-clonable.
 */
export class ModelThread<Task, Result> {
  private current: Generation<Task, Result> | undefined;

  /**
   * @param workerUrl - the thread entry ({@link modelWorkerUrl}, or a stand-in in tests).
   * @param component - the model's component in errors and logs (`embeddings`, `reranker`).
   */
  constructor(
    private readonly workerUrl: URL,
    private readonly component: string,
  ) {}

  /**
   * Runs `task` in the thread (starting it on the first call, or the first after {@link close}).
   *
   * @throws {DocqaError} what the model threw in the thread (`model_unavailable` when it cannot
   *   be loaded), or `internal_error` when the thread itself failed.
   */
  async run(task: Task): Promise<Result> {
    this.current ??= {
      pool: new Piscina<Task, ModelThreadOutcome<Result>>({
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
    const call = pool.run(task);
    running.add(call);
    let outcome: ModelThreadOutcome<Result>;
    try {
      outcome = await call;
    } catch (error) {
      throw new DocqaError("internal_error", `the ${this.component} model thread failed: ${(error as Error).message}`, {
        component: this.component,
        cause: error,
      });
    } finally {
      running.delete(call);
    }
    if (!outcome.ok) throw deserializeError(outcome.error);
    return outcome.result;
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
