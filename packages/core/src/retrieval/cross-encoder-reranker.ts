/**
 * A cross-encoder reranker run with transformers.js (for example `Xenova/ms-marco-MiniLM-L-6-v2`,
 * trained on MS MARCO passage ranking, Nguyen et al., 2016): each (query, chunk) pair is read
 * together by the model, which scores relevance more precisely than comparing two separately
 * computed embeddings (Nogueira & Cho, 2019, "Passage Re-ranking with BERT").
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import { indexedText } from "../stores/chunk-record.js";
import type { Reranker } from "./reranker.js";

/** Settings of {@link CrossEncoderReranker}. */
export interface CrossEncoderRerankerSettings {
  /** `RERANKER_MODEL_NAME`, for example `Xenova/ms-marco-MiniLM-L-6-v2`. */
  modelName: string;
  /** `RERANKER_MODEL_PATH`: local directory holding `<modelName>/` files; when set, only local files are used. */
  localModelPath?: string | undefined;
  /** Allow downloading from the Hugging Face hub; default true. */
  allowRemote?: boolean;
  /** ONNX weights precision; default `fp32`. */
  dtype?: "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4";
  /** Pairs per forward pass; default 8. */
  batchSize?: number;
}

type Tokenizer = (
  texts: string[],
  options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length: number },
) => Record<string, unknown>;
type Model = (inputs: Record<string, unknown>) => Promise<{ logits: { data: Float32Array; dims: number[] } }>;

/** Characters of a chunk passed to the model; it reads at most 512 tokens of query and passage. */
const maximumPassageCharacters = 2000;

/**
 * Scores are the model's relevance logit passed through the logistic function, so they lie in
 * [0, 1] and compare with `RERANKER_SCORE_THRESHOLD` (0.5 = the model's decision boundary).
 */
export class CrossEncoderReranker implements Reranker {
  readonly name = "cross-encoder";
  private readonly settings: CrossEncoderRerankerSettings;
  private loaded: Promise<{ tokenizer: Tokenizer; model: Model }> | undefined;

  constructor(settings: CrossEncoderRerankerSettings) {
    this.settings = settings;
  }

  /**
   * Loads the tokenizer and model once.
   *
   * @throws {DocqaError} `model_unavailable` when the files cannot be found or read.
   */
  load(): Promise<{ tokenizer: Tokenizer; model: Model }> {
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

  async score(query: string, chunks: readonly ChunkRecord[], signal?: AbortSignal): Promise<number[]> {
    const { tokenizer, model } = await this.load();
    const batchSize = this.settings.batchSize ?? 8;
    const scores: number[] = [];
    for (let start = 0; start < chunks.length; start += batchSize) {
      signal?.throwIfAborted();
      const batch = chunks.slice(start, start + batchSize);
      const inputs = tokenizer(
        batch.map(() => query),
        {
          text_pair: batch.map((chunk) => indexedText(chunk).slice(0, maximumPassageCharacters)),
          padding: true,
          truncation: true,
          max_length: 512,
        },
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
