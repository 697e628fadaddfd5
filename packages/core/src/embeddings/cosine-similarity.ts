/**
 * Cosine similarity of two embeddings, shared by the semantic split (`chunking/`) and the dense
 * signal of answer selection (`answering/`).
 */

/**
 * The cosine of the angle between `left` and `right` (same length), in [-1, 1]; 0 when either is
 * the zero vector. Embeddings need not be normalised.
 */
export function cosineSimilarity(left: readonly number[], right: readonly number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] as number;
    const b = right[index] as number;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}
