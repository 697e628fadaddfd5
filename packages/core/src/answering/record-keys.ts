/**
 * How a column name or record key is read as words: split like Lucene's word delimiter filter
 * ({@link keyWords}), the years its two-digit numbers abbreviate ({@link keyYears}), and the
 * question terms it names by prefix or a related form ({@link keyTermsOf}). `rankEvidence` reads
 * a cell's key with these, and grounding and the extractive answerer read keys the same way.
 */
import { relatedForms } from "../text/related-forms.js";
import type { WeightedTerm } from "./evidence.js";

/**
 * The analysed terms of a column name or record key ({@link keyWords}), plus each question term
 * of four letters or more that one of them begins with or that begins one of them, or whose word
 * has a related form that does ({@link relatedForms}: an irregular verb's base, a noun derived
 * from the verb): a field is named by a derived word more often than prose is (`discoverer` for
 * "discovered", `startdate` for "start", `birthday` for "born"), and the Porter stemmer does not
 * conflate agent nouns with their verbs.
 */
export function keyTermsOf(key: string, questionTerms: readonly WeightedTerm[], analyze: (text: string) => string[]): Set<string> {
  const words = keyWords(key).toLowerCase();
  const terms = new Set(analyze(keyTermText(key)));
  const pieces = [...terms, ...words.split(/\s+/)];
  const matches = (term: string) => pieces.some((piece) => sharePrefix(piece, term));
  const forms = relatedTermsOf(questionTerms, analyze);
  for (const { term } of questionTerms) {
    if (terms.has(term)) continue;
    // The word itself, or a form WordNet relates to it that stemming does not ("born" → "birth" in `birthday`).
    if (matches(term) || (forms.get(term) ?? []).some((formTerm) => terms.has(formTerm) || matches(formTerm))) terms.add(term);
  }
  for (const part of compoundParts(words.split(/\s+/), questionTerms)) terms.add(part);
  return terms;
}

/** Whether one of two words begins the other, both of {@link minimumPrefixLength} letters or more. */
function sharePrefix(left: string, right: string): boolean {
  return left.length >= minimumPrefixLength && right.length >= minimumPrefixLength && (left.startsWith(right) || right.startsWith(left));
}

/** Shortest part of a compound key word ({@link compoundParts}): three letters ("win" in `winpercent`). */
const minimumCompoundPart = 3;

/**
 * The question terms that a key word written without separators joins ("win percentage" in
 * `winpercent`, "zip code" in `zipcode`): a word that splits into two parts of three letters or
 * more, each a question term or a prefix of one (or beginning with one, four letters or more).
 * Both parts must be question words, and the word itself not one, so a word is split only where the
 * question reads it so: `candidate` is not "date" for a question about a candidate.
 */
function compoundParts(words: readonly string[], questionTerms: readonly WeightedTerm[]): string[] {
  const termMatching = (part: string) => questionTerms.find(({ term }) => term === part || sharePrefix(part, term))?.term;
  const parts: string[] = [];
  for (const word of words) {
    // A word the question itself says ("candidate") is no compound of the question's words.
    if (word.length < 2 * minimumCompoundPart || !/^\p{Ll}+$/u.test(word) || termMatching(word) !== undefined) continue;
    for (let cut = minimumCompoundPart; cut <= word.length - minimumCompoundPart; cut++) {
      const left = termMatching(word.slice(0, cut));
      const right = left === undefined ? undefined : termMatching(word.slice(cut));
      if (left !== undefined && right !== undefined && left !== right) {
        parts.push(left, right);
        break;
      }
    }
  }
  return parts;
}

/** Per question (its terms array): each term's related forms ({@link relatedForms}), analysed, computed once. */
const relatedTermsCache = new WeakMap<readonly WeightedTerm[], Map<string, string[]>>();
function relatedTermsOf(questionTerms: readonly WeightedTerm[], analyze: (text: string) => string[]): Map<string, string[]> {
  let forms = relatedTermsCache.get(questionTerms);
  if (!forms) {
    forms = new Map(questionTerms.map(({ term, word }) => [term, relatedForms(word).flatMap((form) => analyze(form))]));
    relatedTermsCache.set(questionTerms, forms);
  }
  return forms;
}

/** Shortest term that matches a key by prefix ({@link keyTermsOf}): four letters, below which prefixes are chance ("art" in "artist"). */
const minimumPrefixLength = 4;

/**
 * The words of a column name or record key: split at `_`, `.`, `-` and changes of case
 * (`RottenTomatoes` → "Rotten Tomatoes", `wine_servings` → "wine servings"), as Lucene's word
 * delimiter filter splits them.
 */
export function keyWords(key: string): string {
  return key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/[_.\-/]+/g, " ");
}

/** The text whose terms a key states: its words ({@link keyWords}) and the years they abbreviate ({@link keyYears}). */
export function keyTermText(key: string): string {
  const words = keyWords(key);
  return [words, ...keyYears(words)].join(" ");
}

/** Two-digit numbers that stand alone among a key's words. */
const twoDigitWord = /(?<![\p{L}\p{N}])\d{2}(?![\p{L}\p{N}])/gu;
/**
 * POSIX `strptime` `%y`: two-digit years 69–99 are 1969–1999, 00–68 are 2000–2068 (The Open Group
 * Base Specifications, strptime).
 */
const twoDigitYearPivot = 69;

/**
 * The four-digit years that a key's standalone two-digit numbers abbreviate, read by the POSIX
 * `%y` pivot ({@link twoDigitYearPivot}): field names shorten years ("incidents_85_99",
 * "sales 03"), questions spell them out ("between 1985 and 1999"). Only keys are read this way: a
 * cell's "14" is a value, not a year.
 *
 * @param words - the key's words ({@link keyWords}).
 * @example
 * keyYears("fatalities 00 14"); // ["2000", "2014"]
 */
export function keyYears(words: string): string[] {
  return [...words.matchAll(twoDigitWord)].map(([digits]) => {
    const value = Number(digits);
    return String(value >= twoDigitYearPivot ? 1900 + value : 2000 + value);
  });
}
