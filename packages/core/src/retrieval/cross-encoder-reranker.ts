/**
 * A cross-encoder reranker run with transformers.js (for example `Xenova/ms-marco-MiniLM-L-6-v2`,
 * trained on MS MARCO passage ranking, Nguyen et al., 2016): each (query, chunk) pair is read
 * together by the model, which scores relevance more precisely than comparing two separately
 * computed embeddings (Nogueira & Cho, 2019, "Passage Re-ranking with BERT").
 *
 * With `thread: "worker"` the tokenizer and the forward passes run in a model thread of their own
 * (`threads/model-thread.ts`, the reranker thread) instead of the calling thread, whose event loop
 * then never waits for the model (onnxruntime-node runs a session synchronously on its calling
 * thread); the service uses it (`RERANKER_WORKER`). The serving thread only posts the query and
 * the passages and receives the scores.
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import { indexedText } from "../stores/chunk-record.js";
import { ModelThread, modelWorkerUrl } from "../threads/model-thread.js";
import type { Reranker } from "./reranker.js";

/** Settings of {@link CrossEncoderReranker}. */
export interface CrossEncoderRerankerSettings {
  /** `RERANKER_MODEL_NAME`, for example `Xenova/ms-marco-MiniLM-L-6-v2`. */
  modelName: string;
  /** `RERANKER_MODEL_PATH`: local directory holding `<modelName>/` files; when set, only local files are used. */
  localModelPath?: string | undefined;
  /** Allow downloading from the Hugging Face hub; default true. */
  allowRemote?: boolean | undefined;
  /** ONNX weights precision; default `fp32`. */
  dtype?: "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4" | undefined;
  /** Pairs per forward pass; default 8. */
  batchSize?: number | undefined;
  /**
   * Where the tokenizer and the forward passes run (`RERANKER_WORKER`): `caller` (default) in the
   * calling thread; `worker` in a reranker thread of its own (`threads/model-thread.ts`), when
   * its entry is built (`dist/model-worker.js`; else the calling thread, see
   * {@link CrossEncoderReranker.thread}).
   */
  thread?: "caller" | "worker" | undefined;
  /** The thread's entry with `thread: "worker"`; default the built `model-worker.js`. Tests pass a stand-in. */
  workerUrl?: URL | undefined;
}

/** The settings that cross to the reranker thread (plain data). */
export type RerankerThreadSettings = Omit<CrossEncoderRerankerSettings, "thread" | "workerUrl">;

/**
 * A reranker thread's call: scores of the (`query`, passage) pairs with the model of `settings`;
 * no passages only loads it. The thread stops between forward passes once `cancel[0]` is 1 (set
 * when the caller's signal aborts), answering the scores so far.
 */
export interface RerankerThreadTask {
  kind: "rerank";
  settings: RerankerThreadSettings;
  query: string;
  passages: string[];
  /** One 32-bit integer on shared memory; 1 asks the thread to stop. */
  cancel: Int32Array;
}

type Tokenizer = (
  texts: string[],
  options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length: number },
) => Record<string, unknown>;
type Model = ((inputs: Record<string, unknown>) => Promise<{ logits: { data: Float32Array; dims: number[] } }>) & {
  dispose?: () => Promise<unknown>;
};

/** Characters of a chunk passed to the model; it reads at most 512 tokens of query and passage. */
const maximumPassageCharacters = 2000;

/**
 * Scores are the model's relevance logit passed through the logistic function, so they lie in
 * [0, 1] and compare with `RERANKER_SCORE_THRESHOLD` (0.5 = the model's decision boundary).
 */
export class CrossEncoderReranker implements Reranker {
  readonly name = "cross-encoder";
  /** Where the forward passes run: `worker` only when asked for and the thread's entry is built. */
  readonly thread: "caller" | "worker";
  private readonly settings: CrossEncoderRerankerSettings;
  private loaded: Promise<{ tokenizer: Tokenizer; model: Model }> | undefined;
  private readonly rerankerThread: ModelThread<RerankerThreadTask, number[]> | undefined;

  constructor(settings: CrossEncoderRerankerSettings) {
    this.settings = settings;
    const workerUrl = settings.thread === "worker" ? (settings.workerUrl ?? modelWorkerUrl()) : undefined;
    this.rerankerThread = workerUrl ? new ModelThread(workerUrl, "reranker") : undefined;
    this.thread = this.rerankerThread ? "worker" : "caller";
  }

  /** The reranker thread's id (`worker_threads`) once it runs; undefined in `caller` mode. */
  get threadId(): number | undefined {
    return this.rerankerThread?.threadId;
  }

  /**
   * Loads the tokenizer and model once (in the reranker thread with `thread: "worker"`).
   *
   * @throws {DocqaError} `model_unavailable` when the files cannot be found or read.
   */
  async load(): Promise<void> {
    if (this.rerankerThread) await this.rerankerThread.run(this.threadTask("", []));
    else await this.model();
  }

  /**
   * One score in [0, 1] per chunk, in input order; the first 2,000 characters of each chunk's
   * indexed text are read.
   *
   * @throws the signal's reason once `signal` aborts (checked between forward passes);
   *   {@link DocqaError} `model_unavailable` when the model cannot be loaded.
   */
  async score(query: string, chunks: readonly ChunkRecord[], signal?: AbortSignal): Promise<number[]> {
    signal?.throwIfAborted();
    const passages = chunks.map((chunk) => indexedText(chunk).slice(0, maximumPassageCharacters));
    const scores = this.rerankerThread
      ? await this.scoreInThread(this.rerankerThread, query, passages, signal)
      : await this.scorePassages(query, passages, () => signal?.aborted === true);
    signal?.throwIfAborted();
    return scores;
  }

  /**
   * Ends the reranker thread (after the calls it was given) or releases the model's ONNX Runtime
   * session; a later call loads the model again.
   */
  async dispose(): Promise<void> {
    await this.rerankerThread?.close();
    const loaded = await this.loaded?.catch(() => undefined);
    this.loaded = undefined;
    await loaded?.model.dispose?.();
  }

  /**
   * Scores of the (`query`, passage) pairs computed in this thread, `batchSize` pairs per forward
   * pass; stops before a pass once `stopped()` is true and returns the scores so far. The reranker
   * thread's entry (`threads/model-worker.ts`) calls it.
   *
   * @internal
   */
  async scorePassages(query: string, passages: readonly string[], stopped: () => boolean): Promise<number[]> {
    const { tokenizer, model } = await this.model();
    const batchSize = this.settings.batchSize ?? 8;
    const scores: number[] = [];
    for (let start = 0; start < passages.length && !stopped(); start += batchSize) {
      const batch = passages.slice(start, start + batchSize);
      const inputs = tokenizer(
        batch.map(() => query),
        { text_pair: batch, padding: true, truncation: true, max_length: 512 },
      );
      const { logits } = await model(inputs);
      const labels = logits.dims[1] ?? 1;
      batch.forEach((_, row) => {
        // One logit: relevance. Two logits (not relevant, relevant): their difference.
        const logit =
          labels === 1 ? (logits.data[row] as number) : (logits.data[row * labels + 1] as number) - (logits.data[row * labels] as number);
        scores.push(1 / (1 + Math.exp(-logit)));
      });
    }
    return scores;
  }

  /** Scores in the reranker thread; an abort of `signal` asks the thread to stop between forward passes. */
  private async scoreInThread(
    thread: ModelThread<RerankerThreadTask, number[]>,
    query: string,
    passages: string[],
    signal: AbortSignal | undefined,
  ): Promise<number[]> {
    const task = this.threadTask(query, passages);
    const stop = () => Atomics.store(task.cancel, 0, 1);
    signal?.addEventListener("abort", stop, { once: true });
    try {
      return await thread.run(task);
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  }

  /** A call of the reranker thread, with the settings it loads the same model with. */
  private threadTask(query: string, passages: string[]): RerankerThreadTask {
    const { modelName, localModelPath, allowRemote, dtype, batchSize } = this.settings;
    return {
      kind: "rerank",
      settings: { modelName, localModelPath, allowRemote, dtype, batchSize },
      query,
      passages,
      cancel: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
    };
  }

  /**
   * Loads the tokenizer and model in this thread, once.
   *
   * @throws {DocqaError} `model_unavailable` when the files cannot be found or read.
   */
  private model(): Promise<{ tokenizer: Tokenizer; model: Model }> {
    this.loaded ??= this.create().catch((error: unknown) => {
      this.loaded = undefined;
      throw new DocqaError(
        "model_unavailable",
        `cannot load reranker model ${this.settings.modelName}${this.settings.localModelPath ? ` from ${this.settings.localModelPath}/${this.settings.modelName}` : ""}: ${(error as Error).message}. Set RERANKER_MODEL_PATH to a directory holding the model files, or USE_RERANKER=false`,
        { component: "reranker", cause: error },
      );
    });
    return this.loaded;
  }

  private async create(): Promise<{ tokenizer: Tokenizer; model: Model }> {
    const transformers = await import("@huggingface/transformers");
    const { env, AutoTokenizer, AutoModelForSequenceClassification } = transformers;
    if (this.settings.localModelPath) {
      env.allowLocalModels = true;
      env.localModelPath = this.settings.localModelPath.endsWith("/") ? this.settings.localModelPath : `${this.settings.localModelPath}/`;
      env.allowRemoteModels = false;
    } else {
      env.allowRemoteModels = this.settings.allowRemote ?? true;
    }
    const tokenizer = (await AutoTokenizer.from_pretrained(this.settings.modelName)) as unknown as Tokenizer;
    const model = (await AutoModelForSequenceClassification.from_pretrained(this.settings.modelName, {
      dtype: this.settings.dtype ?? "fp32",
      device: "cpu",
    })) as unknown as Model;
    return { tokenizer, model };
  }
}
