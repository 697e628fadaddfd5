/**
 * The default `ABSTAIN_MIN_DENSE` of an embedding model. Sentence encoders place unrelated text at
 * different cosines (all-MiniLM-L6-v2 near 0.2, bge-small-en-v1.5 near 0.5, whose vectors share a
 * common direction), so one threshold does not fit every model even after the dense signal is
 * divided by the question's own similarity. Each value below was measured with
 * `scripts/calibrate-abstention.mjs` on the out-of-corpus question sets of `examples/evaluation/`
 * and SQuAD 2.0's shared dev articles (docs/answering.md): the lowest value that abstains on at
 * least 90 % of the out-of-corpus questions on every collection measured, without losing more than
 * one further point of answerable SQuAD questions.
 */

/** Model families and their measured thresholds; the first whose pattern matches the model id applies. */
const measured: readonly { pattern: RegExp; threshold: number }[] = [
  // bge-small-en-v1.5: out-of-corpus dense signal q95 0.62 on the example corpus and the SQuAD and
  // XQuAD paragraphs, answerable SQuAD q05 0.64; the shared documents' record lines (`species:
  // Rabbit`) sit closer to unrelated questions, and 90 % of those are abstained from 0.67 on, at
  // one point of answerable SQuAD questions (the rule above; 0.64 gave 83 %).
  { pattern: /bge-(small|base|large)-en/i, threshold: 0.67 },
  // all-MiniLM-L6-v2: out-of-corpus q95 0.38, answerable SQuAD q05 0.49.
  { pattern: /all-MiniLM/i, threshold: 0.5 },
];

/** The threshold for a model without a measurement: all-MiniLM-L6-v2's. */
export const fallbackDenseThreshold = 0.5;

/**
 * The dense threshold of `modelId` when `ABSTAIN_MIN_DENSE` is not set: the measured value of its
 * family, else {@link fallbackDenseThreshold} (measure yours with `scripts/calibrate-abstention.mjs`).
 */
export function defaultDenseThreshold(modelId: string): number {
  return measured.find(({ pattern }) => pattern.test(modelId))?.threshold ?? fallbackDenseThreshold;
}
