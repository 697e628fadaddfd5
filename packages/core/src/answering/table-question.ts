/**
 * The two sides of {@link answerFromTable} read for matching: the table (header and cell terms,
 * column kinds, summary rows) and the question (terms, content terms, the operation cues of
 * English and the kind of answer its wh-word asks for), after the lexicon of Pasupat & Liang
 * (2015, "Compositional Semantic Parsing on Semi-Structured Tables", section 4). The conditions a
 * question places on rows are found in `table-conditions.ts`.
 */
import type { Analyzer } from "../text/analyzer.js";
import { type ColumnProfile, profileColumn } from "./table-values.js";

/** A table as text: a header and rows of cells in file order (the public shape of {@link answerFromTable}). */
export interface Table {
  /** The table's or its document's title, if known. */
  title?: string;
  /** Column names, one per column. */
  header: string[];
  /** Rows of cells as text, in file order; a short row reads as empty cells. */
  rows: string[][];
}

/** A table read for matching. */
export interface PreparedTable {
  table: Table;
  /** Number of columns. */
  width: number;
  /** Column names, whitespace collapsed (`Column 3` for an empty one). */
  headerText: string[];
  /** Analyzer terms of each column name, split at `_` and camelCase first. */
  headerTerms: string[][];
  /** The terms of each column name outside parentheses (a unit or a note: "Sales (US $ millions)"), or all when none are outside. */
  headerCoreTerms: string[][];
  /** Analyzer terms of each cell, `[row][column]`. */
  cellTerms: string[][][];
  /**
   * Analyzer terms of the parts of each cell that lists several values (split at line breaks,
   * commas, semicolons and slashes), `[row][column][part]`; empty for a cell of one part.
   */
  cellParts: string[][][][];
  /** Per analyzer term: the share of rows with a cell containing it. */
  rowShare: Map<string, number>;
  /** Rows that summarise the others ("Total", "Totals", "Average" in a cell of their own), left out of operations over rows. */
  summaryRows: Set<number>;
  /** Each column read as values. */
  profiles: ColumnProfile[];
}

/** English operation cues found in a question (see {@link cuePatterns}). */
export type Cue =
  | "count"
  | "sum"
  | "total"
  | "average"
  | "most"
  | "least"
  | "more"
  | "less"
  | "difference"
  | "first"
  | "last"
  | "next"
  | "previous"
  | "alternatives"
  | "frequency"
  | "several"
  | "negation";

/** The answer a question's wh-word asks for: a name (who/which/what), a date (when), a place (where) or a quantity (how many/much). */
export type QuestionType = "name" | "date" | "place" | "quantity" | "yes-no";

/** A question read for matching. */
export interface AnalyzedQuestion {
  text: string;
  /** Analyzer terms in order. */
  terms: string[];
  /** Indexes of `terms` that carry content (not English question, cue or function words). */
  contentIndexes: number[];
  /** Per term index: other terms it stands for (an English ordinal or number word: "first" for "1st"). */
  alternatives: Map<number, string[]>;
  /** Terms of the noun after the wh-phrase ("which *year*", "how many *seasons*"), naming the answer's column. */
  answerNoun: Set<string>;
  cues: Set<Cue>;
  type: QuestionType;
}

/** A restriction on rows, from a span of the question. */
export interface Condition {
  column: number;
  /** Rows it holds for, ascending. */
  rows: number[];
  /** The question terms it comes from: `[start, end)` in {@link AnalyzedQuestion.terms}. */
  span: [number, number];
  /** `match`: the cell's text is in the question; `compare`: a numeric comparison. */
  kind: "match" | "compare";
  /** Share of the matched cells' terms found in the question (1 for a comparison). */
  quality: number;
  /** A short description for explanations: `Country = "Italy"`, `Points > 2`. */
  label: string;
}

/**
 * English operation cue words (documented as English; other languages need their own lists).
 * The cue classes are the operations of Pasupat & Liang's logical forms (section 2: count, sum,
 * average, argmax/argmin, comparatives, next/previous and first/last by row order, differences).
 */
const cuePatterns: Readonly<Record<Cue, RegExp>> = {
  count: /\b(how many|number of|how often|count|times)\b/,
  sum: /\b(combined|sum|altogether|in all|add(?:ed)? up)\b/,
  total: /\b(total|overall)\b/,
  average: /\b(average|mean)\b/,
  most: /\b(?<!at )(?<!no )(most|highest|largest|greatest|biggest|best|longest|maximum|tallest|heaviest|busiest|top|latest|newest|farthest)\b/,
  least: /\b(?<!at )(?<!no )(least|lowest|smallest|fewest|shortest|minimum|worst|earliest|fastest|quickest|soonest)\b/,
  more: /\b(more|higher|larger|greater|longer|bigger|better|later|newer|over|above|exceed\w*|taller|heavier|older)\b/,
  less: /\b(less|fewer|lower|smaller|shorter|worse|earlier|sooner|faster|quicker|under|below|younger)\b/,
  difference:
    /\b(difference|how (many|much) (more|less|fewer|longer|shorter)|by how (many|much)|how long|how many years (after|before|later|earlier)|apart|between .+ and)\b/,
  first: /\b(first|top|earliest|beginning|begin|initial|opening)\b/,
  last: /\b(last|final|bottom|latest|most recent|end)\b/,
  next: /\b(next|after|following|followed|below|succeeded|later)\b/,
  previous: /\b(previous|before|prior|preceding|preceded|above|earlier)\b/,
  alternatives: /\b\w+\b.*\bor\b/,
  several: /\b(both|all|list|they|them|(?:which|what|who) (?:are|were)|(?:which|what|the) (?:two|three|\d+))\b/,
  frequency: /\b(?<!at )(?<!no )(most|least|fewest|common|frequent\w*|often)\b/,
  negation: /\b(not|no|never|without|other than|besides|except|blank|empty|none)\b|n't\b/,
};

/**
 * English question, cue and function words that carry no content to match against cells or
 * headers (wh-words, auxiliaries, the cue words of {@link cuePatterns}, and table-referring nouns
 * like "table", "list", "chart").
 */
const functionWords =
  "what which who whom whose when where why how many much did does do done has have had were been being can could would should " +
  "name names number numbers total amount times time count listed list table chart many more most less least fewer fewest " +
  "first last next previous after before above below top bottom only other same one any all each every listed shown according " +
  "highest lowest largest smallest greatest biggest longest shortest average combined sum difference between than also";

/** English ordinal and number words and the digits tables write for them ("first" → "1st", "1"). */
const numberWords: readonly [string, string, string][] = [
  ["first", "1st", "one"],
  ["second", "2nd", "two"],
  ["third", "3rd", "three"],
  ["fourth", "4th", "four"],
  ["fifth", "5th", "five"],
  ["sixth", "6th", "six"],
  ["seventh", "7th", "seven"],
  ["eighth", "8th", "eight"],
  ["ninth", "9th", "nine"],
  ["tenth", "10th", "ten"],
];
/** "the last 3", "the top five", "first 10": a slice of rows from the start or the end of the table (English). */
export const slicePattern = /\b(first|top|last|bottom|final) (\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\b/g;

/** English words that, alone in a cell, mark a row summarising the table ("Total"). */
const summaryCell = /^(total|totals|sum|overall|average|mean|all)$/i;
/** Wh-phrases after which the next content words name the answer's column (English). */
const answerNounPattern = /\b(?:which|what|whose|how many|how much|number of)\s+((?:[\p{L}\p{N}'-]+\s*){1,6})/u;
const questionTypePatterns: readonly [QuestionType, RegExp][] = [
  ["quantity", /\b(how (many|much|long|old|far|often)|number of|what (number|amount|percentage)|total|average)\b/],
  ["date", /\b(when|what (year|date|day|month|time|season|period)|which (year|date|day|month|season)|in what year)\b/],
  ["place", /\bwhere\b/],
  ["name", /\b(who|whom|whose|which|what)\b/],
  ["yes-no", /^(is|are|was|were|did|does|do|has|have|had|can|could)\b/],
];

/**
 * Shortest stem that matches a longer one it begins ("attend" of "attendees", "distribut" of
 * "distributors"): the Porter stemmer leaves agent nouns and their verbs apart. Five letters keep
 * short stems ("art", "car") from matching unrelated words.
 */
const minimumPrefixMatch = 5;

/** Whether two analyzer terms name the same thing: equal, or one begins the other and is at least {@link minimumPrefixMatch} long. */
export function termsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= minimumPrefixMatch && long.startsWith(short);
}

/** Indexes of the question terms that match a term of column `column`'s name ({@link termsMatch}). */
export function headerMentions(question: AnalyzedQuestion, table: PreparedTable, column: number | undefined): number[] {
  if (column === undefined || column < 0) return [];
  const header = table.headerTerms[column] ?? [];
  return question.terms.flatMap((term, index) => (header.some((name) => termsMatch(name, term)) ? [index] : []));
}

/** Splits a column name at `_` and camelCase humps before analysis ("wine_servings", "releaseYear"). */
export function splitHeaderName(name: string): string {
  return name.replace(/_/g, " ").replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");
}

/** Reads `table` for matching with `analyzer`. */
export function prepareTable(table: Table, analyzer: Analyzer): PreparedTable {
  const width = Math.max(table.header.length, ...table.rows.map((row) => row.length));
  const headerText = Array.from({ length: width }, (_, column) => {
    const name = (table.header[column] ?? "").replace(/\s+/g, " ").trim();
    return name === "" ? `Column ${column + 1}` : name;
  });
  const headerTerms = Array.from({ length: width }, (_, column) => analyzer.analyze(splitHeaderName(table.header[column] ?? "")));
  const headerCoreTerms = Array.from({ length: width }, (_, column) => {
    const core = analyzer.analyze(splitHeaderName((table.header[column] ?? "").replace(/\([^)]*\)|\[[^\]]*\]/g, " ")));
    return core.length > 0 ? core : (headerTerms[column] ?? []);
  });
  const cellTerms = table.rows.map((row) => Array.from({ length: width }, (_, column) => analyzer.analyze(row[column] ?? "")));
  const cellParts = table.rows.map((row) =>
    Array.from({ length: width }, (_, column) => {
      const parts = (row[column] ?? "").split(/\n|[,;/]\s/).filter((part) => part.trim() !== "");
      return parts.length < 2 ? [] : parts.map((part) => analyzer.analyze(part));
    }),
  );
  const rowShare = new Map<string, number>();
  for (const row of cellTerms) for (const term of new Set(row.flat())) rowShare.set(term, (rowShare.get(term) ?? 0) + 1);
  for (const [term, rows] of rowShare) rowShare.set(term, rows / Math.max(1, table.rows.length));
  const profiles = Array.from({ length: width }, (_, column) => profileColumn(table.rows.map((row) => row[column] ?? "")));
  const summaryRows = new Set(
    table.rows.flatMap((row, index) => (row.some((cell) => summaryCell.test(cell.replace(/[^\p{L}]/gu, ""))) ? [index] : [])),
  );
  return { table, width, headerText, headerTerms, headerCoreTerms, cellTerms, cellParts, rowShare, summaryRows, profiles };
}

/** Reads `question` for matching: terms, content terms, English cues and question type. */
export function analyzeQuestion(question: string, analyzer: Analyzer): AnalyzedQuestion {
  const lower = question.normalize("NFKC").toLowerCase().replace(/[’‘]/g, "'");
  const terms = analyzer.analyze(question);
  const excluded = new Set(analyzer.analyze(functionWords));
  const contentIndexes = terms.flatMap((term, index) => (excluded.has(term) ? [] : [index]));
  const cues = new Set<Cue>();
  // A slice ("the last 3 games") is a condition, not the first/last operation: its words raise no cue.
  const cueText = lower.replace(slicePattern, " ");
  for (const [cue, pattern] of Object.entries(cuePatterns) as [Cue, RegExp][]) if (pattern.test(cueText)) cues.add(cue);
  const type = questionTypePatterns.find(([, pattern]) => pattern.test(lower))?.[0] ?? "name";
  const numberTerms = new Map(
    numberWords.flatMap(([ordinal, written, cardinal], index) => [
      [analyzer.analyze(ordinal)[0] ?? ordinal, [written, String(index + 1)]],
      [analyzer.analyze(cardinal)[0] ?? cardinal, [String(index + 1)]],
    ]),
  );
  const alternatives = new Map<number, string[]>();
  terms.forEach((term, index) => {
    const other = numberTerms.get(term);
    if (other) alternatives.set(index, other);
  });
  const nounText = lower.match(answerNounPattern)?.[1] ?? "";
  const answerNoun = new Set(
    analyzer
      .analyze(nounText)
      .filter((term) => !excluded.has(term))
      .slice(0, 1),
  );
  return { text: lower, terms, contentIndexes, alternatives, answerNoun, cues, type };
}
