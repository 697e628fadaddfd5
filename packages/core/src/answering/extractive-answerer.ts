/**
 * The extractive answerer: answers with the one sentence of the retrieved chunks that best
 * answers the question, with no language model. It is the default when no model is configured,
 * and the fallback when a model's output cannot be repaired.
 *
 * Method (answer-sentence selection, as in the sentence-retrieval stage of open-domain QA; see
 * Yih et al., 2013, "Question Answering Using Enhanced Lexical Semantic Models"):
 * 1. The sentences of the context are ranked by {@link rankEvidence}: idf-weighted coverage of the
 *    question's content terms (the sentence's BM25 score relative to the question's maximum), the
 *    dense similarity when an embedding model is loaded, and question-type cues (who, when, how
 *    many → an entity, a date, a number that the question does not state). The pipeline passes
 *    the ranking its `decide-answerable` stage computed; called on its own, the answerer ranks
 *    lexically and applies {@link decideAnswerable} itself.
 * 2. The callout is the best sentence alone (followed by the next sentence only when it is a
 *    lead-in ending with a colon), cited `[Source: doc_n]`.
 * 3. `positive_list` holds other sentences only when they add an answer-bearing fact: the best
 *    sentence for each sub-query of a compound question (when the pipeline passes `subqueries`)
 *    that states at least half of it; then sentences nearly as good as the callout (score at least
 *    0.75 of it), covering the question well and every question term the callout covers (so
 *    "full-time employees receive 25 days" does not support an answer about new employees),
 *    offering an answer of the expected type when one is expected, and not repeating a sentence
 *    already used.
 * 4. `negative_list` holds a sentence only when it qualifies the answer: it has a caveat cue
 *    (negation, exception, limitation), comes from the callout's document, and is on the same
 *    subject (it shares a question term with the callout and sits next to it, or covers the
 *    question at least half as well). Otherwise it is empty.
 * 5. `info_list` holds at most one sentence of another document that answers nearly as well.
 */

import type { Analyzer } from "../text/analyzer.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { type Answer, emptyContextAnswer } from "./answer.js";
import type { Answerer, AnswerRequest, GeneratedAnswer } from "./answerer.js";
import { formatCitation } from "./citations.js";
import { type AbstentionReason, decideAnswerable } from "./decide-answerable.js";
import { type EvidenceSentence, rankEvidence } from "./rank-evidence.js";

/** Settings of {@link createExtractiveAnswerer}. */
export interface ExtractiveAnswererSettings {
  /** Analyzer for matching question and sentences; default {@link createEnglishAnalyzer}. */
  analyzer?: Analyzer;
  /**
   * Best-sentence coverage below which the answerer abstains when it decides alone
   * (`EXTRACTIVE_MIN_COVERAGE`); default 0.15.
   */
  minimumCoverage?: number;
  /** Best passage coverage below which it abstains with `low_relevance` when it decides alone (`ABSTAIN_MIN_PASSAGE_COVERAGE`); default 0.3. */
  minimumPassageCoverage?: number;
  /** Best passage coverage below which a question asking for a number that no best sentence offers abstains, when it decides alone (`ABSTAIN_TYPED_MIN_PASSAGE_COVERAGE`); default 0.45. */
  minimumTypedPassageCoverage?: number;
  /** Maximum items of `positive_list` and `negative_list`; default 2. */
  maximumListItems?: number;
}

/** Score share of the callout's a supporting sentence needs. */
const supportScoreShare = 0.75;
/** Score share of the callout's another document's sentence needs for `info_list`. */
const infoScoreShare = 0.85;
/** Sentences this close in terms (Jaccard) to a used one repeat it. */
const duplicateSimilarity = 0.8;
/** Share of a sub-query its best sentence must state to answer that part of a compound question. */
const subqueryCoverage = 0.5;
/** Positions apart within one chunk that still count as next to the callout. */
const neighbourhood = 2;

const caveatPattern =
  /\b(however|but|except|excluding|unless|not|never|cannot|can't|won't|only if|only when|limited|limitation|although|though|must not|may not|restricted|prohibited|warning|note that)\b/i;
const wordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/** Creates the extractive answerer. */
export function createExtractiveAnswerer(settings: ExtractiveAnswererSettings = {}): Answerer {
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();
  const minimumCoverage = settings.minimumCoverage ?? 0.15;
  const minimumPassageCoverage = settings.minimumPassageCoverage ?? 0.3;
  const minimumTypedPassageCoverage = settings.minimumTypedPassageCoverage ?? 0.45;
  const maximumListItems = settings.maximumListItems ?? 2;

  const result = (answer: Answer, abstentionReason: AbstentionReason | null): GeneratedAnswer => ({
    answer,
    mode: "extractive",
    model: "extractive",
    abstained: abstentionReason !== null,
    abstentionReason,
    numPredict: null,
    numCtx: null,
  });

  return {
    name: "extractive",
    async answer({ question, context, evidence: given, subqueries, signal }: AnswerRequest): Promise<GeneratedAnswer> {
      const evidence = given ?? (await rankEvidence(question, context, { analyzer, signal }));
      if (!given) {
        const decision = decideAnswerable(
          question,
          evidence,
          {
            minPassageCoverage: minimumPassageCoverage,
            minTypedPassageCoverage: minimumTypedPassageCoverage,
            minDense: 0,
            minSentenceCoverage: minimumCoverage,
          },
          analyzer,
        );
        if (!decision.answerable) return result(emptyContextAnswer(), decision.reason);
      }
      const ranked = evidence.sentences;
      const best = ranked[0];
      if (!best || best.coverage === 0) return result(emptyContextAnswer(), best ? "not_answerable" : "no_documents");

      const cite = (sentence: EvidenceSentence) => `${sentence.text} ${formatCitation([sentence.entry.key])}`;
      const used = new Set<EvidenceSentence>([best]);
      let callout = best.text;
      if (best.field) {
        // A record's field is read with the line that names the record: `name: Oxygen; discoverer: Priestley`.
        const identity = ranked.find((sentence) => sentence.entry === best.entry && sentence.field && sentence.valueStated);
        if (identity && identity !== best) {
          callout = `${identity.text}; ${callout}`;
          used.add(identity);
        }
      }
      if (best.text.endsWith(":")) {
        const next = ranked.find((sentence) => sentence.entry === best.entry && sentence.position === best.position + 1);
        if (next) {
          callout = `${callout} ${next.text}`;
          used.add(next);
        }
      }
      const isRepeat = (sentence: EvidenceSentence) =>
        [...used].some((other) => jaccard(sentence.terms, other.terms) > duplicateSimilarity);
      const questionTerms = new Set(evidence.questionTerms.map(({ term }) => term));
      const calloutSubject = new Set([...best.terms].filter((term) => questionTerms.has(term)));
      const sameSubject = (sentence: EvidenceSentence) => [...sentence.terms].some((term) => calloutSubject.has(term));

      const negative: string[] = [];
      for (const sentence of ranked) {
        if (negative.length >= maximumListItems) break;
        if (used.has(sentence) || sentence.fragment || !caveatPattern.test(sentence.text) || isRepeat(sentence)) continue;
        if (sentence.entry.chunk.docId !== best.entry.chunk.docId || !sameSubject(sentence)) continue;
        const adjacent = sentence.entry === best.entry && Math.abs(sentence.position - best.position) <= neighbourhood;
        if (!adjacent && sentence.coverage < best.coverage / 2) continue;
        negative.push(cite(sentence));
        used.add(sentence);
      }

      const positive: string[] = [];
      for (const subquery of subqueries ?? []) {
        const part = (await rankEvidence(subquery, context, { analyzer, signal })).sentences.find(
          (sentence) => !sentence.fragment && sentence.coverage >= subqueryCoverage,
        );
        const chosen = part && ranked.find((sentence) => sentence.entry === part.entry && sentence.position === part.position);
        if (!chosen || used.has(chosen) || isRepeat(chosen)) continue;
        positive.push(cite(chosen));
        used.add(chosen);
      }
      const supportCoverage = Math.max(minimumCoverage, best.coverage / 2);
      const positiveLimit = positive.length + maximumListItems;
      for (const sentence of ranked) {
        if (positive.length >= positiveLimit) break;
        if (sentence.score < best.score * supportScoreShare) break;
        if (used.has(sentence) || sentence.fragment || caveatPattern.test(sentence.text) || isRepeat(sentence)) continue;
        if (sentence.coverage < supportCoverage || sentence.offersAnswer === false) continue;
        // A record's other fields support the answer only when their key names part of the question.
        if (sentence.field && sentence.keyCoverage === 0) continue;
        // The same question: every question term the callout holds ("new employees", not "full-time employees").
        if (![...calloutSubject].every((term) => sentence.terms.has(term))) continue;
        positive.push(cite(sentence));
        used.add(sentence);
      }

      const info: string[] = [];
      const citedDocuments = new Set([...used].map((sentence) => sentence.entry.chunk.docId));
      for (const sentence of ranked) {
        if (sentence.score < best.score * infoScoreShare) break;
        if (used.has(sentence) || sentence.fragment || citedDocuments.has(sentence.entry.chunk.docId) || isRepeat(sentence)) continue;
        if (sentence.coverage < supportCoverage || sentence.offersAnswer === false) continue;
        info.push(`${sentence.entry.chunk.title}: ${cite(sentence)}`);
        used.add(sentence);
        break;
      }

      const weights = new Map(evidence.questionTerms.map(({ term, weight }) => [term, weight]));
      const answer: Answer = {
        callout_answer: `${callout} ${formatCitation([best.entry.key])}`,
        positive_list: positive,
        negative_list: negative,
        info_list: info,
        keywords: keywordsOf(question, [...used].map((sentence) => sentence.text).join(" "), weights, analyzer),
      };
      return result(answer, null);
    },
  };
}

/** Question words (surface forms) whose terms occur in the cited text, most specific first; at most 8. */
function keywordsOf(question: string, citedText: string, weights: Map<string, number>, analyzer: Analyzer): string[] {
  const citedTerms = new Set(analyzer.analyze(citedText));
  const keywords = new Map<string, { word: string; weight: number }>();
  for (const match of question.matchAll(wordPattern)) {
    const word = match[0].toLowerCase();
    for (const term of analyzer.analyze(word)) {
      if (!weights.has(term) || !citedTerms.has(term) || keywords.has(term)) continue;
      keywords.set(term, { word, weight: weights.get(term) ?? 0 });
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
