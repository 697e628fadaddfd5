/**
 * The text analyzer behind BM25 and the extractive answerer: the same steps as Lucene's
 * `EnglishAnalyzer` (the analyzer of the published Anserini and Elasticsearch BM25 baselines),
 * with CJK bigrams for scripts written without spaces.
 *
 * Steps, in order:
 * 1. Unicode NFKC normalisation and lower-casing.
 * 2. Tokens are maximal runs of letters, marks and digits, with inner apostrophes kept
 *    (`don't`), like Unicode word segmentation (UAX #29) for alphabetic scripts.
 * 3. English possessive `'s` is removed; remaining apostrophes are dropped.
 * 3a. Latin letters are folded to ASCII (`foldDiacritics`, on by default; Lucene's
 *    `ASCIIFoldingFilter`, Elasticsearch's `asciifolding`, for the Latin alphabet): diacritics are
 *    removed ("Pokémon" → "pokemon", "naïve" → "naive") and ß, æ, œ, ø, ł, đ, ð, þ and dotless ı
 *    are written as ss, ae, oe, o, l, d, d, th and i, so a question typed without accents finds
 *    the text written with them, and the other way round; the word is then stemmed as English.
 *    Other scripts keep their marks (Cyrillic й, Devanagari vowel signs).
 * 4. Runs of Han, Hiragana or Katakana become overlapping character bigrams (Lucene's
 *    `CJKBigramFilter`), so Chinese and Japanese text is searchable without a dictionary.
 * 5. Stop words ({@link englishStopWords}) are removed.
 * 6. ASCII words are stemmed with the Porter stemmer (Porter, 1980, "An algorithm for suffix
 *    stripping"), via the `stemmer` package. Other scripts are kept as they are.
 * 7. Tokens longer than 64 characters are dropped (hashes, base64, minified code).
 */
import { stemmer } from "stemmer";
import { englishStopWords } from "./english-stop-words.js";

/** Turns text into index terms. */
export interface Analyzer {
  /** Name, recorded with an index so that queries use the analyzer the index was built with. */
  readonly name: string;
  /** The terms of `text`, in order, with repetitions. */
  analyze(text: string): string[];
}

/** Options of {@link createEnglishAnalyzer}. */
export interface EnglishAnalyzerOptions {
  /** Stop words to remove; default {@link englishStopWords}. Pass an empty set to keep all. */
  stopWords?: ReadonlySet<string>;
  /** Apply the Porter stemmer to ASCII words; default true. */
  stem?: boolean;
  /**
   * Fold Latin letters with diacritics to ASCII (step 3a); default true. False gives the
   * analyzer of indexes built before 2026-11-29, named `english-porter-v1`.
   */
  foldDiacritics?: boolean;
}

const tokenPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;
const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const cjkRunPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const asciiWordPattern = /^[a-z]+$/;
/** A Latin letter followed by combining marks (after canonical decomposition). */
const markedLatinPattern = /(\p{Script=Latin})\p{M}+/gu;
/** Latin letters beyond ASCII (Latin-1 Supplement, Extended-A and -B, Extended Additional), composed as NFKC leaves them. */
const latinBeyondAsciiPattern = /[\u00c0-\u024f\u1e00-\u1eff]/;
/** Latin letters that do not decompose into a base letter and a mark (Lucene's ASCIIFoldingFilter). */
const latinLigatures: Readonly<Record<string, string>> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i" };
const latinLigaturePattern = /[ßæœøłđðþı]/g;

/** `token` with its Latin letters folded to ASCII (step 3a of {@link createEnglishAnalyzer}). */
export function foldLatinDiacritics(token: string): string {
  if (!latinBeyondAsciiPattern.test(token)) return token;
  return token
    .normalize("NFD")
    .replace(markedLatinPattern, "$1")
    .replace(latinLigaturePattern, (letter) => latinLigatures[letter] ?? letter)
    .normalize("NFC");
}
const maximumTokenLength = 64;
const stemCacheLimit = 200_000;

/**
 * Creates the default analyzer, named `english-porter-v2` (`english-porter-v1` without
 * `foldDiacritics`; `-nostem` and `-customstop` mark the other options).
 *
 * @example
 * ```ts
 * createEnglishAnalyzer().analyze("The runners' running shoes"); // ["runner", "run", "shoe"]
 * ```
 */
export function createEnglishAnalyzer(options: EnglishAnalyzerOptions = {}): Analyzer {
  const stopWords = options.stopWords ?? englishStopWords;
  const stem = options.stem ?? true;
  const fold = options.foldDiacritics ?? true;
  const stemCache = new Map<string, string>();

  const stemWord = (word: string): string => {
    if (!stem || word.length < 3 || !asciiWordPattern.test(word)) return word;
    let stemmed = stemCache.get(word);
    if (stemmed === undefined) {
      stemmed = stemmer(word);
      if (stemCache.size >= stemCacheLimit) stemCache.clear();
      stemCache.set(word, stemmed);
    }
    return stemmed;
  };

  const pushTerm = (terms: string[], term: string) => {
    if (term.length === 0 || term.length > maximumTokenLength || stopWords.has(term)) return;
    terms.push(stemWord(term));
  };

  return {
    name: `english-porter-v${fold ? 2 : 1}${stem ? "" : "-nostem"}${stopWords === englishStopWords ? "" : "-customstop"}`,
    analyze(text: string): string[] {
      const terms: string[] = [];
      const normalized = text.normalize("NFKC").toLowerCase();
      for (const match of normalized.matchAll(tokenPattern)) {
        let token = match[0];
        if (token.endsWith("'s") || token.endsWith("\u2019s")) token = token.slice(0, -2);
        token = token.replace(/['\u2019]/g, "");
        if (fold) token = foldLatinDiacritics(token);
        if (!cjkPattern.test(token)) {
          pushTerm(terms, token);
          continue;
        }
        for (const run of token.matchAll(cjkRunPattern)) {
          const part = run[0];
          if (!cjkPattern.test(part)) {
            pushTerm(terms, part);
            continue;
          }
          const characters = [...part];
          if (characters.length === 1) pushTerm(terms, part);
          for (let index = 0; index + 1 < characters.length; index++) {
            pushTerm(terms, `${characters[index]}${characters[index + 1]}`);
          }
        }
      }
      return terms;
    },
  };
}

/**
 * The English analyzer named `name` with the default stop words (`english-porter-v2`,
 * `english-porter-v1`, each with `-nostem`), or undefined for another name. A store that records
 * the analyzer its index was built with (Milvus's `docqa.text_analysis`) keeps analysing that
 * index's queries and writes with it after the default changes.
 */
export function englishAnalyzerNamed(name: string): Analyzer | undefined {
  const match = /^english-porter-v([12])(-nostem)?$/.exec(name);
  if (!match) return undefined;
  return createEnglishAnalyzer({ foldDiacritics: match[1] === "2", stem: match[2] === undefined });
}
