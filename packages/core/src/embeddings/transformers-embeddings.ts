/**
 * Local sentence embeddings with transformers.js (`@huggingface/transformers`, ONNX Runtime on
 * the CPU), as a LangChain `Embeddings`. The model is loaded from `EMBED_MODEL_PATH` (a
 * directory holding `<model name>/config.json, tokenizer.json, onnx/model*.onnx`), from the
 * transformers.js cache, or, when allowed, downloaded from the Hugging Face hub once.
 *
 * Inference is batched by token count: every text is tokenized once, texts are sorted by length
 * and grouped so that a batch padded to its longest text holds at most `maxBatchTokens` tokens
 * (see `planTokenBatches`), the encoder runs once per batch, and the token states are pooled and
 * normalised in input order (see `poolTokenStates`). ONNX Runtime runs each batch on
 * `threads` threads (default: the cores available to the process).
 *
 * With `thread: "worker"` the forward passes run in a model thread of their own
 * (`threads/model-thread.ts`, the embedding thread) instead of the calling thread, whose event
 * loop then never waits for the model; the serving thread uses it (`EMBED_WORKER`).
 */
import { availableParallelism } from "node:os";
import { Embeddings, type EmbeddingsParams } from "@langchain/core/embeddings";
import { DocqaError } from "../errors/docqa-error.js";
import { ModelThread, modelWorkerUrl } from "../threads/model-thread.js";
import { type EmbeddingModelPreset, embeddingModelPreset } from "./embedding-model-presets.js";
import { planTokenBatches } from "./plan-token-batches.js";
import { poolTokenStates } from "./pool-token-states.js";
import { type EmbeddingDtype, type EmbeddingDtypeSetting, resolveEmbeddingDtype } from "./resolve-embedding-dtype.js";

/** Settings of {@link TransformersEmbeddings}. */
export interface TransformersEmbeddingsSettings extends EmbeddingsParams {
  /** Model id (`EMBED_MODEL_NAME`), for example `Xenova/bge-base-en-v1.5`. */
  modelName: string;
  /** Local model directory (`EMBED_MODEL_PATH`); when set, only local files are used. */
  localModelPath?: string | undefined;
  /** Allow downloading from the Hugging Face hub (`EMBED_ALLOW_REMOTE`); default true. */
  allowRemote?: boolean;
  /** Pooling and prefixes; default from {@link embeddingModelPreset}. */
  preset?: EmbeddingModelPreset;
  /** ONNX weights precision (`EMBED_DTYPE`); default `auto` (see {@link resolveEmbeddingDtype}). */
  dtype?: EmbeddingDtypeSetting;
  /** ONNX Runtime intra-op threads (`EMBED_THREADS`); default `os.availableParallelism()`. */
  threads?: number | undefined;
  /**
   * Padded tokens per forward pass; default {@link defaultMaxBatchTokens}, or
   * {@link defaultSingleThreadBatchTokens} on one thread. Larger batches amortise per-call overhead
   * and give several threads work to share, but spill the activations out of the CPU caches and
   * block the calling thread longer.
   */
  maxBatchTokens?: number;
  /** Texts per forward pass at most; default 64. */
  maxBatchSize?: number;
  /**
   * `batched` (default): token-count batching as described in the module comment. `pipeline`:
   * the transformers.js `feature-extraction` pipeline with fixed batches of `batchSize` texts
   * sorted by characters, as docqa embedded before token batching; kept as the baseline of
   * `bench/embedding-throughput.ts`.
   */
  engine?: "batched" | "pipeline";
  /** Texts per forward pass of the `pipeline` engine; default 16. */
  batchSize?: number;
  /**
   * Where the forward passes run: `caller` (default) in the calling thread; `worker` in an
   * embedding thread of their own (`threads/model-thread.ts`), when its entry is built
   * (`dist/model-worker.js`; else the calling thread, see {@link TransformersEmbeddings.thread}).
   * The `batched` engine only.
   */
  thread?: "caller" | "worker";
}

/** The model settings that cross to the embedding thread (plain data; the dtype already resolved). */
export interface EmbeddingThreadSettings {
  modelName: string;
  localModelPath?: string | undefined;
  allowRemote?: boolean | undefined;
  preset: EmbeddingModelPreset;
  dtype: EmbeddingDtype;
  threads: number;
  maxBatchTokens?: number | undefined;
  maxBatchSize?: number | undefined;
}

/** An embedding thread's call: embed `texts` (prefixes already applied) with the model of `settings`; no texts only loads it. */
export interface EmbeddingThreadTask {
  kind: "embed";
  settings: EmbeddingThreadSettings;
  texts: string[];
}

/** An embedding thread's result: the vectors row after row, `dimension` components each. */
export interface EmbeddingThreadResult {
  data: Float32Array;
  dimension: number;
}

/**
 * Default padded tokens per batch on several ONNX Runtime threads: 16 texts of 256 tokens. Swept on
 * 207 SciFact chunks with all-MiniLM-L6-v2 int8 on 2 threads, without a cap on texts per batch:
 * 1,024 to 8,192 tokens gave 89 to 114 chunks/s (4,096 the best), 16,384 fell to 31, as the
 * attention activations leave the CPU caches. The smaller budget also blocks the calling thread
 * for less time per forward pass.
 */
export const defaultMaxBatchTokens = 4096;

/**
 * Default padded tokens per batch on one ONNX Runtime thread (the ingestion workers'): about two
 * default-size chunks. A single thread has no parallel work to fill, and a small batch keeps its
 * activations in the core's own cache: swept on 628 SciFact chunks with all-MiniLM-L6-v2 int8, one
 * thread, 256 / 512 / 1,024 / 2,048 / 4,096 / 8,192 tokens gave 85 / 83-85 / 78-83 / 74 / 65-68 / 55
 * chunks per CPU-second (`bench/embedding-throughput.ts` measures the workers with it).
 */
export const defaultSingleThreadBatchTokens = 512;

/** Characters of a text passed to the tokenizer; the model reads at most 512 tokens anyway. */
const maximumInputCharacters = 4000;

type FeatureExtractor = (
  texts: string[],
  options: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

interface TensorLike {
  data: Float32Array;
  dims: number[];
}
type TensorConstructor = new (type: "int64", data: BigInt64Array, dims: number[]) => unknown;
type Tokenizer = ((
  texts: string[],
  options: { padding: false; truncation: true; return_tensor: false },
) => { input_ids: number[][]; token_type_ids?: number[][] }) & { pad_token_id?: number | null };
type EncoderModel = (inputs: Record<string, unknown>) => Promise<Record<string, TensorLike | undefined>>;

type LoadedModel =
  | { engine: "batched"; tokenizer: Tokenizer; model: EncoderModel; Tensor: TensorConstructor }
  | { engine: "pipeline"; extractor: FeatureExtractor };

/**
 * LangChain embeddings computed in-process with transformers.js. Vectors are unit length.
 *
 * @example
 * ```ts
 * const embeddings = new TransformersEmbeddings({ modelName: "Xenova/bge-small-en-v1.5", localModelPath: "./models" });
 * await embeddings.load();
 * const vector = await embeddings.embedQuery("What is BM25?");
 * ```
 */
export class TransformersEmbeddings extends Embeddings {
  readonly modelName: string;
  /** The weights precision loaded (`dtype` with `auto` resolved). */
  readonly dtype: EmbeddingDtype;
  /** ONNX Runtime intra-op threads of the `batched` engine (`threads` with its default resolved). */
  readonly threads: number;
  /** Where the forward passes run: `worker` only when asked for and the thread's entry is built. */
  readonly thread: "caller" | "worker";
  /**
   * What the vectors depend on besides the text: model id, weights precision, pooling, the
   * passage and query prefixes and the engine, for example
   * `Xenova/bge-small-en-v1.5@q8 pooling=cls normalized passage="" query="Represent…" engine=batched`.
   * Caches of vectors key by it (`PassageVectorCache`).
   */
  get vectorIdentity(): string {
    const { pooling, documentPrefix, queryPrefix } = this.preset;
    const engine = this.settings.engine ?? "batched";
    return `${this.modelName}@${this.dtype} pooling=${pooling} normalized passage=${JSON.stringify(documentPrefix)} query=${JSON.stringify(queryPrefix)} engine=${engine}`;
  }
  /** The embedding thread's id (`worker_threads`) once it runs; undefined in `caller` mode. */
  get threadId(): number | undefined {
    return this.embeddingThread?.threadId;
  }
  private readonly settings: TransformersEmbeddingsSettings;
  private readonly preset: EmbeddingModelPreset;
  private loaded: Promise<LoadedModel> | undefined;
  private readonly embeddingThread: ModelThread<EmbeddingThreadTask, EmbeddingThreadResult> | undefined;

  constructor(settings: TransformersEmbeddingsSettings) {
    super(settings);
    this.settings = settings;
    this.modelName = settings.modelName;
    this.preset = settings.preset ?? embeddingModelPreset(settings.modelName);
    this.dtype = resolveEmbeddingDtype(settings.dtype ?? "auto", settings.modelName, settings.localModelPath);
    this.threads = Math.max(1, settings.threads ?? availableParallelism());
    const workerUrl = settings.thread === "worker" && settings.engine !== "pipeline" ? modelWorkerUrl() : undefined;
    this.embeddingThread = workerUrl ? new ModelThread(workerUrl, "embeddings") : undefined;
    this.thread = this.embeddingThread ? "worker" : "caller";
  }

  /**
   * Loads the model (once; later calls return the same promise).
   *
   * @throws {DocqaError} `model_unavailable` when the files cannot be found or read.
   */
  async load(): Promise<void> {
    if (this.embeddingThread) await this.embeddingThread.run({ kind: "embed", settings: this.threadSettings(), texts: [] });
    else await this.model();
  }

  /**
   * Ends the embedding thread (after its running call) or releases the model's ONNX Runtime
   * session; a later call loads the model again.
   */
  async dispose(): Promise<void> {
    await this.embeddingThread?.close();
    const loaded = await this.loaded?.catch(() => undefined);
    this.loaded = undefined;
    const disposable = (loaded?.engine === "batched" ? loaded.model : loaded?.extractor) as
      | { dispose?: () => Promise<unknown> }
      | undefined;
    await disposable?.dispose?.();
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors = await this.embedTexts(texts.map((text) => this.preset.documentPrefix + text));
    return vectors.map((vector) => Array.from(vector));
  }

  override async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.embedTexts([this.preset.queryPrefix + text]);
    return vector ? Array.from(vector) : [];
  }

  private model(): Promise<LoadedModel> {
    this.loaded ??= this.createModel().catch((error: unknown) => {
      this.loaded = undefined;
      const where = this.settings.localModelPath
        ? `from ${this.settings.localModelPath}/${this.modelName}`
        : this.settings.allowRemote === false
          ? "from the local cache (EMBED_ALLOW_REMOTE=false)"
          : "from the local cache or the Hugging Face hub";
      throw new DocqaError(
        "model_unavailable",
        `cannot load embedding model ${this.modelName} (${this.dtype}) ${where}: ${(error as Error).message}. Set EMBED_MODEL_PATH to a directory holding the model files`,
        { component: "embeddings", cause: error },
      );
    });
    return this.loaded;
  }

  private async embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (!this.embeddingThread) return this.embedPrepared(texts);
    const { data, dimension } = await this.embeddingThread.run({ kind: "embed", settings: this.threadSettings(), texts: [...texts] });
    return texts.map((_, row) => data.subarray(row * dimension, (row + 1) * dimension));
  }

  /**
   * Unit vectors of texts that already carry the preset's prefix, computed in this thread; the
   * model thread's entry (`threads/model-worker.ts`) calls it.
   *
   * @internal
   */
  async embedPrepared(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const loaded = await this.model();
    const bounded = texts.map((text) => text.slice(0, maximumInputCharacters));
    return loaded.engine === "pipeline" ? this.embedWithPipeline(loaded.extractor, bounded) : this.embedBatched(loaded, bounded);
  }

  /** The settings the embedding thread loads the same model with. */
  private threadSettings(): EmbeddingThreadSettings {
    return {
      modelName: this.modelName,
      localModelPath: this.settings.localModelPath,
      allowRemote: this.settings.allowRemote,
      preset: this.preset,
      dtype: this.dtype,
      threads: this.threads,
      maxBatchTokens: this.settings.maxBatchTokens,
      maxBatchSize: this.settings.maxBatchSize,
    };
  }

  private async embedBatched(loaded: Extract<LoadedModel, { engine: "batched" }>, texts: string[]): Promise<Float32Array[]> {
    const encoded = loaded.tokenizer(texts, { padding: false, truncation: true, return_tensor: false });
    const ids = encoded.input_ids;
    const lengths = ids.map((row) => row.length);
    const padId = BigInt(loaded.tokenizer.pad_token_id ?? 0);
    const vectors: Float32Array[] = new Array(texts.length);
    const batches = planTokenBatches(lengths, {
      maxBatchTokens: this.settings.maxBatchTokens ?? (this.threads === 1 ? defaultSingleThreadBatchTokens : defaultMaxBatchTokens),
      maxBatchSize: this.settings.maxBatchSize ?? 64,
    });
    for (const batch of batches) {
      const rows = batch.length;
      const tokens = Math.max(...batch.map((index) => lengths[index] as number));
      const inputIds = new BigInt64Array(rows * tokens).fill(padId);
      const attentionMask = new BigInt64Array(rows * tokens);
      const tokenTypeIds = new BigInt64Array(rows * tokens);
      batch.forEach((index, row) => {
        const rowIds = ids[index] as number[];
        const rowTypes = encoded.token_type_ids?.[index];
        for (let token = 0; token < rowIds.length; token++) {
          inputIds[row * tokens + token] = BigInt(rowIds[token] as number);
          attentionMask[row * tokens + token] = 1n;
          if (rowTypes) tokenTypeIds[row * tokens + token] = BigInt(rowTypes[token] as number);
        }
      });
      const output = await this.caller.call(() =>
        loaded.model({
          input_ids: new loaded.Tensor("int64", inputIds, [rows, tokens]),
          attention_mask: new loaded.Tensor("int64", attentionMask, [rows, tokens]),
          token_type_ids: new loaded.Tensor("int64", tokenTypeIds, [rows, tokens]),
        }),
      );
      const states = output.last_hidden_state ?? output.token_embeddings;
      if (states?.dims.length !== 3) {
        throw new DocqaError(
          "model_unavailable",
          `embedding model ${this.modelName} has no per-token output (last_hidden_state or token_embeddings); outputs: ${Object.keys(output).join(", ")}`,
          { component: "embeddings" },
        );
      }
      const pooled = poolTokenStates(
        { data: states.data, rows, tokens, dimension: states.dims[2] as number },
        batch.map((index) => lengths[index] as number),
        this.preset.pooling,
      );
      batch.forEach((index, row) => {
        vectors[index] = pooled[row] as Float32Array;
      });
    }
    return vectors;
  }

  private async embedWithPipeline(extractor: FeatureExtractor, texts: string[]): Promise<Float32Array[]> {
    const batchSize = this.settings.batchSize ?? 16;
    const order = texts.map((_, index) => index).sort((left, right) => (texts[left] as string).length - (texts[right] as string).length);
    const vectors: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const indices = order.slice(start, start + batchSize);
      const batch = indices.map((index) => texts[index] as string);
      const output = await this.caller.call(() => extractor(batch, { pooling: this.preset.pooling, normalize: true }));
      const dimension = output.dims[1] as number;
      indices.forEach((textIndex, row) => {
        vectors[textIndex] = output.data.slice(row * dimension, (row + 1) * dimension);
      });
    }
    return vectors;
  }

  private async createModel(): Promise<LoadedModel> {
    const transformers = await import("@huggingface/transformers");
    const { env } = transformers;
    if (this.settings.localModelPath) {
      env.allowLocalModels = true;
      env.localModelPath = this.settings.localModelPath.endsWith("/") ? this.settings.localModelPath : `${this.settings.localModelPath}/`;
      env.allowRemoteModels = false;
    } else {
      env.allowRemoteModels = this.settings.allowRemote ?? true;
    }
    if (this.settings.engine === "pipeline") {
      const extractor = await transformers.pipeline("feature-extraction", this.modelName, { dtype: this.dtype, device: "cpu" });
      return { engine: "pipeline", extractor: extractor as unknown as FeatureExtractor };
    }
    const threads = this.threads;
    const [tokenizer, model] = await Promise.all([
      transformers.AutoTokenizer.from_pretrained(this.modelName),
      transformers.AutoModel.from_pretrained(this.modelName, {
        dtype: this.dtype,
        device: "cpu",
        session_options: { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: "all" },
      }),
    ]);
    return {
      engine: "batched",
      tokenizer: tokenizer as unknown as Tokenizer,
      model: model as unknown as EncoderModel,
      Tensor: transformers.Tensor as unknown as TensorConstructor,
    };
  }
}
