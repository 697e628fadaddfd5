/**
 * Support of a sentence by a context unit, the measure grounding attributes sentences with: the
 * idf- and background-weighted share of the sentence's content terms that the unit states
 * ({@link lexicalSupport}), lexical overlap being one of the automatic attribution measures of
 * Rashkin et al., 2023, "Measuring Attribution in Natural Language Generation Models", section 5.
 * A unit's terms include its document's title, its heading, lead-in and, for a cell, its row, with
 * the month names of the ISO 8601 dates it stores ({@link unitTerms}).
 */
import { cosineSimilarity } from "../embeddings/cosine-similarity.js";
import type { Analyzer } from "../text/analyzer.js";
import type { EvidenceUnit, WeightedTerm } from "./evidence.js";
import { keyTermsOf, keyWords } from "./record-keys.js";

/**
 * Share of a sentence's content weight one context unit must state for the sentence to count as
 * supported by it: more than half, the sentence's main content. Chosen, not fitted: no labelled
 * attribution data is at hand; docs/answering.md reports how often it attaches and drops.
 */
export const minimumSupport = 0.5;
/**
 * Idf of every term over the context's passages (BM25's idf, with at least 20 passages' worth as in
 * `rankEvidence`), a passage's terms being those of its units. Counted per passage, not per unit:
 * every cell of a record carries its row's names and values, so counted per unit the record's own
 * words would weigh least in the sentences that state them.
 */
export function inverseDocumentFrequencies(
  units: readonly EvidenceUnit[],
  analyzer: Analyzer,
  questionTerms: readonly WeightedTerm[] = [],
): (term: string) => number {
  const passages = new Map<string, Set<string>>();
  for (const unit of units) {
    let terms = passages.get(unit.entry.key);
    if (!terms) passages.set(unit.entry.key, (terms = new Set()));
    for (const term of unitTerms(unit, analyzer, questionTerms)) terms.add(term);
  }
  const frequencies = new Map<string, number>();
  for (const terms of passages.values()) for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  const count = Math.max(passages.size, 20);
  return (term) => {
    const frequency = frequencies.get(term) ?? 0;
    return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
  };
}

/** Month names, January first (an ISO 8601 date's month 01–12). */
const monthNames = "january february march april may june july august september october november december".split(" ");
/** A calendar date as ISO 8601 writes it (`1940-03-26`), as records and tables store dates. */
const isoDate = /(?<![\p{L}\p{N}])\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![\p{L}\p{N}])/gu;

/**
 * The month names of the ISO 8601 dates in `text` ("1940-03-26" → "march"): an answer writes the
 * date a record stores as `1940-03-26` as "March 26, 1940", whose day and year rule 4 compares by
 * value; the month's name is what the words must find.
 */
export function monthsOfIsoDates(text: string): string[] {
  return [...text.matchAll(isoDate)].map((match) => monthNames[Number(match[1]) - 1] as string);
}

/** The analysed terms of `text` with the month names of its ISO 8601 dates ({@link monthsOfIsoDates}). */
export function termsWithMonths(text: string, analyzer: Analyzer): string[] {
  return analyzer.analyze([text, ...monthsOfIsoDates(text)].join(" "));
}

const termCache = new WeakMap<EvidenceUnit, ReadonlySet<string>>();
/**
 * A unit's terms with its document's title, its heading's and, for a cell, its row's: each field
 * name read as `rankEvidence` reads it, its words (`ShareWomen` → "Share Women") and, given the
 * question's terms, the question words it names by prefix, related form or as a compound
 * ({@link keyTermsOf}: `winpercent` states "win percentage" for a question that says so). A
 * unit belongs to one request's evidence, so its terms are computed once, with the first
 * `questionTerms` given.
 */
export function unitTerms(unit: EvidenceUnit, analyzer: Analyzer, questionTerms: readonly WeightedTerm[] = []): ReadonlySet<string> {
  let terms = termCache.get(unit);
  if (!terms) {
    const parts = [unit.entry.chunk.title, unit.text, unit.heading ?? "", unit.leadIn ?? ""];
    if (unit.row) parts.push(unit.row.name ?? "", ...unit.row.cells.map((cell) => `${keyWords(cell.key)} ${cell.value}`));
    const text = parts.join(" ");
    const found = new Set(termsWithMonths(text, analyzer));
    const analyze = (value: string) => analyzer.analyze(value);
    if (unit.row && questionTerms.length > 0)
      for (const cell of unit.row.cells) for (const term of keyTermsOf(cell.key, questionTerms, analyze)) found.add(term);
    terms = found;
    termCache.set(unit, terms);
  }
  return terms;
}

/**
 * The unit that best supports a sentence and how much of it it states: the highest lexical
 * support; among units at or above {@link minimumSupport}, the closest by passage vector when
 * vectors are given. `framing`: the sentence's terms that frame rather than claim (the question's
 * words, function words); the rest is what the sentence adds, which the unit must support alone.
 */
export function bestSupport(
  terms: ReadonlySet<string>,
  units: readonly EvidenceUnit[],
  termsOf: (unit: EvidenceUnit) => ReadonlySet<string>,
  weight: (term: string) => number,
  dense: { sentence: number[]; units: Map<EvidenceUnit, number[]> } | undefined,
  framing: ReadonlySet<string> = new Set(),
): { unit: EvidenceUnit; value: number } | undefined {
  let best: { unit: EvidenceUnit; value: number; closeness: number } | undefined;
  // What the sentence adds to the question: it must be stated by the unit on its own.
  const novel = new Set([...terms].filter((term) => !framing.has(term)));
  for (const unit of units) {
    if (unit.kind === "heading") continue;
    const unitTermSet = termsOf(unit);
    // Words the sentence repeats from the question are the question's framing, not the model's
    // claims ("…in the Marvel wikia data is Blond Hair"): they count when the unit holds them and
    // are excused when it does not.
    // A sentence that adds only numbers to the question's words is excused nothing: its claim is
    // those words ("Kettlewick has 1821 residents" of a record without residents).
    const claimed = novel.size > 0 ? new Set([...terms].filter((term) => unitTermSet.has(term) || !framing.has(term))) : terms;
    const whole = lexicalSupport(claimed, unitTermSet, weight);
    const value = novel.size > 0 ? Math.min(whole, lexicalSupport(novel, unitTermSet, weight)) : whole;
    const vector = dense?.units.get(unit);
    const closeness = dense && vector && value >= minimumSupport ? cosineSimilarity(dense.sentence, vector) : 0;
    if (!best || closeness > best.closeness || (closeness === best.closeness && value > best.value)) best = { unit, value, closeness };
  }
  return best;
}

/** The weighted share of `sentence`'s terms that `unit` holds (`weight`: a term's weight, such as its idf). */
export function lexicalSupport(sentence: ReadonlySet<string>, unit: ReadonlySet<string>, weight: (term: string) => number): number {
  let total = 0;
  let held = 0;
  for (const term of sentence) {
    const value = weight(term);
    total += value;
    if (unit.has(term)) held += value;
  }
  return total === 0 ? 0 : held / total;
}
