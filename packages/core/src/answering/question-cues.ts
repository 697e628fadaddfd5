/**
 * Question-type cues for answer selection: what kind of answer a question asks for (a number, a
 * date, a named entity), whether a sentence offers one that the question does not already state,
 * and whether question and sentence disagree on negation.
 *
 * The cue words follow the answer-type taxonomy of open-domain QA systems (Li & Roth, 2002,
 * "Learning Question Classifiers", coarse classes NUM, LOC, HUM) reduced to what a surface test
 * can check without a tagger: digits and number words for NUM, years, months, weekdays and
 * clock times for dates, capitalised words inside a sentence for HUM and LOC.
 */

import { questionStopWords } from "../text/english-stop-words.js";

/** The kind of answer a question asks for, or none recognised. */
export type AnswerType = "number" | "date" | "entity" | "code" | null;

const numberCue =
  /\b(how (many|much|long|old|far|large|big|high|tall|deep|wide|often|fast|heavy)|what (number|percentage|percent|proportion|amount|size|share|rate|score|age)|which (number|percentage|amount))\b/i;
const dateCue =
  /\b(when|what (year|date|day|month|time|century|decade|period|era)|which (year|date|day|month|century|decade)|since when)\b/i;
const entityCue =
  /\b(who|whom|whose|where|which (person|people|company|organi[sz]ation|country|city|state|place|team|group|king|author)|what (country|city|state|place|company|organi[sz]ation|team|language|nationality))\b/i;

/**
 * A question asking for a command ("Which command opens the local documentation?", "What shell
 * command lists the toolchains?"), which documentation writes as code. Words that prose also uses
 * of other things are left out: "method", "function", "trait", "flag", "type", "option" (SQuAD 2.0
 * asks "What function does ozone perform?" and "What method was used to clear forest?").
 */
const codeCue = /\b(which|what) (shell |cli |terminal |console )?(command|subcommand|cmdlet)s?\b/i;
/** An inline code span as Markdown writes it (`` `rustup doc` ``). */
const codeSpan = /`([^`\n]+)`/g;

const personCue = /\b(who|whom|whose)\b/i;
const numberWords =
  /\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half|once|twice|single|double|triple)\b/gi;
const digits = /\d+(?:[.,:]\d+)*%?/g;
const months =
  /\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|thursday|friday|saturday|sunday|century|centuries|decade|spring|summer|autumn|winter)\b/gi;
/** Spans of time longer than a year, which answer "what year…" too ("in the 18th century"). */
const centuries = /\b(century|centuries|decade|decades|millennium)\b/gi;
const capitalised = /(?<=\S\s+)[\p{Lu}][\p{L}\p{M}'-]+/gu;
/** A question asking for a year ("In what year…", "Which year…"), which a year answers, not any number. */
const yearCue = /\b(what|which) year\b/i;
/**
 * A year as prose writes one: four digits from 1000 to 2199, an optional decade's "s" ("1990s"),
 * or a two-digit decade ("'90s"). Identifiers and codes ("GAO-23-106826") hold none.
 */
const years = /(?<![\p{L}\p{N}-])(1\d{3}|2[01]\d{2})s?(?![\p{L}\p{N}-])|['\u2019]\d0s\b/gu;
const negation = /\b(not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n['\u2019]t\b/i;

/**
 * The answer type a question asks for, from its wording: `number` for "how many/much/long…",
 * `date` for "when/what year…", `entity` for "who/where/which country…", `code` for "which
 * command…" ({@link codeCue}); null otherwise.
 *
 * @example
 * ```ts
 * expectedAnswerType("How many days of leave do I get?"); // "number"
 * expectedAnswerType("When was the treaty signed?"); // "date"
 * ```
 */
export function expectedAnswerType(question: string): AnswerType {
  if (codeCue.test(question)) return "code";
  if (numberCue.test(question)) return "number";
  if (dateCue.test(question)) return "date";
  if (entityCue.test(question)) return "entity";
  return null;
}

/** The lower-cased tokens of `pattern` in `text`. */
function tokensOf(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((match) => match[0].toLowerCase());
}

/**
 * Whether `sentence` holds a candidate answer of `type` that `question` does not already state
 * (an answer repeats no part of its question): digits or number words for `number`; a year,
 * month, weekday, century or clock time for `date` (a bare number counts too; a question asking
 * "what year" or "which year" only a year, decade or century); a capitalised word
 * after the first for `entity` (or a number, unless the question asks "who"); an inline code span
 * for `code` (a command or code unit offers one by its kind, in `rankEvidence`). Null when `type` is null.
 */
export function offersAnswerType(sentence: string, question: string, type: AnswerType): boolean | null {
  if (type === null) return null;
  const inQuestion = new Set(question.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []);
  const novel = (tokens: string[]) => tokens.some((token) => !inQuestion.has(token.replace(/[.,:%]+$/, "")));
  switch (type) {
    case "number":
      return novel(tokensOf(sentence, digits)) || novel(tokensOf(sentence, numberWords));
    case "date":
      // "What year…" is answered by a year (or a century, a decade); "when…" by any date or number.
      if (yearCue.test(question)) return novel(tokensOf(sentence, years)) || novel(tokensOf(sentence, centuries));
      return novel(tokensOf(sentence, digits)) || novel(tokensOf(sentence, months));
    case "entity":
      // "Who" asks for a person, whom no number names; "where" or "which team" may be answered by one.
      return novel(tokensOf(sentence, capitalised)) || (!personCue.test(question) && novel(tokensOf(sentence, digits)));
    case "code":
      return [...sentence.matchAll(codeSpan)].some((match) =>
        novel((match[1] as string).toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []),
      );
  }
}

/**
 * Pairs of opposites for the contradiction test: comparison, order, size, time and quantity
 * words whose swap turns a statement into a different one. Words are compared after stemming.
 */
const oppositePairs: readonly (readonly [string, string])[] = [
  ["most", "least"],
  ["largest", "smallest"],
  ["larger", "smaller"],
  ["biggest", "smallest"],
  ["first", "last"],
  ["before", "after"],
  ["more", "less"],
  ["more", "fewer"],
  ["higher", "lower"],
  ["highest", "lowest"],
  ["increase", "decrease"],
  ["maximum", "minimum"],
  ["best", "worst"],
  ["better", "worse"],
  ["earliest", "latest"],
  ["earlier", "later"],
  ["oldest", "youngest"],
  ["oldest", "newest"],
  ["longest", "shortest"],
  ["longer", "shorter"],
  ["begin", "end"],
  ["start", "end"],
  ["easier", "harder"],
  ["easiest", "hardest"],
  ["always", "never"],
  ["include", "exclude"],
  ["win", "lose"],
  ["success", "failure"],
  ["same", "different"],
  ["above", "below"],
  ["upper", "lower"],
  ["inside", "outside"],
  ["north", "south"],
  ["east", "west"],
  ["allow", "forbid"],
  ["accept", "reject"],
  ["fixed", "flexible"],
  ["simple", "complex"],
  ["rich", "poor"],
  ["strong", "weak"],
  ["major", "minor"],
  ["common", "rare"],
  ["many", "few"],
  ["full", "empty"],
  ["open", "closed"],
  ["true", "false"],
];
/**
 * Prefixes that negate a word ("unequal", "inefficient", "impossible", "nondeterministic"). "dis"
 * is left out: it forms too many words that are not opposites ("discover", "display").
 */
const negatingPrefixes = ["un", "in", "im", "il", "ir", "non"];
/** Shortest word a prefix is taken off or put on: shorter ones make accidental pairs ("inform", "form"). */
const shortestPrefixedBase = 5;
const lowerWordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/**
 * Whether `sentence` says the opposite of `question` on one point: the question has a word that
 * the sentence lacks while the sentence has its opposite ({@link oppositePairs}), or the negated
 * form of it made with a prefix ("uncomplicated" against "complicated", "equal" against
 * "unequal"). Returns the question word, or undefined.
 *
 * @example
 * ```ts
 * contradiction("What is the least common form?", "The most common form is the mosaic."); // "least"
 * ```
 */
export function contradiction(question: string, sentence: string): string | undefined {
  const questionWords = new Set(question.toLowerCase().match(lowerWordPattern) ?? []);
  const sentenceWords = new Set(sentence.toLowerCase().match(lowerWordPattern) ?? []);
  for (const word of questionWords) {
    if (sentenceWords.has(word)) continue;
    for (const [left, right] of oppositePairs) {
      const opposite = word === left ? right : word === right ? left : undefined;
      if (opposite !== undefined && sentenceWords.has(opposite) && !questionWords.has(opposite)) return word;
    }
    if (word.length < shortestPrefixedBase) continue;
    for (const prefix of negatingPrefixes) {
      const base = word.startsWith(prefix) ? word.slice(prefix.length) : undefined;
      if (base !== undefined && base.length >= shortestPrefixedBase && sentenceWords.has(base) && !questionWords.has(base)) return word;
      if (sentenceWords.has(prefix + word) && !questionWords.has(prefix + word)) return word;
    }
  }
  return undefined;
}

const numberWordSet = new Set(
  "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion".split(
    " ",
  ),
);

/**
 * The specific constraints of a question: its names (capitalised words after the first, other
 * than "I") and its numbers (digits and number words). An answer must be about them, so text
 * that mentions none of one of them cannot answer the question.
 *
 * @example
 * ```ts
 * questionConstraints("Who led the Norman army in 1066?"); // ["norman", "1066"]
 * ```
 */
export function questionConstraints(question: string): string[] {
  const constraints: string[] = [];
  const words = [...question.matchAll(lowerWordPattern)].map((match) => match[0]);
  words.forEach((word, index) => {
    const lower = word.toLowerCase();
    const named = index > 0 && /^\p{Lu}/u.test(word) && word.length > 1;
    const numeric = /^\d/.test(word) || numberWordSet.has(lower);
    if ((named || numeric) && !constraints.includes(lower)) constraints.push(lower);
  });
  return constraints;
}

/**
 * The names of `question` written in two words or more: runs of capitalised words after its first
 * word, lower-cased ("How much did Norwich City pay to sign Iwan Roberts?" → [["norwich", "city"],
 * ["iwan", "roberts"]]).
 */
export function namePhrases(question: string): string[][] {
  const phrases: string[][] = [];
  let run: string[] = [];
  [...question.matchAll(lowerWordPattern)].forEach((match, index) => {
    const word = match[0];
    const gap = index > 0 ? question.slice((match.index ?? 0) - 1, match.index) : "";
    if (index > 0 && /^\p{Lu}/u.test(word) && word.length > 1 && (run.length === 0 || gap === " ")) run.push(word.toLowerCase());
    else {
      if (run.length >= 2) phrases.push(run);
      run = index > 0 && /^\p{Lu}/u.test(word) && word.length > 1 ? [word.toLowerCase()] : [];
    }
  });
  if (run.length >= 2) phrases.push(run);
  return phrases;
}

const numberWordDigits: Record<string, string> = {
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  eleven: "11",
  twelve: "12",
  twenty: "20",
  thirty: "30",
  forty: "40",
  fifty: "50",
  hundred: "100",
};

/** A constraint of the question and how a passage meets it. */
export interface QuestionConstraint {
  /** The word as the question writes it, lower-cased. */
  word: string;
  /** `number` for digits and number words, `name` for the rest. */
  kind: "number" | "name";
  /**
   * Whether a passage with these analysed terms and this text meets it: a number by its digits
   * (also as a prefix: "1700s" and "the 1700s" meet "1700", "70's" meets "70"; a number word by its
   * digits too); an acronym by its letters or by the initials of consecutive capitalised words
   * ("UN" and "United Nations"); a name by each of its terms, allowing one typo in a term of five
   * letters or more (Damerau–Levenshtein distance 1) and a shared stem of four letters or more
   * ("Indian" and "India").
   */
  met(terms: ReadonlySet<string>, text: string): boolean;
}

/** The constraints of `question` ({@link questionConstraints}) with their matching rules. */
export function constraintsOf(question: string, analyze: (text: string) => string[]): QuestionConstraint[] {
  const original = new Map<string, string>();
  for (const match of question.matchAll(lowerWordPattern)) original.set(match[0].toLowerCase(), match[0]);
  return questionConstraints(question).map((word) => {
    const written = original.get(word) ?? word;
    const digits = /^\d/.test(word) ? word.replace(/['\u2019]?s$/, "").replace(/(st|nd|rd|th)$/, "") : numberWordDigits[word];
    if (digits !== undefined) {
      return { word, kind: "number", met: (terms) => terms.has(word) || [...terms].some((term) => term.startsWith(digits)) };
    }
    if (/^\p{Lu}{2,6}$/u.test(written)) {
      return {
        word,
        kind: numberWordSet.has(word) ? "number" : "name",
        met: (terms, text) => terms.has(word) || new RegExp(`\\b${written}\\b`, "u").test(text) || initialsOf(text).includes(written),
      };
    }
    const wanted = analyze(word);
    return {
      word,
      kind: numberWordSet.has(word) || /^\d/.test(word) ? "number" : "name",
      met: (terms) => wanted.every((term) => terms.has(term) || [...terms].some((candidate) => resembles(term, candidate))),
    };
  });
}

/** The initials of each run of capitalised words of `text` ("the United Nations Council" → "UNC"). */
function initialsOf(text: string): string {
  return (text.match(/\p{Lu}[\p{L}\p{M}'-]*(?:\s+(?:of\s+|and\s+|for\s+)?\p{Lu}[\p{L}\p{M}'-]*)*/gu) ?? [])
    .map((run) =>
      run
        .split(/\s+/)
        .filter((word) => /^\p{Lu}/u.test(word))
        .map((word) => word[0])
        .join(""),
    )
    .join(" ");
}

/** Whether two analysed terms are one typo apart (five letters or more) or share a stem of four letters or more. */
export function resembles(wanted: string, candidate: string): boolean {
  if (wanted.length >= 4 && candidate.length >= 4 && (wanted.startsWith(candidate) || candidate.startsWith(wanted))) return true;
  return wanted.length >= 5 && Math.abs(wanted.length - candidate.length) <= 1 && withinOneEdit(wanted, candidate);
}

/** Damerau–Levenshtein distance at most 1 (one insertion, deletion, substitution or transposition). */
function withinOneEdit(left: string, right: string): boolean {
  if (left === right) return true;
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start++;
  const leftRest = left.slice(start);
  const rightRest = right.slice(start);
  if (leftRest.slice(1) === rightRest.slice(1)) return true;
  if (leftRest.slice(1) === rightRest || leftRest === rightRest.slice(1)) return true;
  return leftRest.length >= 2 && leftRest[0] === rightRest[1] && leftRest[1] === rightRest[0] && leftRest.slice(2) === rightRest.slice(2);
}

/** Disjunctions that mention a negation without negating ("whether or not", "may or may not"). */
const disjunction = /\b(or not|or no|or never|may or may not|can or cannot|whether or not)\b/gi;

/** Whether `text` contains a negation ("not", "never", "no", "-n't", "without", ...); "whether or not" is none. */
export function isNegated(text: string): boolean {
  return negation.test(text.replace(disjunction, " "));
}

/** Words that end the counted noun phrase of "how many …": verbs, auxiliaries, articles, prepositions. */
const countedPhraseEnd = new Set(
  "a an the do does did is are was were be been have has had can could will would shall should must may might of in on at for to from per by with there that which who".split(
    " ",
  ),
);

/**
 * The counted noun of a "how many" question: the last word of the noun phrase after "how many"
 * ("trucks" in "How many trucks were used…", "days" in "How many vacation days do new employees
 * get?"), lower-cased; undefined for other questions. It is the question's answer focus (the
 * thing whose count is asked; Moldovan et al., 2000, "The Structure and Performance of an
 * Open-Domain Question Answering System"): a number answers only when it counts it.
 */
export function countedNoun(question: string): string | undefined {
  const words = [...question.matchAll(lowerWordPattern)].map((match) => match[0].toLowerCase());
  const start = words.findIndex((word, index) => word === "how" && words[index + 1] === "many");
  if (start < 0) return undefined;
  let noun: string | undefined;
  for (const word of words.slice(start + 2)) {
    if (countedPhraseEnd.has(word)) break;
    noun = word;
  }
  return noun;
}

/** Words between a number and the noun it counts ("at least 8 alphanumeric characters"). */
const countReach = 3;
const numberToken =
  /^(\d+(?:[.,]\d+)*%?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen)$/i;

/**
 * Whether `sentence` states a count of `noun` (analysed with `analyze`): a number at most
 * {@link countReach} words before the noun ("3 trucks", "8 alphanumeric characters"), or a
 * `key: value` pair whose key names the noun and whose value is a number
 * (`fatal_accidents_85_99: 14`, as CSV rows and JSON records are rendered).
 */
export function statesCount(sentence: string, noun: string, analyze: (text: string) => string[]): boolean {
  const wanted = analyze(noun)[0];
  if (wanted === undefined) return false;
  const tokens = sentence.match(/\d+(?:[.,]\d+)*%?|[\p{L}\p{M}]+(?:['\u2019][\p{L}\p{M}]+)*/gu) ?? [];
  for (let index = 0; index < tokens.length; index++) {
    if (analyze(tokens[index] as string)[0] !== wanted) continue;
    for (let back = Math.max(0, index - countReach - 1); back < index; back++) if (numberToken.test(tokens[back] as string)) return true;
  }
  for (const pair of sentence.split(/;\s+/)) {
    const match = /^([^:]{1,80}):\s+(-?\d+(?:[.,]\d+)*%?)$/.exec(pair.trim());
    if (match && analyze((match[1] as string).replace(/_/g, " ")).includes(wanted)) return true;
  }
  return false;
}

/**
 * Whether `sentence` states the question's frame with one of the question's content words
 * replaced by another ("divides the list in thirds" asked, "divides the list in half" written;
 * "a function of x" against "a function of n"): a question word that the sentence lacks stands
 * between the same two words as a different content word of the sentence that the question does
 * not use, and one more content word next to the slot matches too. Text boundaries count as
 * words, "a", "an" and "the" as one. Returns the question word, or undefined. This is the lexical
 * trace of the swapped entity or attribute by which an unanswerable question imitates an
 * answerable one (Rajpurkar et al., 2018, "Know What You Don't Know: Unanswerable Questions for
 * SQuAD", section 3: the "antonym" and "entity swap" categories).
 *
 * @param analyze - the analyzer's terms of a text (a stop word has none).
 */
export function substitution(question: string, sentence: string, analyze: (text: string) => string[]): string | undefined {
  const wordsOf = (text: string) => [
    "\u0002",
    ...((text.toLowerCase().match(lowerWordPattern) ?? []) as string[]).map((word) => (word === "an" || word === "the" ? "a" : word)),
    "\u0003",
  ];
  const questionWords = wordsOf(question);
  const sentenceWords = wordsOf(sentence);
  const termOf = (word: string | undefined) => (word === undefined || questionStopWords.has(word) ? undefined : analyze(word)[0]);
  const questionTerms = new Set(questionWords.map(termOf).filter((term): term is string => term !== undefined));
  const sentenceTerms = sentenceWords.map(termOf);
  const sentenceTermSet = new Set(sentenceTerms.filter((term): term is string => term !== undefined));
  const present = (term: string) => sentenceTermSet.has(term) || [...sentenceTermSet].some((candidate) => resembles(term, candidate));
  for (let index = 1; index + 1 < questionWords.length; index++) {
    const word = questionWords[index] as string;
    const term = termOf(word);
    if (term === undefined || present(term) || /^\d/.test(term)) continue;
    for (let position = 1; position + 1 < sentenceWords.length; position++) {
      if (sentenceWords[position - 1] !== questionWords[index - 1] || sentenceWords[position + 1] !== questionWords[index + 1]) continue;
      const replacement = sentenceTerms[position];
      if (replacement === undefined || questionTerms.has(replacement) || /^\d/.test(replacement)) continue;
      const anchors = [-2, -1, 1, 2].filter((offset) => {
        const asked = questionWords[index + offset];
        return asked !== undefined && asked === sentenceWords[position + offset] && termOf(asked) !== undefined;
      }).length;
      if (anchors > 0) return word;
    }
  }
  return undefined;
}

const procedureCue = /\bhow (do|can|could|should|would|shall|must) (i|you|we|one)\b|\bhow to\b/i;

/**
 * Whether `question` asks for a procedure ("How do I install Rust?", "How can you update it?",
 * "how to reset the password"): its answer is an instruction, not a sentence that names the goal.
 * "How does caching work?" asks for an explanation and is not one.
 */
export function asksProcedure(question: string): boolean {
  return procedureCue.test(question);
}

/** Whether `line` is a shell command as documentation prints one: after a `$`, `PS>` or `C:\>` prompt. */
export function isCommandLine(line: string): boolean {
  return /^(\$|PS>|C:\\>)\s?\S/.test(line.trim());
}

/** Words that end the focus phrase of a question: prepositions, auxiliaries and verbs' particles. */
const focusPhraseEnd = new Set(
  "of in on at for to from by with about as than that which who whom whose when where do does did is are was were be been has have had can could will would shall should must may might".split(
    " ",
  ),
);
/** Words skipped before the focus phrase starts ("what is the", "which of the"). */
const focusLead = new Set("is are was were the a an of".split(" "));

/**
 * The question's focus: the noun phrase after "what", "which" or "how many/much" that names the
 * kind of thing asked for ("city" in "What city has a radio station called the Wolf?", "boiling
 * point" in "What is the boiling point of ethanol?", "countries" in "How many countries …"), at
 * most three words; undefined for other questions ("who", "when", "why", yes/no). The focus names
 * the column of a table or the key of a record that holds the answer (the question focus of Li &
 * Roth, 2002, "Learning Question Classifiers", and Moldovan et al., 2000).
 *
 * @example
 * ```ts
 * questionFocus("What is the Rotten Tomatoes score of Mad Max: Fury Road?"); // ["rotten", "tomatoes", "score"]
 * ```
 */
export function questionFocus(question: string): string[] | undefined {
  const words = [...question.matchAll(lowerWordPattern)].map((match) => match[0].toLowerCase());
  let start = words.findIndex((word) => word === "what" || word === "which");
  if (start >= 0) start += 1;
  else {
    const how = words.findIndex((word, index) => word === "how" && (words[index + 1] === "many" || words[index + 1] === "much"));
    if (how < 0) return undefined;
    start = how + 2;
  }
  while (start < words.length && focusLead.has(words[start] as string)) start++;
  const focus: string[] = [];
  for (const word of words.slice(start)) {
    if (focusPhraseEnd.has(word) || focus.length === 3) break;
    focus.push(word);
  }
  return focus.length > 0 ? focus : undefined;
}
