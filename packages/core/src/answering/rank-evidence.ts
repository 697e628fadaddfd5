/**
 * Sentence-level evidence for an answer: every sentence of the context scored against the
 * question with the retrieval signals at hand, best first, plus the absolute signals the
 * abstention decision reads (`decideAnswerable`).
 *
 * Method:
 * 1. Each context chunk is split into sentences ({@link splitSentences}). A RAPTOR summary's
 *    sentence that also appears in a retrieved chunk is dropped, so the chunk is cited.
 * 2. Term weights are BM25's idf over the context's sentences, idf(t) = ln(1 + (N − n(t) + 0.5) /
 *    (n(t) + 0.5)) (Robertson & Zaragoza, 2009, "The Probabilistic Relevance Framework: BM25 and
 *    Beyond", eq. 3.3), with N at least {@link minimumCollectionSize}: in a context of one or two
 *    sentences every present term would otherwise weigh almost nothing against an absent one.
 *    The idf is multiplied by the question word's background weight in general English
 *    ({@link backgroundWeight}), so that words every text uses ("best", "new", "day") count less
 *    than the words that say what the question is about: a context of five passages is too
 *    small a collection to tell them apart on its own.
 *    A sentence's *coverage* is the idf-weighted share of the question's
 *    content terms it contains, Σ_{t ∈ q ∩ s} idf(t) / Σ_{t ∈ q} idf(t): its BM25 score relative
 *    to the highest score the question could attain (with term-frequency saturation k1 → 0, so
 *    every matched term counts once). Question words such as "how many" are not content terms
 *    ({@link questionStopWords}).
 * 3. With an embedding model, the *dense* signal of a sentence is the cosine of the question's
 *    embedding (as a query) with the sentence's (as a passage), rescaled by the question's own
 *    score: cos(q, s) / cos(q, q as a passage), so that a sentence saying exactly what the
 *    question says scores 1 whatever the model's query instruction does to the scale.
 * 4. A sentence's score blends its coverage (0.7) with its chunk's coverage (0.3), averages that
 *    with the dense signal when there is one, multiplies by 1.15 when it offers an answer of the
 *    type the question asks for ({@link expectedAnswerType}, {@link offersAnswerType}) and by 0.8
 *    when its chunk (text and title) lacks one of the question's names or numbers
 *    ({@link questionConstraints}), by 1.1 when it shares the question's polarity (both negated),
 *    adds a small prior for its chunk's retrieval rank, and halves
 *    fragments (headings, table cells) and lowers lead-ins ending with a colon.
 * 5. Answer focus: for "how many X", a sentence that states a count of X ({@link statesCount})
 *    is multiplied by 1.4 instead of 1.15, and when one does, the others by 0.8 (a number that
 *    counts something else the question names is no answer). For a how-to question
 *    ({@link asksProcedure}), a lead-in to a shell command is an instruction, read with its
 *    command and section heading; when the context holds one, the other sentences are multiplied
 *    by 0.8 and the instruction is not lowered as a lead-in.
 * 6. Records: a `key: value` line outside a record whose value only names its document (the
 *    `title: Steam engine` above a record's prose field) is read as a heading (a fragment).
 *    In a chunk of `key: value` lines (a rendered JSON record), every line is read with
 *    its record (its coverage is the record's, plus question terms its key names), multiplied by
 *    1 + the share of the question its key names, and halved when its value only repeats the
 *    question (`name: Oxygen` for "Who discovered oxygen?") and lowered (× 0.8) when its value is
 *    not of the type asked for. A table row (cells joined by `; `) that holds a question word only
 *    in a longer cell ("Snickers Crisper") that another row holds alone (`competitorname: Snickers`)
 *    names another entity: × 0.8. An instruction's dense signal reads it with its heading and command.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { cosineSimilarity } from "../embeddings/cosine-similarity.js";
import { isSummaryChunk } from "../raptor/build-raptor-nodes.js";
import { isFragment } from "../raptor/summarizer.js";
import type { Analyzer } from "../text/analyzer.js";
import { questionStopWords } from "../text/english-stop-words.js";
import { splitSentences } from "../text/split-sentences.js";
import { backgroundWeight } from "../text/word-frequency.js";
import type { AnswerContext, ContextEntry } from "./build-context.js";
import {
  type AnswerType,
  asksProcedure,
  constraintsOf,
  countedNoun,
  expectedAnswerType,
  isCommandLine,
  isNegated,
  offersAnswerType,
  type QuestionConstraint,
  questionConstraints,
  resembles,
  statesCount,
} from "./question-cues.js";

/** One sentence of the context with its signals. */
export interface EvidenceSentence {
  /** The context entry (chunk) it comes from. */
  entry: ContextEntry;
  /** The entry's rank in the context, 0-based. */
  rank: number;
  /** Position of the sentence in its entry, 0-based. */
  position: number;
  text: string;
  /** Analysed terms of the sentence. */
  terms: ReadonlySet<string>;
  words: number;
  /** A heading, table cell or other short line without closing punctuation ({@link isFragment}). */
  fragment: boolean;
  /** Idf-weighted share of the question's content terms in the sentence, in [0, 1]. */
  coverage: number;
  /** The same share for the sentence's whole chunk, in [0, 1]. */
  chunkCoverage: number;
  /** Dense signal cos(q, s) / cos(q, q as a passage), or null without an embedding model. */
  dense: number | null;
  /** Whether it offers an answer of the expected type that the question does not state; null when no type is expected. */
  offersAnswer: boolean | null;
  /**
   * Whether it states a count of the question's counted noun ({@link countedNoun}, "3 trucks" for
   * "How many trucks…"); null when the question asks for no count of a noun or no sentence of the
   * context states one.
   */
  countsAnswer: boolean | null;
  /**
   * Whether it is an instruction (a lead-in to a shell command) when the question asks for a
   * procedure and the context holds instructions; null otherwise.
   */
  instruction: boolean | null;
  /** The text the dense signal reads when it is not {@link EvidenceSentence.text}: an instruction with its heading and command. */
  denseText?: string | undefined;
  /**
   * For a line of a structured record (`key: value`, as JSON records are rendered): the field's
   * key and value; undefined for prose and table rows.
   */
  field?: { key: string; value: string } | undefined;
  /** Idf-weighted share of the question's content terms that a record line's key names, in [0, 1]; 0 for other sentences. */
  keyCoverage: number;
  /** Whether a record line's value only repeats words of the question (`name: Oxygen` for "Who discovered oxygen?"). */
  valueStated: boolean;
  /**
   * For a record line whose key names a word of the question: the question's most specific word
   * in general English that no key of the record names (the entity asked about) when the record does not hold it (one
   * typo or a shared stem allowed). `boiling_point: 3383` answers "What is the boiling point of
   * ethanol?" only in ethanol's record. Undefined otherwise.
   */
  missingSubject?: string | undefined;
  /**
   * Whether a table row holds a question word only inside a longer cell ("Snickers Crisper") that
   * another row of the context holds alone (`competitorname: Snickers`): the row names another entity.
   */
  namesOther: boolean;
  /** Whether it contains a negation. */
  negated: boolean;
  /** Whether its chunk (text and title) holds every name and number of the question. */
  meetsConstraints: boolean;
  /** Whether both it and the question are negated. */
  samePolarity: boolean;
  /** Ranking score (higher is better). */
  score: number;
}

/** A content term of the question with its weight. */
export interface WeightedTerm {
  /** The analysed term. */
  term: string;
  /** The question word it comes from. */
  word: string;
  /** Idf over the context's sentences times the word's background weight in general English. */
  weight: number;
}

/** The evidence for one question. */
export interface Evidence {
  /** The question's content terms, heaviest first. */
  questionTerms: WeightedTerm[];
  /** The answer type the question asks for. */
  expectedType: AnswerType;
  /** Whether the question contains a negation. */
  questionNegated: boolean;
  /** Every sentence of the context, best first. */
  sentences: EvidenceSentence[];
  /** Idf-weighted share of the question's content terms found anywhere in the context, in [0, 1]. */
  contextCoverage: number;
  /**
   * The highest idf-weighted share of the question's content terms that one chunk (its text and
   * title) holds, in [0, 1]: whether any single retrieved passage is about the question, rather
   * than five passages matching a word each.
   */
  passageCoverage: number;
  /**
   * The specific information the best passage (the one holding `passageCoverage`) shares with the
   * question: Σ max(0, b(w) − {@link commonWordWeight}) over the question's words it contains, with
   * b(w) the word's background weight in general English ({@link backgroundWeight}), 1 for a name
   * or number of the question ({@link questionConstraints}). Words as common as "day", "new" and
   * "time" add nothing, "vacation" (0.58) adds 0.13, "parental" (0.74) 0.29, a name 0.55. A passage
   * that shares only common words with the question is not about what the question asks.
   */
  passageSpecificity: number;
  /** Whether the dense signal was computed. */
  denseUsed: boolean;
}

/** Options of {@link rankEvidence}. */
export interface RankEvidenceOptions {
  analyzer: Analyzer;
  /** An embedding model for the dense signal; default none (lexical signals only). */
  embeddings?: EmbeddingsInterface | undefined;
  /**
   * The question's query embedding when retrieval already computed it with the same model
   * (`QueryRetrieval.queryVector`); default none (the question is embedded here).
   */
  queryVector?: ArrayLike<number> | undefined;
  /**
   * Embeds texts as passages with `embeddings` (the same model), for example through a
   * `PassageVectorCache`; default `embeddings.embedDocuments`. Must return what
   * `embeddings.embedDocuments` would, one vector per text in order.
   */
  embedPassages?: ((texts: string[]) => Promise<number[][]>) | undefined;
  /** Most sentences embedded (the best by lexical score); default 48. */
  maxDenseSentences?: number | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Smallest collection size N of the idf: a context has at least this many sentences' worth of
 * background, as if padded with sentences holding none of the question's terms.
 */
export const minimumCollectionSize = 20;
/** Weight of a sentence's own coverage against its chunk's coverage. */
const sentenceWeight = 0.7;
/** Factor of a sentence that offers an answer of the expected type. */
const answerTypeBoost = 1.15;
/** Factor of a sentence that states a count of the question's counted noun (instead of {@link answerTypeBoost}). */
const countBoost = 1.4;
/**
 * Share of an instruction's coverage read with its section heading; the rest is its own lead-in
 * and command, which only breaks ties between instructions of one section.
 */
const headingShare = 0.99;
/** Factor of a sentence that is no instruction when the question asks for a procedure and the context holds instructions. */
const nonInstructionPenalty = 0.8;
/** Factor of a sentence that states no count of the question's counted noun when another sentence of the context does. */
const uncountedPenalty = 0.8;
/** Factor of a record line whose value only repeats the question (an answer repeats no part of its question). */
const statedValuePenalty = 0.5;
/** Factor of a record line whose value is not of the type the question asks for (`year_of_discovery: 1774` for "who"). */
const untypedFieldPenalty = 0.8;
/** Share of a chunk's sentences that must be `key: value` lines for the chunk to be read as a record. */
const recordLineShare = 0.8;
const fieldPattern = /^([\p{L}\p{N}_.\- ]{1,60}):\s+(.+)$/u;
/** Factor of a table row whose cell holds a question word with other words that another row's cell holds alone ("Snickers Crisper" for "Snickers"). */
const otherEntityPenalty = 0.8;
/** Factor of a negated sentence when the question is negated. */
const polarityBoost = 1.1;
/** Factor of a sentence whose chunk lacks a name or number of the question. */
const unmetConstraintPenalty = 0.8;
const wordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/**
 * Scores every sentence of `context` against `question`, best first.
 *
 * @throws whatever the embedding model throws is caught: the dense signal is then left out.
 */
export async function rankEvidence(question: string, context: AnswerContext, options: RankEvidenceOptions): Promise<Evidence> {
  const { analyzer } = options;
  const expectedType = expectedAnswerType(question);
  const questionNegated = isNegated(question);
  const sentences = collectSentences(context, analyzer);
  const words = contentWords(question, analyzer);
  const questionTerms: WeightedTerm[] = [...words].map(([term, word]) => {
    let documentFrequency = 0;
    for (const sentence of sentences) if (sentence.terms.has(term)) documentFrequency++;
    const collectionSize = Math.max(sentences.length, minimumCollectionSize);
    const weight = Math.log(1 + (collectionSize - documentFrequency + 0.5) / (documentFrequency + 0.5)) * backgroundWeight(word);
    return { term, word, weight };
  });
  questionTerms.sort((left, right) => right.weight - left.weight);
  const totalWeight = questionTerms.reduce((sum, { weight }) => sum + weight, 0);
  const coverageOf = (terms: ReadonlySet<string>) => {
    if (totalWeight === 0) return 0;
    let matched = 0;
    for (const { term, weight } of questionTerms) if (terms.has(term)) matched += weight;
    return matched / totalWeight;
  };
  markRecordLines(sentences);
  markTitleLines(sentences);
  const chunkTerms = new Map<ContextEntry, Set<string>>();
  // A passage also holds the question terms its record keys name (`discoverer` for "discovered").
  const lineKeyTerms = new Map<EvidenceSentence, Set<string>>();
  const recordKeyTerms = new Map<ContextEntry, Set<string>>();
  for (const sentence of sentences) {
    if (!sentence.field) continue;
    const keyTerms = keyTermsOf(sentence.field.key, questionTerms, analyzer);
    lineKeyTerms.set(sentence, keyTerms);
    let terms = recordKeyTerms.get(sentence.entry);
    if (!terms) recordKeyTerms.set(sentence.entry, (terms = new Set()));
    for (const term of keyTerms) terms.add(term);
  }
  for (const sentence of sentences) {
    let terms = chunkTerms.get(sentence.entry);
    if (!terms) chunkTerms.set(sentence.entry, (terms = new Set()));
    for (const term of sentence.terms) terms.add(term);
  }
  const allTerms = new Set<string>();
  for (const terms of chunkTerms.values()) for (const term of terms) allTerms.add(term);
  const constraints = constraintsOf(question, (text) => analyzer.analyze(text));
  const meets = new Map<ContextEntry, boolean>();
  /** Each chunk's terms with its title's and those its record keys name. */
  const passageTerms = new Map<ContextEntry, ReadonlySet<string>>();
  let passageCoverage = 0;
  let bestPassageTerms: ReadonlySet<string> = new Set();
  for (const [entry, terms] of chunkTerms) {
    const withTitle = new Set([...terms, ...analyzer.analyze(entry.chunk.title), ...(recordKeyTerms.get(entry) ?? [])]);
    passageTerms.set(entry, withTitle);
    const text = `${entry.chunk.title}\n${entry.text}`;
    meets.set(
      entry,
      constraints.every((constraint) => constraint.met(withTitle, text)),
    );
    const coverage = coverageOf(withTitle);
    if (coverage > passageCoverage) {
      passageCoverage = coverage;
      bestPassageTerms = withTitle;
    }
  }
  const passageSpecificity = specificityOf(
    questionTerms,
    bestPassageTerms,
    constraints.map(({ word }) => word),
  );
  const missingSubjects = new Map<ContextEntry, string | undefined>();
  const counted = countedNoun(question);
  const analyze = (text: string) => analyzer.analyze(text);
  const questionTermSet = new Set(questionTerms.map(({ term }) => term));
  for (const sentence of sentences) {
    sentence.chunkCoverage = coverageOf(chunkTerms.get(sentence.entry) as Set<string>);
    if (sentence.field) {
      // A record's line is read with its record: the record says which entity, the key which fact.
      const keyTerms = lineKeyTerms.get(sentence) as Set<string>;
      sentence.keyCoverage = coverageOf(keyTerms);
      const valueTerms = analyzer.analyze(sentence.field.value);
      sentence.valueStated = valueTerms.length > 0 && valueTerms.every((term) => questionTermSet.has(term));
      sentence.coverage = coverageOf(new Set([...(chunkTerms.get(sentence.entry) as Set<string>), ...keyTerms]));
      if (keyTerms.size > 0) {
        if (!missingSubjects.has(sentence.entry)) {
          const record = passageTerms.get(sentence.entry) as ReadonlySet<string>;
          missingSubjects.set(sentence.entry, missingSubjectOf(questionTerms, recordKeyTerms.get(sentence.entry), record));
        }
        sentence.missingSubject = missingSubjects.get(sentence.entry);
      }
    } else {
      sentence.coverage = coverageOf(sentence.terms);
    }
    sentence.offersAnswer = offersAnswerType(sentence.text, question, expectedType);
    sentence.countsAnswer = counted === undefined ? null : statesCount(sentence.text, counted, analyze);
    sentence.meetsConstraints = meets.get(sentence.entry) ?? true;
    sentence.samePolarity = questionNegated && sentence.negated;
  }
  markLongerNames(sentences, questionTermSet, analyzer);
  if (asksProcedure(question)) markInstructions(sentences, questionTerms, analyzer, coverageOf, constraints);
  // When the context counts the thing asked for, a number that counts something else is no answer;
  // when it does not, a count is not required (null).
  if (sentences.some((sentence) => sentence.countsAnswer === true)) {
    for (const sentence of sentences) if (sentence.countsAnswer === false) sentence.offersAnswer = false;
  } else {
    for (const sentence of sentences) sentence.countsAnswer = null;
  }
  for (const sentence of sentences) sentence.score = scoreOf(sentence);
  const denseUsed = options.embeddings ? await addDenseSignal(question, sentences, options) : false;
  sentences.sort((left, right) => right.score - left.score || left.rank - right.rank || left.position - right.position);
  return {
    questionTerms,
    expectedType,
    questionNegated,
    sentences,
    contextCoverage: coverageOf(allTerms),
    passageCoverage,
    passageSpecificity,
    denseUsed,
  };
}

/**
 * Background weight up to which a word is common: about 350 uses per million words in SUBTLEX-US
 * ("day" 0.40, "new" 0.41, "time" 0.35, "problem" 0.45). Such a word says nothing of a passage's
 * subject, whatever it matches. Measured with the `passage_specificity` check (docs/answering.md).
 */
export const commonWordWeight = 0.45;

/** The specific information `passage` shares with the question ({@link Evidence.passageSpecificity}). */
function specificityOf(questionTerms: readonly WeightedTerm[], passage: ReadonlySet<string>, constraintWords: readonly string[]): number {
  const names = new Set(constraintWords);
  let specificity = 0;
  for (const { term, word } of questionTerms) {
    if (passage.has(term)) specificity += Math.max(0, (names.has(word) ? 1 : backgroundWeight(word)) - commonWordWeight);
  }
  return specificity;
}

/**
 * The question's most specific word ({@link backgroundWeight}) that no key of a record names
 * (`named`), when the record's terms (text, title and key-named terms) do not hold it
 * ({@link EvidenceSentence.missingSubject}).
 */
function missingSubjectOf(
  questionTerms: readonly WeightedTerm[],
  named: ReadonlySet<string> | undefined,
  held: ReadonlySet<string>,
): string | undefined {
  // The entity is the question's most specific word in general English (a word the list does not
  // hold, as most names, weighs 1), not its heaviest in the context, where a word absent from
  // every passage weighs most.
  let subject: WeightedTerm | undefined;
  let specificity = -1;
  for (const candidate of questionTerms) {
    if (named?.has(candidate.term)) continue;
    const weight = backgroundWeight(candidate.word);
    if (weight > specificity) [subject, specificity] = [candidate, weight];
  }
  if (!subject) return undefined;
  if (held.has(subject.term) || [...held].some((candidate) => resembles(subject.term, candidate))) return undefined;
  return subject.word;
}

/** The sentences of the context, unscored. */
function collectSentences(context: AnswerContext, analyzer: Analyzer): EvidenceSentence[] {
  const sentences: EvidenceSentence[] = [];
  context.entries.forEach((entry, rank) => {
    splitSentences(entry.text).forEach((text, position) => {
      const terms = new Set(analyzer.analyze(text));
      if (terms.size === 0) return;
      sentences.push({
        entry,
        rank,
        position,
        text,
        terms,
        words: text.split(/\s+/).length,
        fragment: isFragment(text),
        coverage: 0,
        chunkCoverage: 0,
        dense: null,
        offersAnswer: null,
        countsAnswer: null,
        instruction: null,
        keyCoverage: 0,
        valueStated: false,
        namesOther: false,
        negated: isNegated(text),
        meetsConstraints: true,
        samePolarity: false,
        score: 0,
      });
    });
  });
  // A summary node repeats sentences of its chunks: keep the chunk's copy when both are in the context.
  const leafSentences = new Set(sentences.filter((sentence) => !isSummaryChunk(sentence.entry.chunk)).map((sentence) => sentence.text));
  return sentences.filter((sentence) => !isSummaryChunk(sentence.entry.chunk) || !leafSentences.has(sentence.text));
}

/** The score of a sentence from its signals (see the module comment). */
function scoreOf(sentence: EvidenceSentence): number {
  const lexical = sentenceWeight * sentence.coverage + (1 - sentenceWeight) * sentence.chunkCoverage;
  const relevance = sentence.dense === null ? lexical : (lexical + Math.max(0, sentence.dense)) / 2;
  const typeFactor = sentence.countsAnswer === true ? countBoost : sentence.offersAnswer === true ? answerTypeBoost : 1;
  const fieldFactor = sentence.field
    ? (1 + sentence.keyCoverage) *
      (sentence.valueStated ? statedValuePenalty : 1) *
      (sentence.offersAnswer === false ? untypedFieldPenalty : 1)
    : 1;
  const typed =
    relevance *
    typeFactor *
    fieldFactor *
    (sentence.meetsConstraints ? 1 : unmetConstraintPenalty) *
    (sentence.namesOther ? otherEntityPenalty : 1) *
    (sentence.instruction === false ? nonInstructionPenalty : 1) *
    (sentence.countsAnswer === false ? uncountedPenalty : 1) *
    (sentence.samePolarity ? polarityBoost : 1);
  const rankPrior = 0.05 / (1 + sentence.rank);
  const fragmentPenalty = sentence.fragment ? 0.5 : 1;
  const leadInPenalty = sentence.text.endsWith(":") && sentence.offersAnswer !== true ? 0.7 : 1;
  return (typed + rankPrior) * fragmentPenalty * leadInPenalty;
}

/**
 * For a question asking for a procedure ({@link asksProcedure}): when the context holds
 * instructions, they offer the answer and the other sentences do not. An instruction is a lead-in ending with a
 * colon whose next line is a shell command ("open a terminal and enter the following command:"
 * before `$ curl …`); it is read with its section's heading, which names the task
 * ("Installing rustup on Linux or macOS"), unless it states its own purpose ("To uninstall Rust,
 * run …"), and with the command, so its coverage counts their terms too (a heading or command word that begins with a question term of four letters or more,
 * "rustup" for "rust", counts as that term).
 */
function markInstructions(
  sentences: EvidenceSentence[],
  questionTerms: readonly WeightedTerm[],
  analyzer: Analyzer,
  coverageOf: (terms: ReadonlySet<string>) => number,
  constraints: readonly QuestionConstraint[],
): void {
  const headings = new Map<ContextEntry, Set<string>>();
  const headingOf = (entry: ContextEntry) => {
    let texts = headings.get(entry);
    if (!texts) {
      texts = new Set(
        entry.text
          .split(/\r?\n/)
          .map((line) => /^\s*#{1,6}\s+(.+)$/.exec(line)?.[1]?.replace(/\s+/g, " ").trim())
          .filter((text): text is string => text !== undefined),
      );
      headings.set(entry, texts);
    }
    return texts;
  };
  const byPosition = new Map<ContextEntry, Map<number, EvidenceSentence>>();
  for (const sentence of sentences) {
    let positions = byPosition.get(sentence.entry);
    if (!positions) byPosition.set(sentence.entry, (positions = new Map()));
    positions.set(sentence.position, sentence);
  }
  const namesMet = new Map<EvidenceSentence, number>();
  const instructions = sentences.filter((sentence) => {
    const next = byPosition.get(sentence.entry)?.get(sentence.position + 1);
    return sentence.text.endsWith(":") && next !== undefined && isCommandLine(next.text);
  });
  // Without an instruction in the context, the answer may be prose ("download the installer and run it").
  if (instructions.length === 0) return;
  for (const sentence of sentences) {
    sentence.offersAnswer = false;
    sentence.instruction = false;
  }
  for (const sentence of instructions) {
    const next = byPosition.get(sentence.entry)?.get(sentence.position + 1) as EvidenceSentence;
    sentence.offersAnswer = true;
    sentence.instruction = true;
    let heading: EvidenceSentence | undefined;
    const positions = byPosition.get(sentence.entry) as Map<number, EvidenceSentence>;
    for (let position = sentence.position - 1; position >= 0 && !heading; position--) {
      const candidate = positions.get(position);
      if (candidate && headingOf(sentence.entry).has(candidate.text)) heading = candidate;
    }
    // An instruction that states its own purpose ("To uninstall Rust, run …") is about that purpose, not its section's.
    const purpose = /^to\s+(\p{L}+)/iu.exec(sentence.text);
    const purposeful = purpose !== null && sentence.text.includes(",");
    const purposeVerb = purposeful ? analyzer.analyze(purpose[1] as string)[0] : undefined;
    const read = [sentence.text, next.text, purposeful ? "" : (heading?.text ?? "")].join(" ");
    sentence.denseText = `${purposeful || !heading ? "" : `${heading.text}: `}${sentence.text} ${next.text}`;
    // Every instruction under a heading reads it, so the heading cannot tell them apart: between
    // instructions it makes equal, the one whose own lead-in and command cover more comes first.
    const own = `${sentence.text} ${next.text}`;
    const ownTerms = withPrefixTerms(own, questionTerms, analyzer);
    const withHeading = coverageOf(withPrefixTerms(read, questionTerms, analyzer));
    sentence.coverage = Math.max(sentence.coverage, headingShare * withHeading + (1 - headingShare) * coverageOf(ownTerms));
    // One for another purpose ("To check whether you have Rust installed, …" for "How do I install
    // Rust?") is no answer: its purpose verb is not the question's.
    if (purposeVerb !== undefined && !questionTerms.some(({ term }) => term === purposeVerb)) {
      sentence.instruction = false;
      sentence.offersAnswer = false;
    }
    namesMet.set(sentence, constraints.filter((constraint) => constraint.met(ownTerms, own)).length);
  }
  // Instructions under one heading all read it: the question's names (a platform, a product) that
  // an instruction states itself tell them apart ("If you're using Linux …" from "On macOS …" for
  // "How do I install Rust on Linux?"); those that state fewer than another are not the answer.
  const most = Math.max(0, ...namesMet.values());
  for (const [sentence, met] of namesMet) if (met < most) sentence.meetsConstraints = false;
}

/** The terms of `text`, plus each question term that a word of `text` begins with (four letters or more). */
function withPrefixTerms(text: string, questionTerms: readonly WeightedTerm[], analyzer: Analyzer): Set<string> {
  const terms = new Set(analyzer.analyze(text));
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    for (const { term } of questionTerms) if (term.length >= 4 && word.length > term.length && word.startsWith(term)) terms.add(term);
  }
  return terms;
}

/**
 * Marks the lines of structured records: in a chunk whose sentences are nearly all single
 * `key: value` pairs (a rendered JSON record, front matter), each such line gets its `field`.
 * Table rows (several pairs joined by `; `) stay whole: the row is the answer.
 */
function markRecordLines(sentences: EvidenceSentence[]): void {
  const byEntry = new Map<ContextEntry, EvidenceSentence[]>();
  for (const sentence of sentences) {
    const group = byEntry.get(sentence.entry);
    if (group) group.push(sentence);
    else byEntry.set(sentence.entry, [sentence]);
  }
  for (const group of byEntry.values()) {
    const fields = group.map((sentence) => (sentence.text.includes("; ") ? null : fieldPattern.exec(sentence.text)));
    const count = fields.filter((field) => field !== null).length;
    if (count < 2 || count < group.length * recordLineShare) continue;
    group.forEach((sentence, index) => {
      const field = fields[index];
      if (field) sentence.field = { key: field[1] as string, value: field[2] as string };
    });
  }
}

/**
 * Marks the table rows that name another entity than the question's: a row's cell (`key: value`
 * between `; `) whose value is only question words names the question's entity
 * (`competitorname: Snickers` for "What is the winpercent of Snickers?"); a row that holds one of
 * those words only in a cell with other words ("Snickers Crisper") names another one.
 */
function markLongerNames(sentences: EvidenceSentence[], questionTerms: ReadonlySet<string>, analyzer: Analyzer): void {
  const rows = sentences
    .filter((sentence) => !sentence.field && sentence.text.includes("; "))
    .map((sentence) => {
      const cells = sentence.text
        .split("; ")
        .map((cell) => fieldPattern.exec(cell)?.[2])
        .filter((value): value is string => value !== undefined)
        .map((value) => analyzer.analyze(value));
      const named = new Set(cells.filter((terms) => terms.length > 0 && terms.every((term) => questionTerms.has(term))).flat());
      return { sentence, cells: cells.length >= 2 ? cells : [], named };
    })
    .filter((row) => row.cells.length > 0);
  const namedAlone = new Set(rows.flatMap((row) => [...row.named]));
  for (const row of rows) {
    row.sentence.namesOther = row.cells.some((terms) => terms.some((term) => namedAlone.has(term) && !row.named.has(term)));
  }
}

/**
 * Marks as fragments (headings) the `key: value` lines outside a record whose value only names
 * their document: the `title: Steam engine` line above a rendered JSON record's prose field
 * (`text:` and its sentences) labels the passage as a heading would, and states nothing.
 */
function markTitleLines(sentences: EvidenceSentence[]): void {
  const normalize = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
  for (const sentence of sentences) {
    if (sentence.field || sentence.fragment) continue;
    const value = fieldPattern.exec(sentence.text)?.[2];
    if (value === undefined) continue;
    // A JSON record's document is titled by its `title` or `name` and its file: "Steam engine (contexts)".
    const title = normalize(sentence.entry.chunk.title);
    const named = normalize(value);
    if (title === named || title.startsWith(`${named} (`)) sentence.fragment = true;
  }
}

/**
 * The question terms a record key names: its words (split at `_`, `.`, `-` and case changes) as
 * analysed terms, and question terms that a closed compound key begins with or ends with
 * ("start" for `startdate`, four letters or more).
 */
function keyTermsOf(key: string, questionTerms: readonly WeightedTerm[], analyzer: Analyzer): Set<string> {
  const words = key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .toLowerCase();
  const terms = new Set(analyzer.analyze(words));
  for (const word of words.split(/\s+/)) {
    for (const { term } of questionTerms) {
      if (term.length >= 4 && word.length > term.length && (word.startsWith(term) || word.endsWith(term))) terms.add(term);
    }
  }
  return new Set([...terms].filter((term) => questionTerms.some((weighted) => weighted.term === term)));
}

/**
 * Embeds the question and the best `maxDenseSentences` sentences and rescores them with the
 * dense signal. Returns false (and leaves the scores) when the model fails. The passages (the
 * question as a passage and the sentences) go through `options.embedPassages` when given, which
 * the service points at its `PassageVectorCache`.
 */
async function addDenseSignal(question: string, sentences: EvidenceSentence[], options: RankEvidenceOptions): Promise<boolean> {
  const embeddings = options.embeddings as EmbeddingsInterface;
  const limit = options.maxDenseSentences ?? 48;
  const chosen = [...sentences].sort((left, right) => right.score - left.score).slice(0, limit);
  if (chosen.length === 0) return false;
  try {
    options.signal?.throwIfAborted();
    const [queryVector, passageVectors] = await Promise.all([
      options.queryVector ? Array.from(options.queryVector) : embeddings.embedQuery(question),
      (options.embedPassages ?? ((texts: string[]) => embeddings.embedDocuments(texts)))([
        question,
        ...chosen.map((sentence) => sentence.denseText ?? sentence.text),
      ]),
    ]);
    const self = cosineSimilarity(queryVector, passageVectors[0] as number[]);
    const scale = self > 0 ? self : 1;
    chosen.forEach((sentence, index) => {
      sentence.dense = cosineSimilarity(queryVector, passageVectors[index + 1] as number[]) / scale;
    });
    // Sentences not embedded (lexically the weakest) get the lowest dense value measured.
    const floor = Math.min(...chosen.map((sentence) => sentence.dense as number));
    for (const sentence of sentences) {
      sentence.dense ??= floor;
      sentence.score = scoreOf(sentence);
    }
    return true;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    for (const sentence of sentences) sentence.dense = null;
    return false;
  }
}

/**
 * The question's content terms, each with the first question word it comes from (question words
 * such as "how many" removed; all terms when nothing else is left).
 */
export function contentWords(question: string, analyzer: Analyzer): Map<string, string> {
  const terms = new Map<string, string>();
  for (const match of question.matchAll(wordPattern)) {
    const word = match[0].toLowerCase();
    if (questionStopWords.has(word)) continue;
    for (const term of analyzer.analyze(word)) if (!terms.has(term)) terms.set(term, word);
  }
  if (terms.size === 0) for (const term of analyzer.analyze(question)) if (!terms.has(term)) terms.set(term, term);
  return terms;
}
