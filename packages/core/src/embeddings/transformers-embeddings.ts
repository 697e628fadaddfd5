/**
 * Local sentence embeddings with transformers.js (`@huggingface/transformers`, ONNX Runtime on
 * the CPU), as a LangChain `Embeddings`. The model is loaded from `EMBED_MODEL_PATH` (a
 * directory holding `<model name>/config.json, tokenizer.json, onnx/model.onnx`), from the
 * transformers.js cache, or, when allowed, downloaded from the Hugging Face hub once.
 */
import { Embeddings, type EmbeddingsParams } from "@langchain/core/embeddings";
import { DocqaError } from "../errors/docqa-error.js";
import { type EmbeddingModelPreset, embeddingModelPreset } from "./embedding-model-presets.js";

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
  /** ONNX weights precision; default `fp32`. */
  dtype?: "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4";
  /** Texts per forward pass; default 16. */
  batchSize?: number;
}

/** Characters of a text passed to the tokenizer; the model reads at most 512 tokens anyway. */
const maximumInputCharacters = 4000;

type FeatureExtractor = (
  texts: string[],
  options: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

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
  private readonly settings: TransformersEmbeddingsSettings;
  private readonly preset: EmbeddingModelPreset;
  private extractor: Promise<FeatureExtractor> | undefined;

  constructor(settings: TransformersEmbeddingsSettings) {
    super(settings);
    this.settings = settings;
    this.modelName = settings.modelName;
    this.preset = settings.preset ?? embeddingModelPreset(settings.modelName);
  }

  /**
   * Loads the model (once; later calls return the same promise).
   *
   * @throws {DocqaError} `model_unavailable` when the files cannot be found or read.
   */
  load(): Promise<FeatureExtractor> {
    this.extractor ??= this.createExtractor().catch((error: unknown) => {
      this.extractor = undefined;
      const where = this.settings.localModelPath
        ? `from ${this.settings.localModelPath}/${this.modelName}`
        : this.settings.allowRemote === false
          ? "from the local cache (EMBED_ALLOW_REMOTE=false)"
          : "from the local cache or the Hugging Face hub";
      throw new DocqaError(
        "model_unavailable",
        `cannot load embedding model ${this.modelName} ${where}: ${(error as Error).message}. Set EMBED_MODEL_PATH to a directory holding the model files`,
        { component: "embeddings", cause: error },
      );
    });
    return this.extractor;
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    return this.embed(texts.map((text) => this.preset.documentPrefix + text));
  }

  override async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.embed([this.preset.queryPrefix + text]);
    return vector ?? [];
  }

  private async embed(texts: string[]): Promise<number[][]> {
    const extractor = await this.load();
    const batchSize = this.settings.batchSize ?? 16;
    // Batching texts of similar length reduces padding, the main cost of a forward pass.
    const order = texts.map((_, index) => index).sort((left, right) => (texts[left] as string).length - (texts[right] as string).length);
    const vectors: number[][] = new Array(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const indices = order.slice(start, start + batchSize);
      const batch = indices.map((index) => (texts[index] as string).slice(0, maximumInputCharacters));
      const output = await this.caller.call(() => extractor(batch, { pooling: this.preset.pooling, normalize: true }));
      const dimension = output.dims[1] as number;
      indices.forEach((textIndex, row) => {
        vectors[textIndex] = Array.from(output.data.subarray(row * dimension, (row + 1) * dimension));
      });
    }
    return vectors;
  }

  private async createExtractor(): Promise<FeatureExtractor> {
    const transformers = await import("@huggingface/transformers");
    const { env } = transformers;
    if (this.settings.localModelPath) {
      env.allowLocalModels = true;
      env.localModelPath = this.settings.localModelPath.endsWith("/") ? this.settings.localModelPath : `${this.settings.localModelPath}/`;
      env.allowRemoteModels = false;
    } else {
      env.allowRemoteModels = this.settings.allowRemote ?? true;
    }
    const extractor = await transformers.pipeline("feature-extraction", this.modelName, {
      dtype: this.settings.dtype ?? "fp32",
      device: "cpu",
    });
    return extractor as unknown as FeatureExtractor;
  }
}
