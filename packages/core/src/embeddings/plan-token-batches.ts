/**
 * Batches sized by token count for encoder inference: texts are sorted by length and grouped so
 * that each batch, padded to its longest member, holds at most a token budget. Sorting keeps the
 * padding (wasted computation) small; the budget keeps each forward pass's activations in cache
 * and bounds how long one call blocks.
 */

/** Limits of {@link planTokenBatches}. */
export interface TokenBatchLimits {
  /** Padded tokens per batch (rows × longest row), at least one row per batch. */
  maxBatchTokens: number;
  /** Rows per batch. */
  maxBatchSize: number;
}

/**
 * Groups texts into batches by token count.
 *
 * @param lengths - tokens of each text (after truncation), in input order.
 * @param limits - budget per batch; a text longer than `maxBatchTokens` gets a batch of its own.
 * @returns batches of input indices, shortest texts first; every index appears exactly once.
 * @example
 * ```ts
 * planTokenBatches([5, 300, 7, 290], { maxBatchTokens: 600, maxBatchSize: 64 }); // [[0, 2], [3, 1]]
 * ```
 */
export function planTokenBatches(lengths: readonly number[], limits: TokenBatchLimits): number[][] {
  const order = lengths
    .map((_, index) => index)
    .sort((left, right) => (lengths[left] as number) - (lengths[right] as number) || left - right);
  const batches: number[][] = [];
  let batch: number[] = [];
  for (const index of order) {
    // Sorted ascending, so the newest member is the longest: the padded size is count × its length.
    const padded = (batch.length + 1) * (lengths[index] as number);
    if (batch.length > 0 && (padded > limits.maxBatchTokens || batch.length >= limits.maxBatchSize)) {
      batches.push(batch);
      batch = [];
    }
    batch.push(index);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
