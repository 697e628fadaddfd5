/**
 * The conditions a question places on the rows of a table (Pasupat & Liang, 2015, "Compositional
 * Semantic Parsing on Semi-Structured Tables", section 4: a question phrase anchors to the cells
 * whose text it matches): runs of the question's analyzer terms covering a cell's terms, and the
 * numeric, date and slice conditions of `table-comparisons.ts`.
 */
import type { Analyzer } from "../text/analyzer.js";
import { findComparisons } from "./table-comparisons.js";
import type { AnalyzedQuestion, Condition, PreparedTable } from "./table-question.js";

/** Fraction of a cell's terms a question run must cover for a partial match ("Beijing" of "Beijing, China"). */
const minimumCellCoverage = 0.5;
/**
 * Rows a word may occur in and still match a cell it covers less than {@link minimumCellCoverage}
 * of ("wolf" in "The Wolf 104.1"): a word of one or two rows names them (a rare term, in the sense
 * of inverse document frequency, Sparck Jones 1972).
 */
const rareTermRows = 2;
/** Conditions kept per question, the most specific first: bounds the candidates enumerated (2^6 sets at most). */
export const maximumConditions = 6;

/**
 * The longest run of consecutive terms shared by `question` and `cell`, as `[start in question,
 * length]` ([0, 0] when none); the first such run when several are as long. A question's number
 * word matches the digits it stands for.
 */
function longestCommonRun(question: AnalyzedQuestion, cell: readonly string[]): [number, number] {
  const terms = question.terms;
  let best: [number, number] = [0, 0];
  let previous = new Array<number>(cell.length + 1).fill(0);
  for (let i = 1; i <= terms.length; i++) {
    const current = new Array<number>(cell.length + 1).fill(0);
    for (let j = 1; j <= cell.length; j++) {
      const term = cell[j - 1] ?? "";
      if (terms[i - 1] !== term && !question.alternatives.get(i - 1)?.includes(term)) continue;
      const length = (previous[j - 1] ?? 0) + 1;
      current[j] = length;
      if (length > best[1]) best = [i - length, length];
    }
    previous = current;
  }
  return best;
}

/**
 * The conditions `question` places on rows of `table`: cells whose terms the question covers (a
 * whole cell, or at least {@link minimumCellCoverage} of it or a rare word of it through a content
 * word that is not in the column's name), grouped by
 * column and question span; comparisons of a number in the question with numeric and date
 * columns. A cell listing several values matches by its best part. A match inside a longer match
 * of the same column is dropped. At most {@link maximumConditions} are kept,
 * the most specific first: cell coverage times the summed rarity (1 − share of rows containing
 * it) of the question terms matched, an idf-like weight (Sparck Jones, 1972).
 */
export function findConditions(question: AnalyzedQuestion, table: PreparedTable, analyzer: Analyzer): Condition[] {
  const content = new Set(question.contentIndexes);
  const groups = new Map<string, Condition>();
  const rowCount = table.table.rows.length;
  table.cellTerms.forEach((row, rowIndex) => {
    row.forEach((whole, column) => {
      let best: { start: number; length: number; coverage: number } | undefined;
      for (const cell of [whole, ...(table.cellParts[rowIndex]?.[column] ?? [])]) {
        if (cell.length === 0) continue;
        const [start, length] = longestCommonRun(question, cell);
        const coverage = length / cell.length;
        if (length > 0 && (!best || length > best.length || (length === best.length && coverage > best.coverage)))
          best = { start, length, coverage };
      }
      if (!best) return;
      const { start, length, coverage } = best;
      if (coverage < 1) {
        const header = new Set(table.headerTerms[column] ?? []);
        const span = Array.from({ length }, (_, offset) => question.terms[start + offset] ?? "").filter(
          (term, offset) => content.has(start + offset) && !/^\d+$/.test(term) && !header.has(term),
        );
        const rare = span.some((term) => (table.rowShare.get(term) ?? 0) * rowCount <= rareTermRows);
        if (span.length === 0 || (coverage < minimumCellCoverage && !rare)) return;
      }
      const key = `${column}:${start}:${length}`;
      const group = groups.get(key);
      if (group) {
        group.rows.push(rowIndex);
        group.quality = Math.max(group.quality, coverage);
      } else {
        const text = question.terms.slice(start, start + length).join(" ");
        groups.set(key, {
          column,
          rows: [rowIndex],
          span: [start, start + length],
          kind: "match",
          quality: coverage,
          label: `${table.headerText[column]} ~ "${text}"`,
        });
      }
    });
  });
  // Name the cell the question matched where every row of a condition holds the same one ("title = \"Moneyball\""), not the analysed terms ("moneybal").
  for (const condition of groups.values()) {
    const cells = new Set(condition.rows.map((row) => (table.table.rows[row]?.[condition.column] ?? "").replace(/\s+/g, " ").trim()));
    const [cell] = cells;
    if (cells.size === 1 && cell)
      condition.label = `${table.headerText[condition.column]} ${condition.quality === 1 ? "=" : "~"} "${cell}"`;
  }
  const matches = [...groups.values()].filter(
    (condition) =>
      ![...groups.values()].some(
        (other) =>
          other !== condition &&
          other.column === condition.column &&
          other.span[0] <= condition.span[0] &&
          other.span[1] >= condition.span[1] &&
          other.span[1] - other.span[0] > condition.span[1] - condition.span[0],
      ),
  );
  const all = [...matches, ...findComparisons(question, table, analyzer)];
  const strength = (condition: Condition) => {
    let specific = 0;
    for (let index = condition.span[0]; index < condition.span[1]; index++)
      specific += 1 - (table.rowShare.get(question.terms[index] ?? "") ?? 0);
    return condition.quality * specific;
  };
  all.sort((a, b) => strength(b) - strength(a) || a.rows.length - b.rows.length || a.column - b.column);
  return all.slice(0, maximumConditions);
}
