/**
 * Evidence for an answer: every answer unit of the context ({@link answerUnits}: sentences,
 * table and record cells, commands) scored against the question by one fitted model, best
 * first, plus the question-level signals the abstention decision reads (`decideAnswerable`).
 *
 * Method:
 * 1. Term weights: BM25's idf over the context's units, idf(t) = ln(1 + (N − n(t) + 0.5) /
 *    (n(t) + 0.5)) (Robertson & Zaragoza, 2009, "The Probabilistic Relevance Framework: BM25 and
 *    Beyond", eq. 3.3), with N at least {@link minimumCollectionSize}, times the question word's
 *    background weight in general English ({@link backgroundWeight}), so that words every text
 *    uses count less than the words that say what the question is about. Question words such as
 *    "how many" are not content terms ({@link questionStopWords}).
 * 2. Each unit gets a small set of general features ({@link UnitFeatures}): the idf-weighted share
 *    of the question it covers (its own text; with its heading, lead-in or row; its whole chunk;
 *    a question word counts as covered by a word related to it, {@link withRelatedTerms}),
 *    for a cell the share its column name covers and the share the rest of its row covers (which
 *    entity, which field), whether it offers an answer of the type the question asks for
 *    ({@link expectedAnswerType}: a number, a date, an entity, code, a procedure), whether it only
 *    repeats the question, the question's names and numbers its chunk lacks, its chunk's
 *    retrieval rank, its kind, and with an embedding model the dense similarity.
 * 3. The score is a logistic model over those features, P(the unit holds the answer), with
 *    weights fitted by `scripts/calibrate-answering.mjs` on the calibration splits only
 *    ({@link fittedScorers}); one set of weights without a dense signal, one per embedding model family.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { cosineSimilarity } from "../embeddings/cosine-similarity.js";
import { sameModel } from "../embeddings/organisation-index-models.js";
import { vectorIdentityOf } from "../embeddings/prepare-embeddings.js";
import type { PredictState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import type { Stage } from "../pipeline/stage.js";
import { isSummaryChunk } from "../raptor/build-raptor-nodes.js";
import type { Analyzer } from "../text/analyzer.js";
import { questionStopWords } from "../text/english-stop-words.js";
import { backgroundWeight } from "../text/word-frequency.js";
import { sectionPathOf } from "./answer-context.js";
import { type FittedScorer, lexicalModels, modelsFor, predict, type UnitFeatures } from "./answer-model.js";
import { type AnswerUnit, answerUnits, holdsProse, type RecordCell, type RecordRow } from "./answer-units.js";
import type { AnswerContext, ContextEntry } from "./build-context.js";
import type { Evidence, EvidenceUnit, WeightedTerm } from "./evidence.js";
import {
  type AnswerType,
  asksProcedure,
  constraintsOf,
  contradiction,
  countedNoun,
  expectedAnswerType,
  isNegated,
  offersAnswerType,
  questionFocus,
  statesCount,
  substitution,
} from "./question-cues.js";
import { keyTermsOf, keyTermText, keyWords } from "./record-keys.js";
import { withRelatedTerms } from "./related-terms.js";

export type { Evidence, EvidenceUnit, WeightedTerm } from "./evidence.js";

export type { UnitFeatures };

/** Options of {@link rankEvidence}. */
export interface RankEvidenceOptions {
  analyzer: Analyzer;
  /** An embedding model for the dense signal; default none (lexical signals only). */
  embeddings?: EmbeddingsInterface | undefined;
  /**
   * The embedding model's id, which chooses the fitted weights of the dense signal
   * ({@link modelsFor}); default none, which uses the weights of the closest measured family.
   */
  embeddingModel?: string | undefined;
  /** The question's query embedding when retrieval already computed it with the same model; default none. */
  queryVector?: ArrayLike<number> | undefined;
  /**
   * Embeds texts as passages with `embeddings` (the same model), for example through a
   * `PassageVectorCache`; default `embeddings.embedDocuments`.
   */
  embedPassages?: ((texts: string[]) => Promise<number[][]>) | undefined;
  /** Most units embedded (the best by lexical score); default 48. */
  maxDenseUnits?: number | undefined;
  /** A unit scorer to use instead of the fitted lexical one (calibration); default `lexicalModels.scorer`. */
  scorer?: FittedScorer | undefined;
  /** A unit scorer to use with the dense signal instead of the fitted one (calibration); default `modelsFor(embeddingModel).scorer`. */
  denseScorer?: FittedScorer | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Smallest collection size N of the idf: a context has at least this many units' worth of
 * background, as if padded with units holding none of the question's terms; in a context of one
 * or two units every present term would otherwise weigh almost nothing against an absent one.
 */
export const minimumCollectionSize = 20;

/**
 * Background weight up to which a word is common: about 350 uses per million words in SUBTLEX-US
 * ("day" 0.40, "new" 0.41, "time" 0.35, "problem" 0.45). Such a word says nothing of a passage's
 * subject, whatever it matches. Chosen by hand in the fifth session from replays of calibration-split
 * runs (a grid of 0.35–0.5); the script that replayed them went with the thresholds it tuned, so
 * this value is not refitted by `npm run calibrate:answering`.
 */
export const commonWordWeight = 0.45;

/** Fewest words of a sentence that is not a fragment. */
const fragmentWords = 5;

const wordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/**
 * Scores every unit of `context` against `question`, best first.
 *
 * A failure of the embedding model is caught: the dense signal is then left out and the lexical
 * weights score.
 */
export async function rankEvidence(question: string, context: AnswerContext, options: RankEvidenceOptions): Promise<Evidence> {
  const { analyzer } = options;
  const analyze = (text: string) => analyzer.analyze(text);
  const expectedType = expectedAnswerType(question);
  const procedure = asksProcedure(question);
  const questionNegated = isNegated(question);
  const units = collectUnits(context);
  const words = contentWords(question, analyzer);
  // The context's text is read with the question terms its words state in other forms
  // ("President" for "presidential"); a record's fields and values with their synonyms too ("price"
  // for "cost"): field names are chosen words, where prose says the same thing many ways.
  const analyzeProse = withRelatedTerms(words, analyze, { synonyms: false });
  const analyzeText = withRelatedTerms(words, analyze);
  const ownTerms = units.map((unit) => new Set((unit.kind === "cell" ? analyzeText : analyzeProse)(ownText(unit))));
  const collectionSize = Math.max(units.length, minimumCollectionSize);
  const questionTerms: WeightedTerm[] = [...words].map(([term, word]) => {
    let documentFrequency = 0;
    for (const terms of ownTerms) if (terms.has(term)) documentFrequency++;
    const idf = Math.log(1 + (collectionSize - documentFrequency + 0.5) / (documentFrequency + 0.5));
    return { term, word, weight: idf * backgroundWeight(word) };
  });
  questionTerms.sort((left, right) => right.weight - left.weight);
  const questionTermSet = new Set(questionTerms.map(({ term }) => term));
  /** Every analysed word of the question, its question stop words ("shall", "which") included: what an echo may hold. */
  const questionWordSet = new Set([...questionTermSet, ...analyze(question)]);
  const totalWeight = questionTerms.reduce((sum, { weight }) => sum + weight, 0);
  const heaviestMissing = (terms: ReadonlySet<string>) => {
    if (totalWeight === 0) return 0;
    for (const { term, weight } of questionTerms) if (!terms.has(term)) return weight / totalWeight;
    return 0;
  };
  // The question's adjacent content-term pairs, each weighing its two terms' weights.
  const termWeight = new Map(questionTerms.map(({ term, weight }) => [term, weight]));
  const questionOrder = analyze(question).filter((term) => termWeight.has(term));
  const questionPairs = new Map<string, number>();
  for (let index = 1; index < questionOrder.length; index++) {
    const [left, right] = [questionOrder[index - 1] as string, questionOrder[index] as string];
    if (left !== right) questionPairs.set(`${left} ${right}`, (termWeight.get(left) ?? 0) + (termWeight.get(right) ?? 0));
  }
  const pairWeight = [...questionPairs.values()].reduce((sum, weight) => sum + weight, 0);
  /** {@link UnitFeatures.phraseMatch} of a text. */
  const phraseMatchOf = (text: string) => {
    if (pairWeight === 0) return 0;
    const order = analyze(text);
    const found = new Set<string>();
    for (let index = 1; index < order.length; index++) {
      const pair = `${order[index - 1]} ${order[index]}`;
      if (questionPairs.has(pair)) found.add(pair);
    }
    let matched = 0;
    for (const pair of found) matched += questionPairs.get(pair) ?? 0;
    return matched / pairWeight;
  };
  const coverageOf = (terms: Iterable<string>) => {
    if (totalWeight === 0) return 0;
    const present = terms instanceof Set ? terms : new Set(terms);
    let matched = 0;
    for (const { term, weight } of questionTerms) if (present.has(term)) matched += weight;
    return matched / totalWeight;
  };

  // Chunks: their terms (every unit's, the title's and the section's) and the names and numbers they hold.
  const constraints = constraintsOf(question, analyze);
  const passages = new Map<ContextEntry, { terms: Set<string>; missing: number }>();
  units.forEach((unit, index) => {
    let passage = passages.get(unit.entry);
    if (!passage) {
      const section = typeof unit.entry.chunk.metadata.section === "string" ? unit.entry.chunk.metadata.section : "";
      passage = { terms: new Set(analyzeProse(`${unit.entry.chunk.title} ${section}`)), missing: 0 };
      passages.set(unit.entry, passage);
    }
    for (const term of ownTerms[index] as Set<string>) passage.terms.add(term);
  });
  for (const [entry, passage] of passages) {
    const text = `${entry.chunk.title}\n${entry.text}`;
    const unmet = constraints.filter((constraint) => !constraint.met(passage.terms, text)).length;
    passage.missing = constraints.length === 0 ? 0 : unmet / constraints.length;
  }
  let passageCoverage = 0;
  let bestPassage: Set<string> = new Set();
  const allTerms = new Set<string>();
  for (const { terms } of passages.values()) {
    for (const term of terms) allTerms.add(term);
    const coverage = coverageOf(terms);
    if (coverage > passageCoverage) [passageCoverage, bestPassage] = [coverage, terms];
  }

  // Each sentence's neighbours in its chunk, for its window coverage.
  const neighbours = new Map<AnswerUnit, Set<string>>();
  units.forEach((unit, index) => {
    if (unit.kind !== "sentence") return;
    const window = new Set(ownTerms[index] as Set<string>);
    for (const offset of [-1, 1]) {
      const other = units[index + offset];
      if (other && other.entry === unit.entry && other.kind === "sentence")
        for (const term of ownTerms[index + offset] as Set<string>) window.add(term);
    }
    neighbours.set(unit, window);
  });
  const counted = countedNoun(question);
  /** The analysed counted noun of a "how many" question ("calories"), if any. */
  const countedTerm = counted === undefined ? undefined : analyze(counted)[0];
  const focusTerms = [...new Set(analyze((questionFocus(question) ?? []).join(" ")))];
  /**
   * Per row, computed once: the question terms that one of its keys matches (the fields the
   * question names), whether it names any, whether the row holds prose ({@link holdsProse}), and
   * the question terms its name and values state, field names left out (its entity, read by
   * {@link entityElsewhere}).
   */
  const rowFacts = new Map<RecordRow, { fields: Set<string>; fieldNamed: boolean; prose: boolean; entity: Set<string> }>();
  const factsOf = (row: RecordRow) => {
    let facts = rowFacts.get(row);
    if (!facts) {
      const fields = new Set(row.cells.flatMap((cell) => [...keyTermsOf(cell.key, questionTerms, analyzeText)]));
      // The question's words the row states as values (its entity), its field names left out.
      const entity = new Set(
        analyzeText([row.name ?? "", ...row.cells.map((cell) => cell.value)].join(" ")).filter(
          (term) => questionTermSet.has(term) && !fields.has(term),
        ),
      );
      facts = { fields, fieldNamed: questionTerms.some(({ term }) => fields.has(term)), prose: holdsProse(row), entity };
      rowFacts.set(row, facts);
    }
    return facts;
  };
  const evidenceUnits: EvidenceUnit[] = units.map((unit, index) => {
    const terms = ownTerms[index] as Set<string>;
    const passage = passages.get(unit.entry) as { terms: Set<string>; missing: number };
    let stated: Set<string> = terms;
    let focusKey = 0;
    let subject: RecordCell | undefined;
    let answerPart = unit.text;
    let keyUnmatched = 0;
    let unnamedField = false;
    let fieldNamed = false;
    if (unit.kind === "cell" && unit.row && unit.cell) {
      answerPart = unit.cell.value;
      keyUnmatched = analyze(keyWords(unit.cell.key)).filter((term) => !questionTermSet.has(term)).length;
      const keyTerms = keyTermsOf(unit.cell.key, questionTerms, analyzeText);
      if (focusTerms.length > 0) focusKey = focusTerms.filter((term) => keyTerms.has(term)).length / focusTerms.length;
      fieldNamed = questionTerms.some(({ term }) => keyTerms.has(term));
      // What a cell states as an answer: its field (key) of its entity (the row's other values, the record's name).
      // A question word that names one of the row's fields refers to a field, not to the entity: another
      // cell's value that contains it ("Hazel Eyes" for "eyes") does not state it for this cell.
      stated = new Set([...keyTerms, ...analyzeText(unit.row.name ?? "")]);
      const row = factsOf(unit.row);
      const { fields } = row;
      // An attribute value (not a table row's identifying first cell, unless the question names that
      // cell's value: then it is the question's entity, not its answer; a record is identified by its
      // name, not by a field) of a row of attribute values, while the question names none of the
      // row's fields: it asks for something the row does not hold.
      const identity = unit.row.tableRow && unit.cell === unit.row.cells[0];
      const attribute = !identity || analyzeText(unit.cell.value).some((term) => questionTermSet.has(term));
      // A "how many" question's counted noun that the row states nowhere (no key, no value names
      // it): the row holds no count of it ("How many calories…?" of a row whose field `bar` the
      // question's "bar" names).
      const countAbsent = countedTerm !== undefined && !row.fields.has(countedTerm) && !row.entity.has(countedTerm);
      unnamedField = attribute && !row.prose && (!row.fieldNamed || countAbsent);
      const others = unit.row.cells.filter((cell) => cell !== unit.cell);
      let best = 0;
      for (const cell of others) {
        const valueTerms = analyzeText(cell.value);
        for (const term of valueTerms) if (!fields.has(term)) stated.add(term);
        // The entity: the row's other cell that the question names best.
        const cellCoverage = coverageOf(valueTerms);
        if (cellCoverage > best) [best, subject] = [cellCoverage, cell];
      }
    }
    // A property line ("Default: 512") states its value of what its heading names.
    if (unit.property) stated = new Set([...stated, ...analyzeProse(unit.heading ?? "")]);
    const coverage = coverageOf(stated);
    const local = new Set(stated);
    for (const term of analyzeProse(unit.heading ?? "")) local.add(term);
    const answerTerms = analyze(answerPart);
    // A command names its task ("rustup update" for "How do I update with rustup?"): it is no echo.
    let echo = unit.kind !== "command" && answerTerms.length > 0 && answerTerms.every((term) => questionWordSet.has(term));
    // A sentence restating the question under a heading path that offers what it asks for: the
    // heading answers (a changelog's version over the line that the question quotes).
    const answeringSection = echo && unit.kind === "sentence" ? sectionAnswer(unit, question, expectedType) : undefined;
    if (answeringSection !== undefined) [echo, answerPart] = [false, answeringSection];
    const offered = offeredType(unit, answerPart, question, expectedType, procedure);
    const wordsCount = unit.text.split(/\s+/).length;
    const negated = isNegated(unit.text);
    const features: UnitFeatures = {
      coverage,
      localCoverage: coverageOf(local),
      windowCoverage: coverageOf(neighbours.get(unit) ?? local),
      passageCoverage: coverageOf(passage.terms),
      focusKey,
      typeOffered: offered === true ? 1 : 0,
      typeMissing: offered === false ? 1 : 0,
      countMatch: counted !== undefined && statesCount(unit.text, counted, analyze) ? 1 : 0,
      constraintsMissing: passage.missing,
      missingLocal: heaviestMissing(local),
      missingPassage: heaviestMissing(passage.terms),
      rankPrior: 1 / (1 + unit.rank),
      fragment: unit.kind === "sentence" && wordsCount < fragmentWords ? 1 : 0,
      cell: unit.kind === "cell" ? 1 : 0,
      command: unit.kind === "command" ? 1 : 0,
      samePolarity: questionNegated && negated ? 1 : 0,
      phraseMatch: phraseMatchOf(ownText(unit)),
      dense: 0,
    };
    return {
      ...unit,
      terms,
      features,
      dense: null,
      subject,
      negated,
      echo,
      answeringSection,
      keyUnmatched,
      unnamedField,
      fieldNamed,
      score: 0,
    };
  });

  const lexical = options.scorer ?? lexicalModels.scorer;
  // A heading names a section and states nothing; code that is no command (a listing, an output)
  // is shown, not quoted: both are read as context of the units under them, never as the answer.
  const scoreOf = (model: FittedScorer, unit: EvidenceUnit) =>
    unit.echo || unit.kind === "heading" || unit.kind === "code" ? 0 : predict(model, unit.features);
  for (const unit of evidenceUnits) unit.score = scoreOf(lexical, unit);
  let scorer = lexical;
  let denseUsed = false;
  if (options.embeddings) {
    denseUsed = await addDenseSignal(question, evidenceUnits, options);
    if (denseUsed) {
      scorer = options.denseScorer ?? modelsFor(options.embeddingModel).scorer;
      for (const unit of evidenceUnits) unit.score = scoreOf(scorer, unit);
    }
  }
  evidenceUnits.sort(
    (left, right) =>
      right.score - left.score || left.rank - right.rank || left.keyUnmatched - right.keyUnmatched || left.position - right.position,
  );
  const best = evidenceUnits[0];
  const statement = best !== undefined && best.kind === "sentence" && best.features.coverage >= 0.5;
  return {
    questionTerms,
    expectedType,
    asksProcedure: procedure,
    questionNegated,
    units: evidenceUnits,
    contextCoverage: coverageOf(allTerms),
    passageCoverage,
    passageSpecificity: specificityOf(
      questionTerms,
      bestPassage,
      constraints.map(({ word }) => word),
    ),
    contradicted: statement && contradiction(question, best.text) !== undefined,
    substituted: statement && substitution(question, best.text, analyze) !== undefined,
    entityElsewhere: best?.row !== undefined && entityElsewhere(best.row, evidenceUnits, factsOf),
    denseUsed,
    scorer: scorer.name,
  };
}

/**
 * {@link Evidence.entityElsewhere}: `best` states none of the question's words but its field
 * names, and another row of the context states one that is not a field name of `best`.
 */
function entityElsewhere(
  best: RecordRow,
  units: readonly EvidenceUnit[],
  factsOf: (row: RecordRow) => { fields: Set<string>; entity: Set<string> },
): boolean {
  const { fields, entity } = factsOf(best);
  // A row holding prose states the question's words in its text, so it is its own entity here.
  if (entity.size > 0) return false;
  return units.some(({ row }) => row !== undefined && row !== best && [...factsOf(row).entity].some((term) => !fields.has(term)));
}

/**
 * Whether `unit` offers the answer type the question asks for (`typeOffered` / `typeMissing`):
 * a command offers a procedure or code; a code block offers code; otherwise its text (a cell's
 * value) is read by {@link offersAnswerType}; null when the question asks for no type.
 */
function offeredType(unit: AnswerUnit, answerPart: string, question: string, expectedType: AnswerType, procedure: boolean): boolean | null {
  if (unit.kind === "command") return procedure || expectedType === "code";
  if (procedure) return false;
  if (expectedType === null) return null;
  if (unit.kind === "code" && expectedType === "code") return true;
  // A cell's value stands alone: its first word is no sentence opening, so a capital there names an entity.
  return offersAnswerType(unit.kind === "cell" ? `: ${answerPart}` : answerPart, question, expectedType) === true;
}

/**
 * {@link EvidenceUnit.answeringSection}: the heading path of `unit`'s chunk (its `section`
 * metadata), when it offers the answer type `question` asks for (a question asking no type: a
 * number or a name the question lacks, as a version or a date); undefined otherwise.
 */
function sectionAnswer(unit: AnswerUnit, question: string, expectedType: AnswerType): string | undefined {
  const section = sectionPathOf(unit.entry.chunk.metadata);
  if (section === undefined) return undefined;
  const offers = (type: AnswerType) => offersAnswerType(section, question, type) === true;
  return (expectedType === null ? offers("number") || offers("entity") : offers(expectedType)) ? section : undefined;
}

/** The units of the context; a RAPTOR summary's sentence that a retrieved chunk also holds is left out, so the chunk is cited. */
function collectUnits(context: AnswerContext): AnswerUnit[] {
  const units = answerUnits(context);
  const leafTexts = new Set(units.filter((unit) => !isSummaryChunk(unit.entry.chunk)).map((unit) => unit.text));
  return units.filter((unit) => !isSummaryChunk(unit.entry.chunk) || !leafTexts.has(unit.text));
}

/** The text whose terms are a unit's own: a cell's key words and value, a command with its heading and lead-in, otherwise its text. */
function ownText(unit: AnswerUnit): string {
  if (unit.kind === "cell" && unit.cell) return `${keyTermText(unit.cell.key)} ${unit.cell.value}`;
  // A command states its task in its section's heading and its lead-in ("Updating Rust", "To update, run:"), rarely in itself.
  if (unit.kind === "command") return `${unit.heading ?? ""} ${unit.leadIn ?? ""} ${unit.text}`;
  return unit.text;
}

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
 * Embeds the question and the best `maxDenseUnits` units (by lexical score), each read with its
 * heading, lead-in or row, and sets their dense signal; the others get the lowest value measured.
 * Returns false (and leaves the features) when the model fails.
 */
async function addDenseSignal(question: string, units: EvidenceUnit[], options: RankEvidenceOptions): Promise<boolean> {
  const embeddings = options.embeddings as EmbeddingsInterface;
  const limit = options.maxDenseUnits ?? 48;
  const chosen = [...units].sort((left, right) => right.score - left.score).slice(0, limit);
  if (chosen.length === 0) return false;
  try {
    options.signal?.throwIfAborted();
    const [queryVector, passageVectors] = await Promise.all([
      options.queryVector ? Array.from(options.queryVector) : embeddings.embedQuery(question),
      (options.embedPassages ?? ((texts: string[]) => embeddings.embedDocuments(texts)))([question, ...chosen.map(denseText)]),
    ]);
    const self = cosineSimilarity(queryVector, passageVectors[0] as number[]);
    const scale = self > 0 ? self : 1;
    chosen.forEach((unit, index) => {
      unit.dense = cosineSimilarity(queryVector, passageVectors[index + 1] as number[]) / scale;
    });
    const floor = Math.min(...chosen.map((unit) => unit.dense as number));
    for (const unit of units) {
      unit.dense ??= floor;
      unit.features.dense = Math.max(0, unit.dense);
    }
    return true;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    for (const unit of units) {
      unit.dense = null;
      unit.features.dense = 0;
    }
    return false;
  }
}

/** The text the dense signal reads: a sentence or command with its heading and lead-in, a cell with its row. */
function denseText(unit: AnswerUnit): string {
  if (unit.kind === "cell" && unit.row && unit.cell) {
    const name = unit.row.name ? `${unit.row.name}: ` : "";
    return `${name}${unit.row.cells.map((cell) => `${cell.key}: ${cell.value}`).join("; ")}`;
  }
  if (unit.kind === "command") return [unit.heading, unit.leadIn, unit.text].filter(Boolean).join(" ");
  return unit.heading && unit.kind === "sentence" ? `${unit.heading}: ${unit.text}` : unit.text;
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

/**
 * Stage `rank-evidence` (after `build-context`): the context's answer units (sentences, table and
 * record cells, commands) ranked against the question (`rankEvidence`: one fitted scorer over
 * general features, with the dense signal when an embedding model is loaded). Reuses the
 * question's embedding from retrieval when retrieval embedded it with the same model.
 *
 * Writes `evidence`.
 */
export const rankEvidenceStage: Stage<PredictState> = {
  name: "rank-evidence",
  phase: "context",
  async run(state, runtime) {
    const embeddings = runtime.embeddings.status === "ready" ? runtime.embeddings.embeddings : undefined;
    // The question's embedding from retrieval, when its first query is the question itself and
    // retrieval embedded it with the model the dense signal uses (an organisation whose index holds
    // another model is searched with that one).
    const retrieved = state.retrievals[0];
    const sameSpace =
      runtime.embeddings.status === "ready" &&
      retrieved?.queryModel !== undefined &&
      sameModel(retrieved.queryModel, runtime.embeddings.model);
    const queryVector = sameSpace && retrieved?.query.text === state.query ? retrieved.queryVector : undefined;
    state.evidence = await rankEvidence(state.query, state.context, {
      analyzer: runtime.analyzer,
      embeddings,
      embeddingModel: runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : undefined,
      queryVector,
      embedPassages: passageEmbedder(runtime, state.orgId),
      signal: state.signal,
    });
  },
};

/**
 * The service's passage embedder (the dense signal, grounding): through its `PassageVectorCache`,
 * keyed by the model's vector identity and the organisation; the model itself when the cache is
 * off; undefined without an embedding model.
 */
export function passageEmbedder(
  runtime: Pick<Runtime, "embeddings" | "passageVectors">,
  organisation: string,
): ((texts: string[]) => Promise<number[][]>) | undefined {
  if (runtime.embeddings.status !== "ready") return undefined;
  const embeddings: EmbeddingsInterface = runtime.embeddings.embeddings;
  const cache = runtime.passageVectors;
  if (!cache) return (texts) => embeddings.embedDocuments(texts);
  const model = vectorIdentityOf(runtime.embeddings.model, runtime.embeddings.identity);
  return (texts) => cache.embedDocuments(embeddings, texts, { model, organisation });
}
