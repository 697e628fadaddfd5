/**
 * Words related to an English verb that stemming does not join to it: the base of an irregular
 * inflection ("born" → "bear", "won" → "win") and the nouns derived from a verb ("bear" → "birth",
 * "die" → "death", "marry" → "marriage"), from WordNet 3.0 (Princeton University; Miller, 1995,
 * "WordNet: A Lexical Database for English"): its verb exception list and its derivationally
 * related form pointers, in `related-forms.json`, built by
 * `scripts/lexicon/build-related-forms.mjs` (611 inflections, 3,900 verbs; only pairs whose stems
 * differ). A question's verb then names a record's field: "When was X born?" → `birthday`.
 * WordNet 3.0 Copyright 2006 by Princeton University; its license is `packages/core/WORDNET-LICENSE`,
 * shipped with the package.
 */
import table from "./related-forms.json" with { type: "json" };

const inflections = table.inflections as Record<string, string[]>;
const derivations = table.derivations as Record<string, string[]>;

/**
 * The words related to `word` (lower case) that its stem does not match: the bases of an irregular
 * inflection, and the nouns derived from the word or from those bases. Empty for words WordNet
 * relates to nothing else (most nouns, names, numbers).
 *
 * @example
 * ```ts
 * relatedForms("born"); // ["bear", "abidance", …, "birth", …]
 * ```
 */
export function relatedForms(word: string): string[] {
  const bases = Object.hasOwn(inflections, word) ? (inflections[word] ?? []) : [];
  const related = new Set<string>(bases);
  for (const verb of [word, ...bases]) {
    if (Object.hasOwn(derivations, verb)) for (const noun of derivations[verb] ?? []) related.add(noun);
  }
  return [...related];
}
