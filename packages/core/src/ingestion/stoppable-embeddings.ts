/**
 * Embeddings that an ingestion worker can stop between model calls. onnxruntime-node runs a
 * forward pass synchronously on the calling thread, and a thread terminated in the middle of one
 * aborts the whole process, so a closing pool lets its tasks stop by themselves instead (decision
 * record 0006). The stop is checked before each piece of a call, a few texts at a time, so that
 * a task stops within about one piece of inference rather than after a whole slice of chunks.
 */
import { Embeddings, type EmbeddingsInterface } from "@langchain/core/embeddings";

/**
 * Texts per call to the wrapped embeddings by default: on one ONNX Runtime thread about one second
 * of inference with bge-small-en-v1.5 int8 at full-size chunks (measured on this project's 2-core
 * machine: 172 chunks in 5.7 s), and a whole number of the workers' token batches (512 tokens,
 * about two chunks), so the model batches as it would for the whole call.
 */
export const defaultStopCheckTexts = 32;

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
