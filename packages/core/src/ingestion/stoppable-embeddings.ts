/**
 * Embeddings that an ingestion worker can stop between model calls. onnxruntime-node runs a
 * forward pass synchronously on the calling thread, and a thread terminated in the middle of one
 * aborts the whole process, so a closing pool lets its tasks stop by themselves instead (decision
 * record 0006). The stop is checked before each piece of a call, so that a task stops after one
 * piece of inference (about 2 s at most on one thread) rather than after a whole slice of chunks.
 */
import { Embeddings, type EmbeddingsInterface } from "@langchain/core/embeddings";

/**
 * Texts per call to the wrapped embeddings by default: the most texts one forward pass of
 * `TransformersEmbeddings` holds (its `maxBatchSize`, 64), so a piece of a length-sorted call is
 * batched as the whole call would be. Measured on 2 busy cores with bge-small-en-v1.5 int8 on one
 * thread (the workers'), 256 texts in one call against pieces of 64: SciFact abstracts 7.8 s and
 * 7.6 s (a stop waits about 1.9 s at most), titles 0.62 s and 0.57 s; pieces of 32 made titles
 * 1.19 times slower.
 */
export const defaultStopCheckTexts = 64;

/**
 * Wraps `inner` so that `embedDocuments` calls it `pieceTexts` texts at a time (default
 * {@link defaultStopCheckTexts}) and calls `throwIfStopping` before each piece; `embedQuery` is
 * passed through. Vectors come back in input order.
 *
 * @throws what `throwIfStopping` throws (the vectors of the call's earlier pieces are dropped).
 * @example
 * ```ts
 * const embeddings = new StoppableEmbeddings(model, () => signal.throwIfAborted());
 * ```
 */
export class StoppableEmbeddings extends Embeddings {
  /** The wrapped embeddings. */
  readonly inner: EmbeddingsInterface;
  private readonly throwIfStopping: () => void;
  private readonly pieceTexts: number;

  constructor(inner: EmbeddingsInterface, throwIfStopping: () => void, pieceTexts = defaultStopCheckTexts) {
    super({});
    this.inner = inner;
    this.throwIfStopping = throwIfStopping;
    this.pieceTexts = Math.max(1, pieceTexts);
  }

  override embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.pieceTexts) {
      this.throwIfStopping();
      vectors.push(...(await this.inner.embedDocuments(texts.slice(start, start + this.pieceTexts))));
    }
    return vectors;
  }
}
