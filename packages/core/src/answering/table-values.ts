/**
 * Values read from table cells for {@link answerFromTable}: numbers, durations and dates parsed
 * from the text of a cell, and the kind of each column (number, date or text).
 *
 * Cells of real tables write numbers in many ways (WikiTableQuestions, Pasupat & Liang 2015,
 * section 3.1, normalises cells to numbers and dates the same way): thousands separators
 * ("1,046", or a space as in "139 000", the SI style), currency symbols ("$1.2 billion", "£3.00"), percentages ("21.3%"), ordinals ("5th"),
 * footnotes and units after the number ("202 (estimate)", "3,880 days"), clock and race times
 * ("3:06:02:29", "1:27:16.830", `5h 29' 10"`). Dates are English month names with a day and a
 * year in either order, ISO dates, US month/day/year, seasons ("1939/40", "2012-13") and bare years.
 */

/** A column's kind: most of its non-empty cells parse as numbers, as dates, or neither. */
export type ColumnKind = "number" | "date" | "text";

/** A column's cells read as values. */
export interface ColumnProfile {
  kind: ColumnKind;
  /** Per row: the cell as a number (for a date column, its {@link parseDateKey}), or undefined. */
  values: (number | undefined)[];
  /** Per row: whether the cell is empty or a dash standing for "none". */
  empty: boolean[];
}

/**
 * Share of a column's non-empty cells that must parse for the column to count as numeric or as
 * dates. Wikipedia tables mix footnote rows and "N/A" cells into numeric columns; two cells in
 * three leaves room for those while a name column with a few numbers stays text (the WTQ
 * preprocessing of Pasupat & Liang also types a column by its majority of cells).
 */
const columnKindShare = 2 / 3;

/** Multipliers of English scale words after a number ("1.2 billion", "3 million"). */
const scaleWords: Readonly<Record<string, number>> = {
  thousand: 1e3,
  million: 1e6,
  m: 1e6,
  billion: 1e9,
  bn: 1e9,
  trillion: 1e12,
};

/** English month names and their common abbreviations (month number 1–12). */
const monthNumbers: Readonly<Record<string, number>> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sep: 9,
  sept: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};

/** Years a bare four-digit number is read as (the span of dated records in Wikipedia tables). */
const yearRange = { minimum: 1000, maximum: 2100 } as const;

const emptyCell = /^[\s\-–—?]*$|^(n\/?a|none|nil)$/i;
const leadingNumber = /^([-+]?)(\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d.,])|\d+)(\.\d+)?/;
const clockTime = /^[-+]?\d+(?::\d{1,2})+(?:\.\d+)?$/;
const hoursMinutesSeconds = /^(?:(\d+)\s*h)?\s*(?:(\d+)\s*['′])?\s*(?:(\d+(?:\.\d+)?)\s*(?:["″]|s\b))?$/;
const season = /^(\d{4})\s*[/\-–]\s*(\d{2}|\d{4})$/;
const isoDate = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
/** Month/day/year, the order of US-English tables ("10/7/1967"). */
const slashDate = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const dayMonthYear = /^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?(?:\s+(\d{4}))?$/;
const monthDayYear = /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$/;
const monthYear = /^([a-z]+)\.?,?\s+(\d{4})$/;

/** Cell text with compatibility forms folded, Unicode minus as "-", and whitespace collapsed. */
function clean(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/\u2212/g, "-")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether a cell is empty or a placeholder for "none" ("", "–", "—", "N/A", "?"). */
export function isEmptyCell(text: string): boolean {
  return emptyCell.test(clean(text));
}

/**
 * The number a cell states, or undefined. Thousands separators, currency symbols, a leading "#",
 * a percent sign, an English scale word ("billion"), an ordinal suffix and trailing units or a
 * parenthesised note are accepted; a second number outside parentheses ("2–0", "57 years, 67
 * days", "1935–1962") makes the cell not a number, except an alternative unit after "/" ("146 /
 * 480" reads 146). Clock and race times read as seconds ("1:27:16.830" is 5,236.83; four parts
 * are days:hours:minutes:seconds).
 *
 * @example
 * ```ts
 * parseNumber("$1.2 billion"); // 1_200_000_000
 * parseNumber("3:06:02:29"); // 280_949
 * parseNumber("W 27–20"); // undefined
 * ```
 */
export function parseNumber(text: string): number | undefined {
  let value = clean(text).replace(/^[#№]\s*/, "");
  if (value === "") return undefined;
  if (clockTime.test(value)) return parseClock(value);
  const timed = value.match(hoursMinutesSeconds);
  if (timed && (timed[1] !== undefined || timed[2] !== undefined)) {
    return Number(timed[1] ?? 0) * 3600 + Number(timed[2] ?? 0) * 60 + Number(timed[3] ?? 0);
  }
  value = value.replace(/^([-+]?)\s*(?:[$£€¥]|us\$|usd|eur|gbp)\s*/i, "$1");
  const match = value.match(leadingNumber);
  if (!match) return undefined;
  let number = Number(`${match[1]}${(match[2] ?? "").replace(/[, ]/g, "")}${match[3] ?? ""}`);
  let rest = value.slice(match[0].length).trim();
  const scale = rest.match(/^([a-z]+)\b/i);
  const multiplier = scale ? scaleWords[(scale[1] ?? "").toLowerCase()] : undefined;
  if (multiplier !== undefined) {
    number *= multiplier;
    rest = rest.slice((scale?.[0] ?? "").length);
  }
  const outside = rest.replace(/\([^)]*\)|\[[^\]]*\]/g, " ").replace(/^\/\s.*$/, "");
  if (/\d/.test(outside)) return undefined;
  return Number.isFinite(number) ? number : undefined;
}

/** Seconds of a clock or race time: the last part seconds, then minutes, hours, and days for a fourth part. */
function parseClock(value: string): number {
  const negative = value.startsWith("-");
  const parts = value.replace(/^[-+]/, "").split(":").map(Number);
  const units = parts.length === 4 ? [86_400, 3600, 60, 1] : [3600, 60, 1].slice(3 - parts.length);
  const seconds = parts.reduce((total, part, index) => total + part * (units[index] ?? 1), 0);
  return negative ? -seconds : seconds;
}

/**
 * A sortable key of a date cell: year × 10,000 + month × 100 + day, with a missing part as 0 (so
 * "June 2010" sorts before "June 14, 2010", and a date without a year keeps its order within the
 * year). Seasons ("1939/40", "2012-13") and ranges of years ("1977–1978") read as their first
 * year; a bare four-digit year as that year. Undefined for anything else.
 *
 * @example
 * ```ts
 * parseDateKey("June 14, 2010"); // 20100614
 * parseDateKey("14 June 2010"); // 20100614
 * parseDateKey("1939/40"); // 19390000
 * ```
 */
export function parseDateKey(text: string): number | undefined {
  const value = clean(text)
    .toLowerCase()
    .replace(/\s*\([^)]*\)\s*$/, "");
  if (/^\d{4}$/.test(value)) return yearKey(Number(value));
  const seasonMatch = value.match(season) ?? value.match(/^(\d{4})\s*[–-]\s*(\d{4})$/);
  if (seasonMatch) return yearKey(Number(seasonMatch[1]));
  const iso = value.match(isoDate);
  if (iso) return dateKey(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const slash = value.match(slashDate);
  if (slash && Number(slash[1]) <= 12) return dateKey(Number(slash[3]), Number(slash[1]), Number(slash[2]));
  const dmy = value.match(dayMonthYear);
  if (dmy) return dateKey(Number(dmy[3] ?? 0), monthNumbers[dmy[2] ?? ""], Number(dmy[1]));
  const mdy = value.match(monthDayYear);
  if (mdy) return dateKey(Number(mdy[3] ?? 0), monthNumbers[mdy[1] ?? ""], Number(mdy[2]));
  const my = value.match(monthYear);
  if (my) return dateKey(Number(my[2]), monthNumbers[my[1] ?? ""], 0);
  return undefined;
}

function yearKey(year: number): number | undefined {
  return year >= yearRange.minimum && year <= yearRange.maximum ? year * 10_000 : undefined;
}

function dateKey(year: number, month: number | undefined, day: number): number | undefined {
  if (month === undefined || day > 31) return undefined;
  if (year !== 0 && (year < yearRange.minimum || year > yearRange.maximum)) return undefined;
  return year * 10_000 + month * 100 + day;
}

/** The year of a {@link parseDateKey} key (0 when the date has none). */
export function yearOfDateKey(key: number): number {
  return Math.floor(key / 10_000);
}

/**
 * Reads every cell of a column and decides its kind: `date` when most non-empty cells are dates
 * (a column of bare years counts as dates), else `number` when most are numbers, else `text`
 * ({@link columnKindShare}). Values of a date column are date keys, of a number column numbers.
 */
export function profileColumn(cells: readonly string[]): ColumnProfile {
  const empty = cells.map(isEmptyCell);
  const filled = cells.filter((_, index) => !empty[index]).length;
  const dates = cells.map((cell, index) => (empty[index] ? undefined : parseDateKey(cell)));
  const numbers = cells.map((cell, index) => (empty[index] ? undefined : parseNumber(cell)));
  const share = (values: (number | undefined)[]) => (filled === 0 ? 0 : values.filter((value) => value !== undefined).length / filled);
  if (share(dates) >= columnKindShare) return { kind: "date", values: dates, empty };
  if (share(numbers) >= columnKindShare) return { kind: "number", values: numbers, empty };
  return { kind: "text", values: numbers, empty };
}

/**
 * A number written for an answer: integers without separators, other numbers rounded to
 * `decimals` places (default 2, the precision of most WTQ numeric cells) with trailing zeros
 * removed.
 */
export function formatNumber(value: number, decimals = 2): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(decimals)));
}

const currencyAndScale = /^([-+]?)\s*([$£€¥])?\s*\d[\d.,]*(?:\s\d{3})*\s*(thousand|million|billion|trillion|bn)?\b/i;

/**
 * A computed number written the way `sample` (a cell of the column it came from) writes its
 * numbers: with its currency symbol, scale word and number of decimals ("$1.56 billion" from
 * cells like "$0.84 billion", "£4.00" from "£1.00"), else as {@link formatNumber}.
 *
 * @example
 * ```ts
 * formatLike(1_560_000_000, "$0.84 billion"); // "$1.56 billion"
 * formatLike(68, "21"); // "68"
 * formatLike(4, "£1.00"); // "£4.00"
 * ```
 */
export function formatLike(value: number, sample: string): string {
  const match = clean(sample).match(currencyAndScale);
  const symbol = match?.[2] ?? "";
  const scaleWord = match?.[3]?.toLowerCase();
  const multiplier = scaleWord === undefined ? 1 : (scaleWords[scaleWord] ?? 1);
  const sign = value < 0 ? "-" : "";
  const decimals = (clean(sample).match(/\d\.(\d+)/)?.[1] ?? "").length;
  const scaled = Math.abs(value) / multiplier;
  const number = decimals > 0 && Number.isFinite(scaled) ? scaled.toFixed(decimals) : formatNumber(scaled);
  return `${sign}${symbol}${number}${scaleWord === undefined ? "" : ` ${match?.[3]}`}`;
}
