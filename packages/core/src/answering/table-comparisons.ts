/**
 * Conditions from the numbers and dates of an English question, for {@link findConditions}:
 * comparisons ("more than 2", "at least $1 billion", "after 1900", "between 2009 and 2013"),
 * decades and centuries ("the 1980s", "the 1800s"), dates ("on june 14, 2010", "after october 1st",
 * "in november"), row slices ("the last 3", "the top five") and empty cells ("no shirt sponsor").
 * The numeric and date ones are the anchors of Pasupat & Liang (2015, section 4: a question's numbers and dates are compared with
 * the normalised cells of a column). The phrases are English.
 */
import type { Analyzer } from "../text/analyzer.js";
import { type AnalyzedQuestion, type Condition, type PreparedTable, slicePattern } from "./table-question.js";
import { parseDateKey, parseNumber, yearOfDateKey } from "./table-values.js";

const numberText = /(?:[$£€]\s?)?\d[\d,]*(?:\.\d+)?(?:\s?(?:thousand|million|billion))?/;
type Relation = "gt" | "ge" | "lt" | "le" | "between";
/** English comparison phrases before a number, and the relation they state. */
const comparisonPatterns: readonly { pattern: RegExp; relation: Relation }[] = [
  { pattern: new RegExp(`\\b(?:between|from) (${numberText.source}) (?:and|to|-) (${numberText.source})`, "g"), relation: "between" },
  { pattern: new RegExp(`\\b(?:at least|or more than|no less than) (${numberText.source})`, "g"), relation: "ge" },
  {
    pattern: new RegExp(
      `\\b(?:more than|greater than|larger than|higher than|over|above|exceeding|after|since) (${numberText.source})`,
      "g",
    ),
    relation: "gt",
  },
  // "the top 10" is a rank up to 10.
  { pattern: new RegExp(`\\b(?:at most|no more than|up to|within the top|in the top|top) (${numberText.source})`, "g"), relation: "le" },
  {
    pattern: new RegExp(`\\b(?:less than|fewer than|lower than|smaller than|under|below|before) (${numberText.source})`, "g"),
    relation: "lt",
  },
];
/** "the 1980s", "1980's" (a decade), "the 1800s" (a century: a year ending in 00). */
const decadePattern = /\b(\d{3}0)'?s\b/g;
const monthNames =
  "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
/** English dates in a question: "june 14, 2010", "14 june 2005", "november 19 1824", "october 1st", "march 2012", "november". */
const datePattern = new RegExp(
  `\\b(?:(after|before|since|until|from) )?(?:(\\d{1,2})(?:st|nd|rd|th)? (?:of )?(${monthNames})\\b(?:,? (?:of )?(\\d{4}))?|(${monthNames})\\b(?: (\\d{1,2})(?:st|nd|rd|th)?\\b)?(?:,? (?:of )?(\\d{4}))?)`,
  "g",
);
const smallNumbers: Readonly<Record<string, number>> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

interface Range {
  low: number;
  high: number;
  lowOpen: boolean;
  highOpen: boolean;
}

/** The `[start, end)` of the analyzer terms of `text.slice(from, to)` among the terms of `text`. */
function termSpan(text: string, from: number, to: number, analyzer: Analyzer): [number, number] | undefined {
  const start = analyzer.analyze(text.slice(0, from)).length;
  const length = analyzer.analyze(text.slice(from, to)).length;
  return length === 0 ? undefined : [start, start + length];
}

function inRange(value: number, range: Range): boolean {
  const aboveLow = range.lowOpen ? value > range.low : value >= range.low;
  const belowHigh = range.highOpen ? value < range.high : value <= range.high;
  return aboveLow && belowHigh;
}

function rangeOf(relation: Relation, first: number, second?: number): Range {
  if (relation === "between")
    return { low: Math.min(first, second ?? first), high: Math.max(first, second ?? first), lowOpen: false, highOpen: false };
  if (relation === "gt" || relation === "ge")
    return { low: first, high: Number.POSITIVE_INFINITY, lowOpen: relation === "gt", highOpen: true };
  return { low: Number.NEGATIVE_INFINITY, high: first, lowOpen: true, highOpen: relation === "lt" };
}

/** Whether `value` reads as a year (a whole number of four digits in the span of dated records). */
function isYearNumber(value: number): boolean {
  return Number.isInteger(value) && parseDateKey(String(value)) !== undefined;
}

/** Conditions of `range` on every numeric column, and on date columns by year when the bounds are years. */
function rangeConditions(range: Range, span: [number, number], phrase: string, table: PreparedTable): Condition[] {
  const bound = Number.isFinite(range.low) ? range.low : range.high;
  const conditions: Condition[] = [];
  table.profiles.forEach((profile, column) => {
    if (profile.kind === "text" || (profile.kind === "date" && !isYearNumber(bound))) return;
    const rows = profile.values.flatMap((value, row) =>
      value !== undefined && inRange(profile.kind === "date" ? yearOfDateKey(value) : value, range) ? [row] : [],
    );
    if (rows.length > 0)
      conditions.push({ column, rows, span, kind: "compare", quality: 1, label: `${table.headerText[column]} ${phrase}` });
  });
  return conditions;
}

/** Conditions of the question's dates on date columns: equal in every part the question gives, or after/before it. */
function dateConditions(question: AnalyzedQuestion, table: PreparedTable, analyzer: Analyzer): Condition[] {
  const conditions: Condition[] = [];
  for (const match of question.text.matchAll(datePattern)) {
    const [phrase, relation, dayFirst, monthAfterDay, yearAfterDay, monthFirst, dayAfterMonth, yearAfterMonth] = match;
    const monthName = monthAfterDay ?? monthFirst ?? "";
    const day = Number(dayFirst ?? dayAfterMonth ?? 0);
    const year = Number(yearAfterDay ?? yearAfterMonth ?? 0);
    const month = parseDateKey(`${monthName} 2000`);
    // "may" alone is a verb far more often than a month.
    if (month === undefined || (monthName === "may" && day === 0 && year === 0)) continue;
    const monthNumber = Math.floor((month % 10_000) / 100);
    const start = (match.index ?? 0) + (relation ? relation.length + 1 : 0);
    const span = termSpan(question.text, start, (match.index ?? 0) + phrase.length, analyzer);
    if (!span) continue;
    const target = year * 10_000 + monthNumber * 100 + day;
    table.profiles.forEach((profile, column) => {
      if (profile.kind !== "date") return;
      const rows = profile.values.flatMap((key, row) => {
        if (key === undefined) return [];
        const keyYear = yearOfDateKey(key);
        const keyMonth = Math.floor((key % 10_000) / 100);
        const keyDay = key % 100;
        if (relation === undefined || relation === "from") {
          const equal = (year === 0 || keyYear === year) && keyMonth === monthNumber && (day === 0 || keyDay === day);
          return equal ? [row] : [];
        }
        // A date without a day stands for its whole month: "after august" starts in September.
        const after = relation === "after" || relation === "since";
        const bound = target + (day === 0 && after ? 99 : 0);
        const compared = year === 0 || keyYear === 0 ? (key % 10_000) - (bound % 10_000) : key - bound;
        return (after ? compared > 0 : compared < 0) ? [row] : [];
      });
      if (rows.length > 0) {
        conditions.push({ column, rows, span, kind: "compare", quality: 1, label: `${table.headerText[column]} ${phrase.trim()}` });
      }
    });
  }
  return conditions;
}

/** Slices of rows from the start or end of the table ("the last 3", "the top five"), on no particular column. */
function sliceConditions(question: AnalyzedQuestion, table: PreparedTable, analyzer: Analyzer): Condition[] {
  const conditions: Condition[] = [];
  const rowCount = table.table.rows.length;
  for (const match of question.text.matchAll(slicePattern)) {
    const [phrase, end = "", amount = ""] = match;
    const size = smallNumbers[amount] ?? Number(amount);
    if (!(size >= 1 && size < rowCount)) continue;
    const span = termSpan(question.text, match.index ?? 0, (match.index ?? 0) + phrase.length, analyzer);
    if (!span) continue;
    const fromEnd = end === "last" || end === "bottom" || end === "final";
    const rows = Array.from({ length: size }, (_, index) => (fromEnd ? rowCount - size + index : index));
    // A slice is a condition on the row order; it is filed under column -1 so that it combines with any column's condition.
    conditions.push({ column: -1, rows, span, kind: "compare", quality: 1, label: `${phrase} rows` });
  }
  return conditions;
}

/** English words saying a cell is empty ("no shirt sponsor", "do not have a glyph", "a blank C string"). */
const emptyCue = /\b(no|not|without|blank|empty|none|never|lack\w*)\b|n't\b/;

/**
 * "Column is empty" conditions: when the question says something is missing ({@link emptyCue})
 * and names a column (all its name's terms in the question, as a run), the rows whose cell in that
 * column is empty.
 */
function emptyConditions(question: AnalyzedQuestion, table: PreparedTable): Condition[] {
  if (!emptyCue.test(question.text)) return [];
  const conditions: Condition[] = [];
  table.headerTerms.forEach((terms, column) => {
    if (terms.length === 0) return;
    const start = question.terms.findIndex((_, index) => terms.every((term, offset) => question.terms[index + offset] === term));
    if (start < 0) return;
    const rows = (table.profiles[column]?.empty ?? []).flatMap((empty, row) => (empty ? [row] : []));
    if (rows.length === 0 || rows.length === table.table.rows.length) return;
    conditions.push({
      column,
      rows,
      span: [start, start + terms.length],
      kind: "compare",
      quality: 1,
      label: `${table.headerText[column]} is empty`,
    });
  });
  return conditions;
}

/** Every numeric, date, slice and empty-cell condition of `question` on `table`. */
export function findComparisons(question: AnalyzedQuestion, table: PreparedTable, analyzer: Analyzer): Condition[] {
  const conditions: Condition[] = [];
  for (const { pattern, relation } of comparisonPatterns) {
    for (const match of question.text.matchAll(pattern)) {
      const first = parseNumber(match[1] ?? "");
      const second = match[2] === undefined ? undefined : parseNumber(match[2]);
      if (first === undefined || (relation === "between" && second === undefined)) continue;
      const numberStart = (match.index ?? 0) + match[0].indexOf(match[1] ?? "");
      const span = termSpan(question.text, numberStart, (match.index ?? 0) + match[0].length, analyzer);
      if (span) conditions.push(...rangeConditions(rangeOf(relation, first, second), span, match[0], table));
    }
  }
  for (const match of question.text.matchAll(decadePattern)) {
    const base = Number(match[1]);
    const range: Range = { low: base, high: base + (base % 100 === 0 ? 99 : 9), lowOpen: false, highOpen: false };
    const span = termSpan(question.text, match.index ?? 0, (match.index ?? 0) + match[0].length, analyzer);
    if (span) conditions.push(...rangeConditions(range, span, `in the ${match[0]}`, table));
  }
  return [
    ...conditions,
    ...dateConditions(question, table, analyzer),
    ...sliceConditions(question, table, analyzer),
    ...emptyConditions(question, table),
  ];
}
