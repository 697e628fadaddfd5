/**
 * Grounding of a model's answer in the retrieved context: what small models get wrong, handled
 * by the pipeline rather than by the prompt alone.
 *
 * 1. A decline: a callout that says the sources hold no answer (the spec's empty-context sentence,
 *    or one of {@link declinePatterns}) is a typed abstention (`model_declined`).
 * 2. Citation phrasing: "According to [Source: doc_5], X" and "X, as stated in [Source: doc_5]"
 *    become "X [Source: doc_5]"; a sentence that only points at a source ("This can be found in
 *    [Source: doc_1].") is dropped and its citation given to the sentence before it.
 * 3. Every sentence of the callout and every list item without a citation gets the citation of
 *    the context unit that best supports it, or is dropped. Support is alignment of the sentence
 *    to the unit: the weighted share of the sentence's content terms that the unit (with its
 *    heading or row) states ({@link lexicalSupport}; a term weighs its idf over the context's
 *    passages times its word's background weight in general English, as in `rankEvidence`);
 *    words the sentence repeats from the question count when the unit holds them and are excused
 *    when it does not (they frame the question, they are not the model's claims), and the words it
 *    adds to the question must reach that share on their own. A record's ISO dates state their
 *    month's name ("1940-03-26" for "March 26, 1940"; day and year are compared by value in rule 4);
 *    lexical overlap and embedding similarity are the automatic attribution measures of Rashkin et al., 2023, "Measuring Attribution in
 *    Natural Language Generation Models", section 5. A sentence is supported when a unit states
 *    at least {@link minimumSupport} of it; among the units that do, an embedding model (when one
 *    is loaded) chooses the one whose passage vector is closest to the sentence's. Cosines are
 *    not used to decide support itself: their scale differs by model (unrelated texts sit near
 *    0.2 with all-MiniLM and near 0.5 with bge-small), and no attribution data is at hand to fit
 *    a threshold per model.
 * 4. Names and numbers: a sentence must not state a name that the passage it cites lacks, nor a
 *    number that the passage and the question lack (entity-level precision against the source:
 *    Nan et al., 2021, "Entity-level Factual Consistency of Abstractive Text Summarization", EACL,
 *    section 2; the names and numbers are those `questionConstraints` reads, matched by its rules,
 *    so "five" meets "5" and "Indian" meets "India"). The question's names are no exception: a
 *    passage that does not name the question's subject cannot state a fact about it ("Thomas
 *    Jefferson was born on 26 June 1968", citing a footballer's biography). The subject is the
 *    question's name least frequent in general English; a record (a passage read as fields) that
 *    holds it is excused the question's other names, which its field names may write otherwise
 *    ("Japanese" of `name_jp_romaji` for "What is Squirtle's Japanese name?"); prose is not, as a
 *    swapped qualifier there is the trace of a question the passage does not answer. The question's numbers
 *    are, since tables abbreviate them in their headers ("00_14" for 2000 to 2014). Such a sentence
 *    cites instead the context passage that holds all of them and at least {@link minimumSupport}
 *    of its content, or is dropped. Small models copy an entity from a neighbouring passage into an
 *    answer otherwise worded from the cited one; lexical overlap alone keeps those sentences.
 *    A number of a record (a cell's value) is stated of the field it is the value of: a sentence
 *    citing records that states a number the question lacks must name (as `rankEvidence` reads
 *    keys: a key's words, prefix, related word or compound, {@link keyTermsOf}) the key of a cell
 *    that holds it, or is dropped ("The melting point of mendelevium is 258 K" citing
 *    `atomic_weight: 258`; {@link misattributedNumber}). Keys that are no English words (`ndex`,
 *    `lvl_100_exp`) cannot be read, and a number they hold is left alone.
 * 5. Repetition: a sentence or list item that repeats an earlier one (Jaccard similarity of their
 *    content terms at least {@link repeatSimilarity}) is dropped; lists hold no restatement of the
 *    callout and no decline sentence.
 *
 * Citations to keys outside the context are left for `resolveCitations`, and whether a cited
 * unit supports its statement for `checkCitations`.
 */
import type { Analyzer } from "../text/analyzer.js";
import { questionStopWords } from "../text/english-stop-words.js";
import { segmentSentences } from "../text/split-sentences.js";
import { backgroundWeight, isKnownWord } from "../text/word-frequency.js";
import { type Answer, noInformationSentence, type Source } from "./answer.js";
import type { RecordRow } from "./answer-units.js";
import { type AnswerContext, sourceText } from "./build-context.js";
import { citedKeys, formatCitation, stripCitations } from "./citations.js";
import { constraintsOf, namePhrases, type QuestionConstraint } from "./question-cues.js";
import type { Evidence, EvidenceUnit, WeightedTerm } from "./rank-evidence.js";
import { keyTermsOf, keyWords } from "./record-keys.js";
import { withRelatedTerms } from "./related-terms.js";
import { bestSupport, inverseDocumentFrequencies, lexicalSupport, minimumSupport, termsWithMonths, unitTerms } from "./sentence-support.js";

/** Jaccard similarity of content terms from which a sentence repeats another (near-duplicates differ by a word or two). */
export const repeatSimilarity = 0.8;

/**
 * English phrases by which a model says that the sources do not answer: "no information", "the
 * sources do not contain …", "… is not mentioned in the context", "cannot be determined". A
 * negation about the world ("integer types do not contain decimals") is not one: the phrases
 * name the sources, or say that the answer cannot be found.
 */
export const declinePatterns: readonly RegExp[] = [
  /\bno (relevant |specific |such )?information\b/i,
  /\b(sources?|context|documents?|passages?|provided (text|information))\b[^.]*\b(do|does|did) not\b/i,
  /\bnot (mentioned|provided|specified|stated|given|found|available|covered|included)\b[^.]*\b(sources?|context|documents?|passages?)\b/i,
  /\b(cannot|can ?not|could not|unable to) (be )?(find|found|determine|determined|answer|answered|locate|located)\b/i,
];

/** Citation lead-ins that put the source before the statement: "According to [Source: doc_5], …". */
const leadingCitation =
  /^(?:according to|as (?:stated|mentioned|noted|described|shown|explained|listed) in|based on|per|from|in)\s+(\[\s*Source\s*:[^\]]*\])\s*,?\s*/i;
/** Citation lead-ins at the end of a statement: "X, as stated in [Source: doc_2]." → "X [Source: doc_2].". */
const trailingCitation =
  /,?\s*(?:as (?:stated|mentioned|noted|described|shown|explained|listed|given|found) in|according to|(?:see|per|from))\s+(\[\s*Source\s*:[^\]]*\])\s*([.!?]?)\s*$/i;
/** A sentence that only points at a source: "This can be found in [Source: doc_1].", "(See [Source: doc_2].)". */
const pointerSentence =
  /^\(?\s*(?:see|refer to|(?:(?:this|that|the)\s+(?:answer|information|data|details|value)|this|that|it|more (?:information|details)|details)\s+(?:can be|is|are|was|were)\s+(?:found|given|stated|mentioned|described|provided|available|listed|based on(?:\s+(?:the\s+)?(?:information|details|text|data)(?:\s+(?:provided|given|stated|found))?)?)\s+in(?:\s+the\s+(?:[\p{L}\p{N}_.-]+\s+){0,3}?(?:sources?|documents?|context|text|table|records?|data|file))?)\s*(\[\s*Source\s*:[^\]]*\])\s*\.?\s*\)?\s*$/iu;

/** What {@link groundAnswer} did. */
export interface GroundingOutcome {
  answer: Answer;
  /** The model said the sources hold no answer. */
  declined: boolean;
  /** Sentences and list items given a citation by alignment. */
  attached: number;
  /** Sentences and list items dropped: unsupported, repeated, pointers, restatements. */
  dropped: number;
  /**
   * Sentences and list items that named a name their cited passage lacks, or a number it and the
   * question lack (rule 4): cited again to the passage that holds them, or dropped (counted in `dropped` too).
   */
  unsupportedNames: number;
  /**
   * The callout held only sentences pointing at a source ("This information is provided in the
   * source [Source: doc_1]."): the model says a source answers without stating the answer.
   */
  pointerOnly: boolean;
}

/** Options of {@link groundAnswer}. */
export interface GroundingOptions {
  analyzer: Analyzer;
  /**
   * Embeds texts as passages (the service's embedding model, through its cache) for the dense
   * part of the alignment; default none (lexical alignment only).
   */
  embedPassages?: ((texts: string[]) => Promise<number[][]>) | undefined;
  /** The question, whose numbers an answer may repeat (rule 4); default none. */
  question?: string | undefined;
}

/** Whether `text` says that the sources hold no answer. */
export function isDecline(text: string): boolean {
  const plain = stripCitations(text);
  const normalize = (value: string) =>
    value
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  return normalize(plain) === normalize(noInformationSentence) || declinePatterns.some((pattern) => pattern.test(plain));
}

/**
 * Grounds `answer` in `context` (see the module comment).
 *
 * @param evidence - the context's ranked units (`rankEvidence`), whose terms are aligned with.
 */
export async function groundAnswer(
  answer: Answer,
  context: AnswerContext,
  evidence: Evidence,
  options: GroundingOptions,
): Promise<GroundingOutcome> {
  const { analyzer } = options;
  if (isDecline(answer.callout_answer)) return { answer, declined: true, attached: 0, dropped: 0, unsupportedNames: 0, pointerOnly: false };
  const units = evidence.units.filter((unit) => Object.hasOwn(context.sources, unit.entry.key));
  // Record keys are read against the question's terms as `rankEvidence` read them (`keyTermsOf`).
  const idf = inverseDocumentFrequencies(units, analyzer, evidence.questionTerms);
  // Term weights as `rankEvidence` weighs a question's terms: idf (here over the context's passages)
  // times the word's background weight in general English, so that a common word the passages do
  // not use ("belonged") does not outweigh the names and values they state.
  const wordOfTerm = new Map<string, string>();
  const weight = (term: string) => idf(term) * backgroundWeight(wordOfTerm.get(term) ?? term);
  const termsOfSentence = (text: string) => {
    const terms = new Set<string>();
    for (const word of stripCitations(text)
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu) ?? []) {
      for (const term of analyzer.analyze(word)) {
        if (!wordOfTerm.has(term)) wordOfTerm.set(term, word);
        terms.add(term);
      }
    }
    return terms;
  };
  const records = new Set(units.filter((unit) => unit.kind === "cell").map((unit) => unit.entry.key));
  const questionNumbers = numbersIn(options.question ?? "").map(({ value }) => value);
  const names = nameCheck(context, analyzer, options.question ?? "", questionNumbers, records);
  const rowsOf = (keys: readonly string[]) => [
    ...new Set(units.filter((unit) => unit.row !== undefined && keys.includes(unit.entry.key)).map((unit) => unit.row as RecordRow)),
  ];
  const questionTerms = new Set(analyzer.analyze(options.question ?? ""));
  let attached = 0;
  let dropped = 0;
  let unsupportedNames = 0;
  const kept: ReadonlySet<string>[] = [];

  const repeats = (terms: ReadonlySet<string>) => kept.some((other) => jaccard(terms, other) >= repeatSimilarity);
  const ground = async (sentences: string[]): Promise<string[]> => {
    const result: string[] = [];
    const texts = sentences.map(normalizeCitation);
    // Pointer sentences give their citation to the sentence before them.
    for (let index = 0; index < texts.length; index++) {
      const pointer = pointerSentence.exec(texts[index] as string);
      if (!pointer) continue;
      if (index > 0) texts[index - 1] = `${stripTrailingCitation(texts[index - 1] as string)} ${pointer[1]}`;
      texts[index] = "";
      dropped++;
    }
    const pending = texts.filter((text) => text !== "");
    const vectors = await denseVectors(pending, units, options);
    for (const [index, text] of pending.entries()) {
      const terms = termsOfSentence(text);
      if (terms.size === 0 || repeats(terms) || isDecline(text)) {
        dropped++;
        continue;
      }
      let cited = text;
      if (citedKeys(text).length === 0) {
        // Words align a sentence to a unit; its numbers are checked against the cited passage by
        // value below (rule 4), as a percentage or a rounding the unit's own text does not hold.
        const words = new Set([...terms].filter((term) => !/^\d/.test(term)));
        const support = bestSupport(
          words.size > 0 ? words : terms,
          units,
          (unit) => unitTerms(unit, analyzer, evidence.questionTerms),
          weight,
          vectors ? { sentence: vectors.sentences[index] as number[], units: vectors.units } : undefined,
          // The question's words and function words ("has", "does") frame a sentence; they claim nothing.
          new Set([...questionTerms, ...[...terms].filter((term) => questionStopWords.has(wordOfTerm.get(term) ?? term))]),
        );
        if (!support || support.value < minimumSupport) {
          dropped++;
          continue;
        }
        cited = `${text.replace(/\s+$/, "")} ${formatCitation([support.unit.entry.key])}`;
        attached++;
      }
      if (misattributedNumber(cited, rowsOf, questionNumbers, analyzer)) {
        // A record's number stated of a field it is not the value of: no other passage holds that claim.
        unsupportedNames++;
        dropped++;
        continue;
      }
      if (names.missing(cited)) {
        unsupportedNames++;
        const holder = names.holder(cited, (sourceTerms) => lexicalSupport(terms, sourceTerms, weight) >= minimumSupport);
        if (!holder) {
          dropped++;
          continue;
        }
        cited = stripCitations(cited)
          .replace(/\s+([.!?]?)$/, "$1")
          .replace(/([.!?]?)$/, ` ${formatCitation([holder])}$1`);
      }
      result.push(cited);
      kept.push(terms);
    }
    return result;
  };

  const calloutSentences = sentencesOf(answer.callout_answer);
  const pointerOnly =
    calloutSentences.length > 0 && calloutSentences.every((sentence) => pointerSentence.test(normalizeCitation(sentence)));
  const callout = (await ground(calloutSentences)).join(" ");
  // Each item sentence by sentence, as the callout: an item may restate the callout and then point at its source.
  const lists = async (items: readonly string[]) => {
    const grounded: string[] = [];
    for (const item of items) {
      const sentences = item.trim() === "" ? [] : await ground(sentencesOf(item));
      if (sentences.length > 0) grounded.push(sentences.join(" "));
    }
    return grounded;
  };
  const grounded: Answer = {
    callout_answer: callout,
    positive_list: await lists(answer.positive_list),
    negative_list: await lists(answer.negative_list),
    info_list: await lists(answer.info_list),
    keywords: answer.keywords,
  };
  return { answer: grounded, declined: false, attached, dropped, unsupportedNames, pointerOnly };
}

/**
 * Rule 4: the names of a sentence ({@link constraintsOf}) that the sources it cites lack, and its
 * numbers that those sources and the question lack; and the context source that holds them all.
 */
function nameCheck(
  context: AnswerContext,
  analyzer: Analyzer,
  question: string,
  questionNumbers: readonly number[],
  records: ReadonlySet<string>,
) {
  const analyze = (text: string) => analyzer.analyze(text);
  const questionTerms = new Set(analyze(question));
  const sourceTerms = new Map<string, ReadonlySet<string>>();
  const termsOf = (key: string, source: Source) => {
    let terms = sourceTerms.get(key);
    if (!terms) {
      const text = sourceText(source);
      sourceTerms.set(key, (terms = new Set(termsWithMonths(text, analyzer))));
    }
    return terms;
  };
  const sourceNumbers = new Map<string, readonly number[]>();
  const numbersOfSource = (key: string, source: Source) => {
    let numbers = sourceNumbers.get(key);
    if (!numbers) sourceNumbers.set(key, (numbers = numbersIn(sourceText(source)).map(({ value }) => value)));
    return numbers;
  };
  // The question's subject: its name least frequent in general English ("Squirtle" before
  // "Japanese"). A passage that names it states facts about it; the question's other names
  // ("Japanese" of `name_jp_romaji`) may be written otherwise there.
  const questionNames = constraintsOf(question, analyze).filter((constraint) => constraint.kind === "name");
  const questionNameWords = new Set(questionNames.map((constraint) => constraint.word));
  const subject = questionNames.reduce<(typeof questionNames)[number] | undefined>(
    (best, constraint) => (best === undefined || backgroundWeight(constraint.word) > backgroundWeight(best.word) ? constraint : best),
    undefined,
  );
  const holds = (constraint: QuestionConstraint, keys: readonly string[]) =>
    keys.some((key) => {
      const source = context.sources[key];
      if (source === undefined) return false;
      const text = sourceText(source);
      return constraint.met(termsOf(key, source), text) || writtenApart(constraint.word, text);
    });
  const questionName = new Map(questionNames.map((constraint) => [constraint.word, constraint]));
  const phrases = namePhrases(question).filter((phrase) => phrase.every((word) => questionName.has(word)));
  /**
   * A word of a name the question writes in full ("Iwan Roberts") that the cited sources lack,
   * when they hold another word of it ("Roberts") and a source of the same document in the context
   * holds it whole: a document names someone in full once and in part after that (coreference
   * within a document), so the sentence names who the cited passage is about.
   */
  const namedInPart = (word: string, keys: readonly string[]) =>
    phrases.some(
      (phrase) =>
        phrase.includes(word) &&
        phrase.some((other) => other !== word && holds(questionName.get(other) as QuestionConstraint, keys)) &&
        Object.keys(context.sources).some(
          (whole) =>
            keys.some((key) => context.sources[key]?.metadata.doc_id === context.sources[whole]?.metadata.doc_id) &&
            phrase.every((part) => holds(questionName.get(part) as QuestionConstraint, [whole])),
        ),
    );
  const unmet = (sentence: string, keys: readonly string[]) =>
    constraintsOf(
      withoutStatedNumbers(stripCitations(sentence), [
        ...questionNumbers,
        ...keys.flatMap((key) => {
          const source = context.sources[key];
          return source === undefined ? [] : numbersOfSource(key, source);
        }),
      ]),
      analyze,
    ).filter(
      (constraint) =>
        !(constraint.kind === "number" && constraint.met(questionTerms, question)) &&
        !(
          constraint.kind === "name" &&
          questionNameWords.has(constraint.word) &&
          subject !== undefined &&
          keys.some((key) => records.has(key)) &&
          holds(subject, keys)
        ) &&
        !holds(constraint, keys) &&
        !(constraint.kind === "name" && questionName.has(constraint.word) && namedInPart(constraint.word, keys)),
    );
  return {
    /** Whether `sentence` names something its cited sources lack (numbers: and the question). */
    missing(sentence: string): boolean {
      // Keys outside the context are resolve-citations' to drop (and no_valid_citation's), not this rule's.
      const keys = citedKeys(sentence).filter((key) => Object.hasOwn(context.sources, key));
      return keys.length > 0 && unmet(sentence, keys).length > 0;
    },
    /** The key of the context source that holds every name and number of `sentence` and supports it, if any. */
    holder(sentence: string, supports: (terms: ReadonlySet<string>) => boolean): string | undefined {
      for (const [key, source] of Object.entries(context.sources)) {
        if (unmet(sentence, [key]).length === 0 && supports(termsOf(key, source))) return key;
      }
      return undefined;
    },
  };
}

/**
 * Whether `sentence` states a number of the records it cites (the rows `rowsOf` gives for its
 * cited keys) without naming the field of any cell that holds it (rule 4, for records): the number
 * is not in the question, some cell's value holds it ({@link statesValue}), each such cell's key
 * is made of English words, and the sentence names none of those keys.
 */
export function misattributedNumber(
  sentence: string,
  rowsOf: (keys: readonly string[]) => readonly RecordRow[],
  questionNumbers: readonly number[],
  analyzer: Analyzer,
): boolean {
  const rows = rowsOf(citedKeys(sentence));
  if (rows.length === 0) return false;
  const text = stripCitations(sentence);
  const analyze = (value: string) => analyzer.analyze(value);
  const words: WeightedTerm[] = [];
  for (const word of text.toLowerCase().match(/[\p{L}\p{M}]+/gu) ?? []) {
    for (const term of analyze(word)) words.push({ term, word, weight: 1 });
  }
  const sentenceTerms = new Set(words.map(({ term }) => term));
  // Keys read in the sentence's other words too, as `rankEvidence` reads them in the question's (`price` for "costs").
  const readKey = withRelatedTerms(new Map(words.map(({ term, word }) => [term, word])), analyze);
  const cells = rows.flatMap((row) => row.cells);
  for (const number of numbersIn(text)) {
    if (questionNumbers.some((value) => statesValue(number, value))) continue;
    const holders = cells.filter((cell) => numbersIn(cell.value).some(({ value }) => statesValue(number, value)));
    if (holders.length === 0) continue;
    if (!holders.every((cell) => isReadableKey(cell.key))) continue;
    const named = holders.some((cell) => [...keyTermsOf(cell.key, words, readKey)].some((term) => sentenceTerms.has(term)));
    if (!named) return true;
  }
  return false;
}

/** Whether every word of `key` ({@link keyWords}) is a number or a word of general English (SUBTLEX-US). */
function isReadableKey(key: string): boolean {
  return keyWords(key)
    .split(/\s+/)
    .every((word) => word === "" || /^\d+$/.test(word) || isKnownWord(word));
}

/**
 * Whether `number` (as a sentence writes it) states `value`, at the precision it is written with:
 * an integer only exactly ("18" is not 18.4), decimals at their precision ("2.82" for 2.8163), a
 * percentage of a fraction ("10.19%" for 0.101851852).
 */
function statesValue(number: { value: number; decimals: number; percent: boolean }, value: number): boolean {
  const round = (raw: number) => (number.decimals === 0 ? raw : Number(raw.toFixed(number.decimals)));
  return round(value) === number.value || (number.percent && value < 1 && round(value * 100) === number.value);
}

/** A number as text writes it: digits with thousands separators and a decimal part ("20,000", "18.00", "0.1018"). */
const numberPattern = /(?<![\p{L}\p{N}.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\p{L}\p{N}])(\s*(?:%|percent\b))?/giu;

/** The numbers of `text` with their values and the number of decimals they are written with. */
function numbersIn(text: string): { index: number; length: number; value: number; decimals: number; percent: boolean }[] {
  return [...text.matchAll(numberPattern)].map((match) => ({
    index: match.index,
    length: match[0].length,
    value: Number(`${(match[1] ?? "").replaceAll(",", "")}${match[2] ?? ""}`),
    decimals: (match[2]?.length ?? 1) - 1,
    percent: match[3] !== undefined,
  }));
}

/**
 * `sentence` without the numbers that one of `stated` states by value, at the precision the
 * sentence writes them: "18.00" and "18", "110,000" and "110000", "2.82" and 2.8163, and a
 * percentage of a fraction ("10.19%" for 0.101851852); an integer only exactly ("18" is not
 * 18.4). Formatting is no unsupported number; the rest is left to the names-and-numbers check.
 */
function withoutStatedNumbers(sentence: string, stated: readonly number[]): string {
  let result = sentence;
  for (const number of numbersIn(sentence).reverse()) {
    if (stated.some((value) => statesValue(number, value)))
      result = `${result.slice(0, number.index)}${result.slice(number.index + number.length)}`;
  }
  return result;
}

/**
 * Whether a word of letters and digits ("O2", "CO2", "3d6") is in `text` with its letters and
 * digits written apart, as text extracted from sub- and superscripts has them ("O\n2").
 */
function writtenApart(word: string, text: string): boolean {
  if (!/\p{L}/u.test(word) || !/\p{N}/u.test(word)) return false;
  const letters = [...word].map((character) => character.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}])${letters.join("\\s*")}(?![\\p{L}\\p{N}])`, "iu").test(text);
}

/** "According to [Source: doc_5], X" → "X [Source: doc_5]". */
function normalizeCitation(sentence: string): string {
  const trailing = trailingCitation.exec(sentence);
  if (trailing) return `${sentence.slice(0, trailing.index).trim()} ${trailing[1]}${trailing[2]}`;
  const match = leadingCitation.exec(sentence);
  if (!match) return sentence.trim();
  const rest = sentence.slice(match[0].length).trim();
  const body = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(body) ? `${body.slice(0, -1)} ${match[1]}${body.slice(-1)}` : `${body} ${match[1]}`;
}

function stripTrailingCitation(sentence: string): string {
  return sentence.replace(/\s*\[\s*Source\s*:[^\]]*\]\s*([.!?]?)\s*$/i, "$1");
}

/**
 * Sentences of a callout (Unicode sentence segmentation); a citation after a full stop stays with
 * its sentence, and so does a quoted question or exclamation inside it: UAX #29 ends a sentence
 * after "?" or "!" whatever follows (rule SB11), so "The poem that begins 'Where has the summer
 * gone?' is poem 12." would be two, the second starting in lower case.
 */
function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  for (const sentence of segmentSentences(text.trim())) {
    const previous = sentences.at(-1);
    const citation = /^\[\s*Source\s*:[^\]]*\]\s*\.?$/i.test(sentence);
    const continuation = /^\p{Ll}/u.test(sentence) && previous !== undefined && /[?!]['"\u2019\u201d)]*\s*$/u.test(previous);
    if (previous !== undefined && (citation || continuation)) sentences[sentences.length - 1] = `${previous.trimEnd()} ${sentence}`;
    else sentences.push(sentence);
  }
  return sentences;
}

/** Passage vectors of the sentences and of the units; undefined without an embedding model, with nothing to align, or when it fails. */
async function denseVectors(
  sentences: readonly string[],
  units: readonly EvidenceUnit[],
  options: GroundingOptions,
): Promise<{ sentences: number[][]; units: Map<EvidenceUnit, number[]> } | undefined> {
  const uncited = sentences.filter((sentence) => citedKeys(sentence).length === 0);
  if (!options.embedPassages || uncited.length === 0 || units.length === 0) return undefined;
  try {
    const vectors = await options.embedPassages([...sentences.map(stripCitations), ...units.map((unit) => unit.text)]);
    return {
      sentences: vectors.slice(0, sentences.length),
      units: new Map(units.map((unit, index) => [unit, vectors[sentences.length + index] as number[]])),
    };
  } catch {
    return undefined;
  }
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}
