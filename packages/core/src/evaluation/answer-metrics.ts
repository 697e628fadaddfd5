/**
 * The answer metrics of the SQuAD evaluation script (Rajpurkar et al., 2016 and 2018, the
 * official `evaluate-v2.0.py`): answers are normalised (lower case, punctuation and the articles
 * "a", "an", "the" removed, whitespace collapsed); exact match and token F1 are taken as the best
 * over the reference answers. A question without references (unanswerable) scores 1 when the
 * prediction is empty (an abstention) and 0 otherwise, as in SQuAD 2.0.
 */

/** SQuAD's answer normalisation (`normalize_answer`). */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, " ")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** 1 when the normalised prediction equals a normalised reference, else 0 (best over `references`). */
export function exactMatch(prediction: string, references: readonly string[]): number {
  if (references.length === 0) return prediction.trim() === "" ? 1 : 0;
  const predicted = normalizeAnswer(prediction);
  return references.some((reference) => normalizeAnswer(reference) === predicted) ? 1 : 0;
}

/**
 * Token F1 of the normalised prediction against the best reference: with `common` the size of
 * the multiset intersection of the tokens, precision = common / |prediction|, recall = common /
 * |reference|, F1 = 2PR / (P + R).
 *
 * @example
 * ```ts
 * tokenF1("in the 10th century", ["10th century"]); // 0.8
 * ```
 */
export function tokenF1(prediction: string, references: readonly string[]): number {
  if (references.length === 0) return prediction.trim() === "" ? 1 : 0;
  const predicted = tokens(prediction);
  let best = 0;
  for (const reference of references) {
    const expected = tokens(reference);
    if (predicted.length === 0 || expected.length === 0) {
      best = Math.max(best, predicted.length === expected.length ? 1 : 0);
      continue;
    }
    const counts = new Map<string, number>();
    for (const token of expected) counts.set(token, (counts.get(token) ?? 0) + 1);
    let common = 0;
    for (const token of predicted) {
      const left = counts.get(token) ?? 0;
      if (left > 0) {
        common++;
        counts.set(token, left - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / predicted.length;
    const recall = common / expected.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

/** Whether a normalised reference occurs in the normalised `text` on word boundaries. */
export function containsAnswer(text: string, references: readonly string[]): boolean {
  const haystack = ` ${normalizeAnswer(text)} `;
  return references.some((reference) => {
    const needle = normalizeAnswer(reference);
    return needle !== "" && haystack.includes(` ${needle} `);
  });
}

function tokens(text: string): string[] {
  const normalized = normalizeAnswer(text);
  return normalized === "" ? [] : normalized.split(" ");
}
