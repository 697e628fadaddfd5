/**
 * The extractive answerer: builds the Answer object from sentences of the retrieved chunks,
 * ranked against the question, with no language model. It is the default when no model is
 * configured, and the fallback when a model's output cannot be repaired.
 *
 * Method (a query-biased extractive summary in the manner of Tombros & Sanderson, 1998,
 * "Advantages of query biased summaries in information retrieval"):
 * 1. Each context chunk is split into sentences ({@link splitSentences}). A RAPTOR summary's
 *    sentence that also appears in a retrieved chunk is dropped, so the chunk is cited.
 * 2. A sentence's coverage is the IDF-weighted share of the question's content terms it
 *    contains (question words such as "how many" are ignored, {@link questionStopWords}), with
 *    IDF computed over the context's sentences: Σ_{t ∈ q ∩ s} idf(t) / Σ_{t ∈ q} idf(t).
 * 3. Its score blends its own coverage (weight 0.7) with its chunk's coverage (0.3), so a fact
 *    line of a record or table that answers the question as a whole ranks above a stray sentence
 *    elsewhere; adds a small prior for the chunk's retrieval rank; halves the score of fragments
 *    ({@link isFragment}: headings, table cells) and lowers that of lead-in sentences ending
 *    with a colon (which introduce code or a list rather than answer).
 * 4. The best sentence is the callout (with its successor when it is very short). Other
 *    well-covered sentences that are not fragments become `positive_list`; sentences with a
 *    caveat marker ("however", "except", "not", ...) that are covered, or sit in the callout's
 *    chunk, become `negative_list`; the best covered sentence of each other retrieved document
 *    (a summary counts as the documents it summarises) becomes `info_list`. Each item cites its
 *    chunk as `[Source: doc_n]`.
 * 5. When the best coverage is below `minimumCoverage` the answerer abstains with the spec's
 *    empty-context answer rather than cite an unrelated passage.
 */

import { isSummaryChunk } from "../raptor/build-raptor-nodes.js";
import { isFragment } from "../raptor/summarizer.js";
import { type Analyzer, createEnglishAnalyzer } from "../text/analyzer.js";
import { questionStopWords } from "../text/english-stop-words.js";
import { splitSentences } from "../text/split-sentences.js";
import { type Answer, emptyContextAnswer } from "./answer.js";
import type { Answerer, AnswerRequest, GeneratedAnswer } from "./answerer.js";
import type { ContextEntry } from "./build-context.js";
import { formatCitation } from "./citations.js";

/** Settings of {@link createExtractiveAnswerer}. */
export interface ExtractiveAnswererSettings {
  /** Analyzer for matching question and sentences; default {@link createEnglishAnalyzer}. */
  analyzer?: Analyzer;
  /** Best-sentence coverage below which the answerer abstains (`EXTRACTIVE_MIN_COVERAGE`); default 0.15. */
  minimumCoverage?: number;
  /** Maximum items per list; default 3. */
  maximumListItems?: number;
}

interface Unit {
  entry: ContextEntry;
  rank: number;
  position: number;
  text: string;
  terms: Set<string>;
  words: number;
  /** Shorter than five words, or a short line without closing punctuation (a heading, a table cell). */
  fragment: boolean;
  coverage: number;
  score: number;
}

/** Weight of a sentence's own coverage against its chunk's coverage in its score. */
const sentenceWeight = 0.7;

const caveatPattern =
  /\b(however|but|except|excluding|unless|not|no|never|cannot|can't|won't|only if|only when|limited|limitation|although|though|must not|may not|restricted|prohibited|warning|note that)\b/i;
const wordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/** Creates the extractive answerer. */
export function createExtractiveAnswerer(settings: ExtractiveAnswererSettings = {}): Answerer {
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();
  const minimumCoverage = settings.minimumCoverage ?? 0.15;
  const maximumListItems = settings.maximumListItems ?? 3;

  const result = (answer: Answer, abstained: boolean): GeneratedAnswer => ({
    answer,
    mode: "extractive",
    model: "extractive",
    abstained,
    numPredict: null,
    numCtx: null,
  });

  return {
    name: "extractive",
    async answer({ question, context }: AnswerRequest): Promise<GeneratedAnswer> {
      const questionTerms = contentTerms(question, analyzer);
      const units: Unit[] = [];
      context.entries.forEach((entry, rank) => {
        splitSentences(entry.text).forEach((text, position) => {
          const terms = new Set(analyzer.analyze(text));
          if (terms.size === 0) return;
          units.push({
            entry,
            rank,
            position,
            text,
            terms,
            words: text.split(/\s+/).length,
            fragment: isFragment(text),
            coverage: 0,
            score: 0,
          });
        });
      });
      // A summary node repeats sentences of its chunks: cite the chunk when it is in the context too.
      const leafSentences = new Set(units.filter((unit) => !isSummaryChunk(unit.entry.chunk)).map((unit) => unit.text));
      for (let index = units.length - 1; index >= 0; index--) {
        const unit = units[index] as Unit;
        if (isSummaryChunk(unit.entry.chunk) && leafSentences.has(unit.text)) units.splice(index, 1);
      }
      if (units.length === 0 || questionTerms.length === 0) return result(emptyContextAnswer(), true);

      const idf = new Map<string, number>();
      for (const term of questionTerms) {
        let documentFrequency = 0;
        for (const unit of units) if (unit.terms.has(term)) documentFrequency++;
        idf.set(term, Math.log(1 + (units.length - documentFrequency + 0.5) / (documentFrequency + 0.5)));
      }
      const totalWeight = [...idf.values()].reduce((sum, weight) => sum + weight, 0);
      const coverageOf = (terms: ReadonlySet<string>) => {
        let matched = 0;
        for (const term of questionTerms) if (terms.has(term)) matched += idf.get(term) as number;
        return totalWeight > 0 ? matched / totalWeight : 0;
      };
      const chunkCoverage = new Map<ContextEntry, number>();
      for (const entry of context.entries) {
        const terms = new Set<string>();
        for (const unit of units) if (unit.entry === entry) for (const term of unit.terms) terms.add(term);
        chunkCoverage.set(entry, coverageOf(terms));
      }
      for (const unit of units) {
        unit.coverage = coverageOf(unit.terms);
        const rankPrior = 0.1 / (1 + unit.rank);
        const fragmentPenalty = unit.fragment ? 0.5 : 1;
        const leadInPenalty = unit.text.endsWith(":") ? 0.7 : 1;
        const blended = sentenceWeight * unit.coverage + (1 - sentenceWeight) * (chunkCoverage.get(unit.entry) as number);
        unit.score = (blended + rankPrior) * fragmentPenalty * leadInPenalty;
      }
      const ranked = [...units].sort((left, right) => right.score - left.score || left.rank - right.rank || left.position - right.position);
      const best = ranked[0] as Unit;
      if (best.coverage < minimumCoverage) return result(emptyContextAnswer(), true);

      const cite = (unit: Unit) => `${unit.text} ${formatCitation([unit.entry.key])}`;
      const used = new Set<Unit>([best]);
      let callout = best.text;
      if (best.words < 12) {
        const next = units.find((unit) => unit.entry === best.entry && unit.position === best.position + 1);
        if (next && !next.fragment && !caveatPattern.test(next.text)) {
          callout = `${callout} ${next.text}`;
          used.add(next);
        }
      }
      const isNearDuplicate = (unit: Unit) => [...used].some((other) => jaccard(unit.terms, other.terms) > 0.8);

      const positive: string[] = [];
      const negative: string[] = [];
      const supportThreshold = Math.max(minimumCoverage, best.coverage * 0.5);
      for (const unit of ranked) {
        if (used.has(unit) || unit.fragment || unit.coverage === 0 || isNearDuplicate(unit)) continue;
        const caveat = caveatPattern.test(unit.text);
        if (caveat && negative.length < maximumListItems && (unit.coverage >= minimumCoverage || unit.entry === best.entry)) {
          negative.push(cite(unit));
          used.add(unit);
        } else if (!caveat && positive.length < maximumListItems && unit.coverage >= supportThreshold) {
          positive.push(cite(unit));
          used.add(unit);
        }
      }

      const info: string[] = [];
      const citedDocuments = new Set([...used].flatMap((unit) => documentsOf(unit.entry.chunk)));
      for (const unit of ranked) {
        if (info.length >= maximumListItems - 1) break;
        const documents = documentsOf(unit.entry.chunk);
        if (unit.coverage < minimumCoverage || unit.fragment || documents.some((docId) => citedDocuments.has(docId))) continue;
        info.push(`${unit.entry.chunk.title}: ${cite(unit)}`);
        for (const docId of documents) citedDocuments.add(docId);
        used.add(unit);
      }

      const answer: Answer = {
        callout_answer: `${callout} ${formatCitation([best.entry.key])}`,
        positive_list: positive,
        negative_list: negative,
        info_list: info,
        keywords: keywordsOf(question, [...used].map((unit) => unit.text).join(" "), idf, analyzer),
      };
      return result(answer, false);
    },
  };
}

/** The documents a chunk speaks for: its own, or for a RAPTOR summary, those it summarises. */
function documentsOf(chunk: ContextEntry["chunk"]): string[] {
  const summarised = chunk.metadata.raptor_documents;
  if (isSummaryChunk(chunk) && Array.isArray(summarised))
    return summarised.map((document) => String((document as { doc_id: unknown }).doc_id));
  return [chunk.docId];
}

/** The analysed terms of the question's content words (question words such as "how many" removed). */
function contentTerms(question: string, analyzer: Analyzer): string[] {
  const terms = new Set<string>();
  for (const match of question.matchAll(wordPattern)) {
    const word = match[0].toLowerCase();
    if (questionStopWords.has(word)) continue;
    for (const term of analyzer.analyze(word)) terms.add(term);
  }
  return terms.size > 0 ? [...terms] : [...new Set(analyzer.analyze(question))];
}

/** Question words (surface forms) whose terms occur in the cited text, most specific first; at most 8. */
function keywordsOf(question: string, citedText: string, idf: Map<string, number>, analyzer: Analyzer): string[] {
  const citedTerms = new Set(analyzer.analyze(citedText));
  const keywords = new Map<string, { word: string; weight: number }>();
  for (const match of question.matchAll(wordPattern)) {
    const word = match[0].toLowerCase();
    if (questionStopWords.has(word)) continue;
    for (const term of analyzer.analyze(word)) {
      if (!citedTerms.has(term) || keywords.has(term)) continue;
      keywords.set(term, { word, weight: idf.get(term) ?? 0 });
    }
  }
  return [...keywords.values()]
    .sort((left, right) => right.weight - left.weight)
    .slice(0, 8)
    .map(({ word }) => word);
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}
