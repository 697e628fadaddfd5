/**
 * Candidate logical forms of a table question and their execution, after Pasupat & Liang (2015,
 * "Compositional Semantic Parsing on Semi-Structured Tables"): every combination of an operation,
 * the columns it reads and the conditions on rows that the question supports is executed on the
 * table, and described by general features (operation cues, header matches, condition coverage,
 * answer type) for the log-linear model of `table-operations.ts`.
 *
 * Semantics: conditions on one column are alternatives (rows matching any: "Italy and Brazil"),
 * conditions on different columns all hold; an empty set of conditions keeps every row. The next
 * (previous) row of an anchor is the nearest one below (above) it whose answer cell is filled and
 * differs from the anchor's ("the kit manufacturer after Umbro" skips Umbro's further seasons).
 */
import { type AnalyzedQuestion, type Condition, type Cue, headerMentions, type PreparedTable } from "./table-question.js";
import { formatLike, yearOfDateKey } from "./table-values.js";

/** The operations a table answer is computed by. */
export type TableOperation =
  | "lookup"
  | "count"
  | "sum"
  | "average"
  | "argmax"
  | "argmin"
  | "mode"
  | "first"
  | "last"
  | "next"
  | "previous"
  | "compare"
  | "difference";

/** The operations, in a fixed order (the order of the model's operation features). */
export const tableOperations: readonly TableOperation[] = [
  "lookup",
  "count",
  "sum",
  "average",
  "argmax",
  "argmin",
  "mode",
  "first",
  "last",
  "next",
  "previous",
  "compare",
  "difference",
];

/** A logical form: an operation, the columns it reads and the conditions on rows. */
export interface Plan {
  operation: TableOperation;
  /** Column whose cell is the answer (lookup, argmax/argmin, mode, first/last, next/previous, compare). */
  answerColumn?: number;
  /** Column compared or aggregated (sum, average, argmax/argmin, compare, difference), or whose distinct values a count counts ("how many countries"). */
  measureColumn?: number;
  /** For compare: the larger (`max`) or the smaller (`min`) value wins. */
  direction?: "max" | "min";
  conditions: Condition[];
}

/** An executed plan. */
export interface Candidate {
  plan: Plan;
  /** The answer text. */
  text: string;
  /** Rows the answer was computed from. */
  rows: number[];
  /** One line a user can check. */
  explanation: string;
  /** Feature values by name (absent = 0). */
  features: Record<string, number>;
}

/**
 * The English cues that trigger each operation (the lexical triggers of a semantic parser's
 * grammar, as in Pasupat & Liang 2015, section 4.1): an operation is only considered when one of
 * its cues is in the question. Lookup needs none. "First" and "last" also trigger argmin and
 * argmax ("the first year" is the earliest one); comparatives trigger a difference ("how many
 * more"). A comparison of two named rows takes its direction from the comparative ("more",
 * "longer": the larger value wins; "less", "sooner": the smaller), and never compares the column
 * that names the rows.
 */
const triggers: Readonly<Record<Exclude<TableOperation, "lookup">, readonly Cue[]>> = {
  count: ["count"],
  sum: ["sum", "total"],
  average: ["average"],
  argmax: ["most", "last"],
  argmin: ["least", "first"],
  mode: ["frequency"],
  first: ["first"],
  last: ["last"],
  next: ["next"],
  previous: ["previous"],
  compare: ["alternatives"],
  difference: ["difference", "more", "less"],
};

/**
 * Most distinct values a lookup may answer with when the question asks for several ("which two
 * stations…", "who were they", the `several` cue); otherwise a lookup must find one value.
 */
const maximumLookupValues = 3;
/** Most conditions combined in one plan (three alternatives: "Barrington, Farmington and Rochester"). */
const maximumCombinedConditions = 3;

/** The rows satisfying `conditions` (alternatives within a column, all columns together); summary rows only when a condition names them. */
export function filterRows(table: PreparedTable, conditions: readonly Condition[]): number[] {
  const byColumn = new Map<number, Set<number>>();
  for (const condition of conditions) {
    const rows = byColumn.get(condition.column) ?? new Set<number>();
    for (const row of condition.rows) rows.add(row);
    byColumn.set(condition.column, rows);
  }
  const matched = new Set(conditions.flatMap((condition) => (condition.kind === "match" ? condition.rows : [])));
  const all = table.table.rows.map((_, index) => index).filter((row) => !table.summaryRows.has(row) || matched.has(row));
  return all.filter((row) => [...byColumn.values()].every((rows) => rows.has(row)));
}

/** Subsets of `conditions` of up to {@link maximumCombinedConditions} whose question spans do not overlap. */
function conditionSets(conditions: readonly Condition[]): Condition[][] {
  const sets: Condition[][] = [[]];
  const extend = (chosen: Condition[], from: number) => {
    for (let index = from; index < conditions.length; index++) {
      const condition = conditions[index] as Condition;
      if (chosen.some((other) => other.span[0] < condition.span[1] && condition.span[0] < other.span[1])) continue;
      const next = [...chosen, condition];
      sets.push(next);
      if (next.length < maximumCombinedConditions) extend(next, index + 1);
    }
  };
  extend([], 0);
  return sets;
}

/** A cell's text for an answer: whitespace collapsed. */
export function cellText(table: PreparedTable, row: number, column: number): string {
  return (table.table.rows[row]?.[column] ?? "").replace(/\s+/g, " ").trim();
}

/** All plans the question supports, executed; plans without a result are left out. */
export function enumerateCandidates(question: AnalyzedQuestion, table: PreparedTable, conditions: readonly Condition[]): Candidate[] {
  const candidates: Candidate[] = [];
  const columns = Array.from({ length: table.width }, (_, index) => index);
  const ordered = columns.filter((column) => table.profiles[column]?.kind !== "text");
  const numeric = columns.filter((column) => table.profiles[column]?.kind === "number");
  // The rows of a set of conditions, computed once for all the plans over it.
  const filtered = new Map<readonly Condition[], number[]>();
  const add = (plan: Plan) => {
    if (plan.operation !== "lookup" && !triggers[plan.operation].some((cue) => question.cues.has(cue))) return;
    let rows = filtered.get(plan.conditions);
    if (!rows) filtered.set(plan.conditions, (rows = filterRows(table, plan.conditions)));
    const executed = execute(plan, table, question.cues.has("several") ? maximumLookupValues : 1, rows);
    if (executed) candidates.push({ plan, ...executed, features: {} });
  };
  const named = columns.filter((column) => headerMentions(question, table, column).length > 0);
  for (const set of conditionSets(conditions)) {
    add({ operation: "count", conditions: set });
    for (const column of named) add({ operation: "count", measureColumn: column, conditions: set });
    for (const column of columns) {
      // A lookup needs a condition (or a one-row table), and one whose conditions are all whole cells of the column it reads only restates the question.
      const restates =
        set.length > 0 && set.every((condition) => condition.column === column && condition.kind === "match" && condition.quality === 1);
      if ((set.length > 0 || table.table.rows.length === 1) && !restates)
        add({ operation: "lookup", answerColumn: column, conditions: set });
      add({ operation: "first", answerColumn: column, conditions: set });
      add({ operation: "last", answerColumn: column, conditions: set });
      add({ operation: "mode", answerColumn: column, conditions: set });
      for (const measure of ordered) {
        add({ operation: "argmax", answerColumn: column, measureColumn: measure, conditions: set });
        add({ operation: "argmin", answerColumn: column, measureColumn: measure, conditions: set });
      }
    }
    for (const measure of numeric) {
      add({ operation: "sum", measureColumn: measure, conditions: set });
      add({ operation: "average", measureColumn: measure, conditions: set });
    }
    if (set.length === 1) {
      for (const column of columns) {
        add({ operation: "next", answerColumn: column, conditions: set });
        add({ operation: "previous", answerColumn: column, conditions: set });
      }
    }
    if (set.length === 2) {
      const larger = question.cues.has("more") || question.cues.has("most");
      const smaller = question.cues.has("less") || question.cues.has("least");
      for (const measure of ordered) {
        if (set.some((condition) => condition.column === measure)) continue;
        if (larger) add({ operation: "compare", measureColumn: measure, direction: "max", conditions: set });
        if (smaller) add({ operation: "compare", measureColumn: measure, direction: "min", conditions: set });
        add({ operation: "difference", measureColumn: measure, conditions: set });
      }
    }
  }
  return candidates;
}

type Executed = Omit<Candidate, "plan" | "features">;

/**
 * Runs `plan` on `table` (`filtered`: the rows of its conditions, if already known); undefined
 * when it has no result (no rows, an empty cell, more than `maximumValues` lookup values).
 */
export function execute(
  plan: Plan,
  table: PreparedTable,
  maximumValues = 1,
  filtered: readonly number[] = filterRows(table, plan.conditions),
): Executed | undefined {
  const { operation, answerColumn = 0, measureColumn = 0, conditions } = plan;
  const where = conditions.length === 0 ? "" : ` where ${conditions.map((condition) => condition.label).join(", ")}`;
  const answerName = table.headerText[answerColumn];
  const measureName = table.headerText[measureColumn];
  const measure = table.profiles[measureColumn];
  const value = (row: number) => measure?.values[row];
  const isEmpty = (row: number, column: number) => table.profiles[column]?.empty[row] ?? true;
  if (operation === "next" || operation === "previous") {
    const anchor = conditions[0]?.rows[0];
    if (anchor === undefined) return undefined;
    const step = operation === "next" ? 1 : -1;
    const anchorText = cellText(table, anchor, answerColumn);
    let row = anchor + step;
    while (row >= 0 && row < table.table.rows.length && (isEmpty(row, answerColumn) || cellText(table, row, answerColumn) === anchorText))
      row += step;
    if (row < 0 || row >= table.table.rows.length) return undefined;
    const text = cellText(table, row, answerColumn);
    return {
      text,
      rows: [anchor, row],
      explanation: `${operation} row after${where}: ${answerName} ${text}`.replace("previous row after", "row before"),
    };
  }
  if (operation === "compare" || operation === "difference") {
    const [first, second] = conditions;
    if (!first || !second || first.column !== second.column) return undefined;
    const a = first.rows[0];
    const b = second.rows[0];
    if (a === undefined || b === undefined || a === b) return undefined;
    const va = value(a);
    const vb = value(b);
    if (va === undefined || vb === undefined || va === vb) return undefined;
    const nameA = cellText(table, a, first.column);
    const nameB = cellText(table, b, first.column);
    if (operation === "difference") {
      const difference = measure?.kind === "date" ? Math.abs(yearOfDateKey(va) - yearOfDateKey(vb)) : Math.abs(va - vb);
      const text = measure?.kind === "date" ? String(difference) : formatLike(difference, cellText(table, a, measureColumn));
      return {
        text,
        rows: [a, b],
        explanation: `${measureName}: ${nameA} ${cellText(table, a, measureColumn)}, ${nameB} ${cellText(table, b, measureColumn)}; difference ${text}`,
      };
    }
    const winner = (plan.direction === "max") === va > vb ? a : b;
    const text = cellText(table, winner, first.column);
    return {
      text,
      rows: [a, b],
      explanation: `${plan.direction === "max" ? "more" : "less"} ${measureName}: ${text} (${cellText(table, a, measureColumn)} vs ${cellText(table, b, measureColumn)})`,
    };
  }
  const rows = [...filtered];
  if (rows.length === 0) return undefined;
  if (operation === "count") {
    if (plan.measureColumn === undefined) return { text: String(rows.length), rows, explanation: `rows${where}: ${rows.length}` };
    const counted = rows.filter((row) => !isEmpty(row, measureColumn));
    const distinct = new Set(counted.map((row) => cellText(table, row, measureColumn).toLowerCase())).size;
    if (distinct === 0) return undefined;
    return { text: String(distinct), rows: counted, explanation: `distinct ${measureName} values${where}: ${distinct}` };
  }
  if (operation === "sum" || operation === "average") {
    const counted = rows.filter((row) => value(row) !== undefined);
    if (counted.length < 2) return undefined;
    const total = counted.reduce((sum, row) => sum + (value(row) ?? 0), 0);
    const result = operation === "sum" ? total : total / counted.length;
    const text = formatLike(result, cellText(table, counted[0] ?? 0, measureColumn));
    return { text, rows: counted, explanation: `${operation} of ${measureName}${where} over ${counted.length} rows: ${text}` };
  }
  if (operation === "argmax" || operation === "argmin") {
    const counted = rows.filter((row) => value(row) !== undefined && !isEmpty(row, answerColumn));
    if (counted.length < 2) return undefined;
    const sign = operation === "argmax" ? 1 : -1;
    const best = counted.reduce((best, row) => (sign * ((value(row) ?? 0) - (value(best) ?? 0)) > 0 ? row : best));
    const text = cellText(table, best, answerColumn);
    const extreme = operation === "argmax" ? "most" : "least";
    return {
      text,
      rows: [best],
      explanation: `${extreme} ${measureName}${where}: ${answerName} ${text} (${cellText(table, best, measureColumn)})`,
    };
  }
  const filled = rows.filter((row) => !isEmpty(row, answerColumn));
  if (filled.length === 0) return undefined;
  if (operation === "first" || operation === "last") {
    if (filled.length < 2) return undefined;
    const row = (operation === "first" ? filled[0] : filled.at(-1)) as number;
    const text = cellText(table, row, answerColumn);
    return { text, rows: [row], explanation: `${operation} row${where}: ${answerName} ${text}` };
  }
  if (operation === "mode") {
    if (filled.length < 3) return undefined;
    const counts = new Map<string, number[]>();
    for (const row of filled) {
      const text = cellText(table, row, answerColumn);
      counts.set(text, [...(counts.get(text) ?? []), row]);
    }
    const ranked = [...counts.entries()].sort((a, b) => b[1].length - a[1].length);
    const [top, second] = ranked;
    if (!top || top[1].length < 2 || (second && second[1].length === top[1].length)) return undefined;
    return { text: top[0], rows: top[1], explanation: `most frequent ${answerName}${where}: ${top[0]} (${top[1].length} rows)` };
  }
  const values = [...new Set(filled.map((row) => cellText(table, row, answerColumn)))];
  if (values.length > maximumValues) return undefined;
  const text = values.join(", ");
  return { text, rows: filled, explanation: `${answerName}${where}: ${text}` };
}
