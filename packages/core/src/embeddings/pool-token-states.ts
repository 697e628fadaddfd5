/**
 * Sentence embeddings from an encoder's token states: CLS or attention-masked mean pooling, then
 * L2 normalisation, as sentence-transformers' `Pooling` and `Normalize` modules compute them.
 */
import type { Pooling } from "./embedding-model-presets.js";

/** The encoder output of one batch: `[rows, tokens, dimension]`, row-major. */
export interface TokenStates {
  data: Float32Array;
  rows: number;
  tokens: number;
  dimension: number;
}

/**
 * Pools each row of `states` into one unit-length vector.
 *
 * @param states - `last_hidden_state` of a batch.
 * @param lengths - real (unpadded) tokens of each row; padding sits at the end of a row.
 * @param pooling - `cls`: the first token's state; `mean`: the mean over the row's real tokens.
 * @returns one vector of `dimension` components per row, L2-normalised (a zero vector stays zero).
 */
export function poolTokenStates(states: TokenStates, lengths: readonly number[], pooling: Pooling): Float32Array[] {
  const { data, tokens, dimension } = states;
  const vectors: Float32Array[] = [];
  for (let row = 0; row < states.rows; row++) {
    const vector = new Float32Array(dimension);
    const rowStart = row * tokens * dimension;
    if (pooling === "cls") {
      vector.set(data.subarray(rowStart, rowStart + dimension));
    } else {
      const count = Math.max(1, Math.min(tokens, lengths[row] ?? tokens));
      for (let token = 0; token < count; token++) {
        const offset = rowStart + token * dimension;
        for (let component = 0; component < dimension; component++)
          vector[component] = (vector[component] as number) + (data[offset + component] as number);
      }
      for (let component = 0; component < dimension; component++) vector[component] = (vector[component] as number) / count;
    }
    let norm = 0;
    for (let component = 0; component < dimension; component++) norm += (vector[component] as number) ** 2;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let component = 0; component < dimension; component++) vector[component] = (vector[component] as number) / norm;
    vectors.push(vector);
  }
  return vectors;
}
