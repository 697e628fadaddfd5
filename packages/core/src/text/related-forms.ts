/**
 * Words related to an English verb that stemming does not join to it: the base of an irregular
 * inflection ("born" → "bear", "won" → "win") and the nouns derived from a verb ("bear" → "birth",
 * "die" → "death", "marry" → "marriage"), from WordNet 3.0 (Princeton University; Miller, 1995,
 * "WordNet: A Lexical Database for English"): its verb exception list and its derivationally
 * related form pointers, in `related-forms.json`, built by
 * `scripts/lexicon/build-related-forms.mjs` (611 inflections, 3,900 verbs; only pairs whose stems
 * differ). A question's verb then names a record's field: "When was X born?" → `birthday`.
 * The same table holds WordNet's pertainyms and first-sense noun synonyms ({@link relatedWords}).
 * WordNet 3.0 Copyright 2006 by Princeton University; its license is `packages/core/WORDNET-LICENSE`,
 * shipped with the package.
 */
import table from "./related-forms.json" with { type: "json" };

const inflections = table.inflections as Record<string, string[]>;
const derivations = table.derivations as Record<string, string[]>;
const pertainyms = table.pertainyms as Record<string, string[]>;
const synonyms = table.synonyms as Record<string, string[]>;

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

/**
 * The words that may say what `word` (lower case) says, stemming aside: its related forms
 * ({@link relatedForms}), the nouns or adjectives it pertains to or that pertain to it (WordNet's
 * pertainym pointers: "presidential" ↔ "president", "French" ↔ "France"), and its noun synonyms
 * (the nouns sharing a synset with it where that synset is the most frequent sense of one of the
 * two: "cost" ↔ "price", "salary" ↔ "wage"; both words of general English). Lexical-semantic
 * matching of this kind is what Yih et al. (2013, "Question Answering Using Enhanced Lexical
 * Semantic Models", ACL) found to help answer sentence selection most beyond exact matches.
 *
 * @example
 * ```ts
 * relatedWords("cost"); // ["price"]
 * relatedWords("french"); // ["france", "gallic"]
 * ```
 */
export function relatedWords(word: string, options: RelatedWordsOptions = {}): string[] {
  const tables = options.synonyms === false ? [pertainyms] : [pertainyms, synonyms];
  const related = new Set<string>();
  for (const base of baseForms(word, [inflections, derivations, ...tables])) {
    for (const form of relatedForms(base)) related.add(form);
    for (const table of tables) if (Object.hasOwn(table, base)) for (const other of table[base] ?? []) related.add(other);
  }
  related.delete(word);
  return [...related];
}

/**
 * WordNet's detachment rules for regular inflections (morphy(7WN), "Rules of Detachment": nouns
 * -s, -ses, -xes, -zes, -ches, -shes, -men, -ies; verbs -s, -ies, -es, -ed, -ing), as suffix and
 * replacement.
 */
const detachments: readonly (readonly [string, string])[] = [
  ["s", ""],
  ["ses", "s"],
  ["xes", "x"],
  ["zes", "z"],
  ["ches", "ch"],
  ["shes", "sh"],
  ["men", "man"],
  ["ies", "y"],
  ["es", "e"],
  ["es", ""],
  ["ed", "e"],
  ["ed", ""],
  ["ing", "e"],
  ["ing", ""],
];

/** `word` and the bases its regular inflection detaches to ({@link detachments}) that one of `tables` holds ("costs" → "cost"). */
function baseForms(word: string, tables: readonly Record<string, string[]>[]): string[] {
  const bases = [word];
  for (const [suffix, replacement] of detachments) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
    const base = `${word.slice(0, -suffix.length)}${replacement}`;
    if (!bases.includes(base) && tables.some((table) => Object.hasOwn(table, base))) bases.push(base);
  }
  return bases;
}

/** Options of {@link relatedWords}. */
export interface RelatedWordsOptions {
  /** Include noun synonyms (default true); without them, only forms of the word itself (inflections, derivations, pertainyms). */
  synonyms?: boolean | undefined;
}
