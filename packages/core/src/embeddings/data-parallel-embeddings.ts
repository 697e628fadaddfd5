/**
 * Data-parallel document embedding across threads, as fastembed's `parallel` option does with
 * processes: a call's texts are dealt into shares of equal work, the calling thread embeds the
 * first share while other threads (the ingestion pool's idle workers, each with its own copy of
 * the model) embed the others, and the vectors come back in input order.
 *
 * Shares are offered, never imposed: each share has a claim slot in shared memory, and a helper
 * thread takes it (0 → 1) only when it starts the share. Once its own share is done, the calling
 * thread takes back (0 → 2) every share no helper has started and embeds it itself. So a call
 * never waits for a thread that is busy with other work (no deadlock when every worker is busy,
 * no slower than embedding alone), and when threads are idle it uses them.
 *
 * A call is dealt into several shares per thread ({@link sharesPerThread}): helpers take them
 * from the front, the calling thread takes the rest back from the end, and they meet in the
 * middle. So a helper that becomes free in the middle of a call (its own file done) joins it, and
 * the calling thread then waits at most for one small share, not for half the call.
 */
import { Embeddings, type EmbeddingsInterface } from "@langchain/core/embeddings";

/** A share's claim slot: not started by anyone. */
export const shareOffered = 0;
/** A share's claim slot: a helper thread started it and will answer. */
export const shareTaken = 1;
/** A share's claim slot: the calling thread took it back (a helper that starts later skips it). */
export const shareReclaimed = 2;

/** Threads that may embed shares for the calling thread. */
export interface EmbeddingHelpers {
  /** Helper threads at most (not counting the calling thread). */
  readonly count: number;
  /**
   * Offers `texts` to a helper thread. The helper must take the share with
   * `Atomics.compareExchange(claims, index, shareOffered, shareTaken)` before embedding, and skip
   * it when that fails. Resolves with the vectors (unit length, input order) once a helper has
   * embedded them, or undefined when the share was skipped or the helper failed; never rejects.
   */
  offer(texts: readonly string[], claims: Int32Array, index: number): Promise<Float32Array[] | undefined>;
}

/** Settings of {@link DataParallelEmbeddings}. */
export interface DataParallelEmbeddingsSettings {
  /** Texts per share at least; a call with fewer than twice this is embedded by the calling thread alone. Default 32. */
  minShareSize?: number;
}

/** Texts per share at least, by default: smaller batches lose more to per-call overhead than a second core gains. */
export const defaultMinShareSize = 32;

/**
 * Shares per thread of a large call (the calling thread and each helper): with one share per
 * thread, a helper that started its share late (it was busy with its own task until then) kept
 * the calling thread waiting for up to a whole share, half of a 256-text slice on two threads; four
 * bound that wait to an eighth of the slice (32 texts at `defaultMinShareSize`), while each share
 * stays large enough for a full token batch.
 */
export const sharesPerThread = 4;

/**
 * Wraps an embeddings object so that `embedDocuments` spreads large calls over
 * {@link EmbeddingHelpers}; `embedQuery` and small calls stay on the calling thread.
 *
 * @example
 * ```ts
 * const parallel = new DataParallelEmbeddings(localEmbeddings, helpers);
 * const vectors = await parallel.embedDocuments(chunkTexts);
 * ```
 */
export class DataParallelEmbeddings extends Embeddings {
  /** The calling thread's embeddings. */
  readonly inner: EmbeddingsInterface;
  private readonly helpers: EmbeddingHelpers;
  private readonly minShareSize: number;

  constructor(inner: EmbeddingsInterface, helpers: EmbeddingHelpers, settings: DataParallelEmbeddingsSettings = {}) {
    super({});
    this.inner = inner;
    this.helpers = helpers;
    this.minShareSize = Math.max(1, settings.minShareSize ?? defaultMinShareSize);
  }

  override embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    if (this.helpers.count < 1) return this.inner.embedDocuments(texts);
    const shareCount = Math.min((this.helpers.count + 1) * sharesPerThread, Math.floor(texts.length / this.minShareSize));
    if (shareCount < 2) return this.inner.embedDocuments(texts);
    const shares = dealShares(texts, shareCount);
    const claims = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * shareCount));
    // Offered before the calling thread starts its own share, so that helpers start at once.
    const offered = shares.map((share, index) =>
      index === 0 ? Promise.resolve(undefined) : this.helpers.offer(share.texts, claims, index),
    );
    const vectors: number[][] = new Array(texts.length);
    const place = (share: Share, shareVectors: ArrayLike<number>[]) => {
      share.positions.forEach((position, row) => {
        vectors[position] = Array.from(shareVectors[row] ?? []);
      });
    };
    place(shares[0] as Share, await this.inner.embedDocuments((shares[0] as Share).texts));
    // From the end: helpers start from the front, so the two meet in the middle.
    const helping: number[] = [];
    for (let index = shareCount - 1; index >= 1; index--) {
      const share = shares[index] as Share;
      if (Atomics.compareExchange(claims, index, shareOffered, shareReclaimed) === shareOffered) {
        place(share, await this.inner.embedDocuments(share.texts));
      } else {
        helping.push(index);
      }
    }
    for (const index of helping) {
      const share = shares[index] as Share;
      place(share, (await offered[index]) ?? (await this.inner.embedDocuments(share.texts)));
    }
    return vectors;
  }
}

/** Texts of one share and their positions in the call. */
interface Share {
  texts: string[];
  positions: number[];
}

/**
 * Deals texts into `count` shares of about equal work: texts ordered by length are dealt in turn,
 * so each share holds the same mix of long and short texts (and the calling thread's share is
 * no longer than the others').
 */
export function dealShares(texts: readonly string[], count: number): Share[] {
  const shares: Share[] = Array.from({ length: count }, () => ({ texts: [], positions: [] }));
  const order = texts
    .map((_, position) => position)
    .sort((left, right) => (texts[left] as string).length - (texts[right] as string).length);
  order.forEach((position, rank) => {
    const share = shares[rank % count] as Share;
    share.texts.push(texts[position] as string);
    share.positions.push(position);
  });
  return shares;
}
