/**
 * Answers a question over a whole table with an operation: a cell's value (lookup), a count, a
 * sum or average, the row with the largest or smallest value (argmax/argmin), the most frequent
 * value (mode), the first or last row, the row after or before a named one, which of two named
 * rows has more, or the difference between them. No language model.
 *
 * Method: a small semantic parser after Pasupat & Liang (2015, "Compositional Semantic Parsing on
 * Semi-Structured Tables", ACL; the WikiTableQuestions data). The question is read into English
 * operation cues (superlatives and comparatives, "how many", "total", "next/after",
 * "previous/before", "first/last", "difference"), conditions (question words covering a cell's
 * text, numbers compared with numeric and date columns), and column matches (question terms in a
 * header split at `_` and camelCase, through the project's analyzer). Every plan those support
 * (operation × columns × conditions, `table-candidates.ts`) is executed on the table and scored by
 * a log-linear model over general features (`table-features.ts`); as in Pasupat & Liang the model
 * is trained on denotations alone (a plan is right when its answer is the gold answer), by
 * maximum likelihood of the right plans with L2 regularisation, and the answer is that of the
 * best-scoring plan.
 * The score is a logistic regression of correctness on that answer's linear score and probability
 * (Platt scaling with two inputs), fitted on cross-validated predictions.
 *
 * Weights, calibration and their figures are in `table-operations-model.json`, written by
 * `node scripts/calibration/table-operations-eval.mjs --fit` on the tuning half of
 * WikiTableQuestions-150 only (46.8 % gold in answer, 10-fold cross-validated over its tables).
 * On the report half (`--split report`, never fitted on) it puts the gold answer in the answer for
 * 124 of 303 questions (40.9 %); at a score of 0.5 or more it answers 44 % of them with 61 %
 * precision.
 *
 * Cost: linear in the table's cells for reading the table (done once per table object and
 * analyzer, then reused) and in rows × plans per question; about 0.1–1 s for a 10,000-row table of
 * six columns on a loaded 2-core machine, milliseconds for Wikipedia-sized tables.
 */
import { type Analyzer, createEnglishAnalyzer } from "../text/analyzer.js";
import { type Candidate, enumerateCandidates, type TableOperation } from "./table-candidates.js";
import { findConditions } from "./table-conditions.js";
import { candidateFeatures, isGrounded } from "./table-features.js";
import model from "./table-operations-model.json" with { type: "json" };
import { analyzeQuestion, type PreparedTable, prepareTable, type Table } from "./table-question.js";

export type { TableOperation } from "./table-candidates.js";
export type { Table } from "./table-question.js";

/** An answer computed from a table. */
export interface TableAnswer {
  /** The answer as it should appear in a callout: "2003", "5", "Italy". */
  text: string;
  /** The operation that computed it. */
  operation: TableOperation;
  /** The name of the column read (the answer's column, else the one aggregated), if any. */
  column?: string;
  /** 0-based indexes of the rows the answer was computed from, for citations. */
  rows: number[];
  /** One short line a user can check: `least Toy sales: Year 2003 (21.3)`. */
  explanation: string;
  /** Calibrated probability that the answer is right, in [0, 1]. */
  score: number;
  /**
   * Share of the question's content terms that the answer's plan accounts for, in [0, 1]: terms
   * inside the spans of its conditions and terms naming its answer or measure column (the
   * candidate feature `question:explained`). A question asked of another table leaves most of its
   * words unexplained, so this is a relevance signal independent of how the plan was ranked.
   */
  explained: number;
  /**
   * True for a lookup whose conditions are all on the answer's own column ("airline where airline ~
   * canada: Air Canada" for "What is the population of Canada?"): the answer is the cell the question
   * named, which says nothing of the field the question asks for; `decideAnswerable` then checks
   * that the question names a field of the row, as when no table answer was computed.
   */
  restatesCondition: boolean;
}

/** Options of {@link answerFromTable}. */
export interface TableAnswerOptions {
  /** Analyzer matching question terms to cells and headers; default `createEnglishAnalyzer()`. */
  analyzer?: Analyzer;
}

/** The fitted model: feature weights and the calibration of the chosen answer's score ({@link calibrate}). */
export interface TableOperationsModel {
  weights: Record<string, number>;
  calibration: { score: number; probability: number; intercept: number };
}

/** A scored candidate (exported for the fitting script). */
export interface ScoredCandidate extends Candidate {
  /** The model's linear score. */
  logit: number;
}

let defaultAnalyzer: Analyzer | undefined;
/**
 * Tables already read, per analyzer: reading every cell (terms, numbers, dates) is most of the
 * cost of a question over a large table, and questions often come in series over one table. A
 * table is treated as immutable once asked about.
 */
const preparedTables = new WeakMap<Table, WeakMap<Analyzer, PreparedTable>>();

function prepared(table: Table, analyzer: Analyzer): PreparedTable {
  let byAnalyzer = preparedTables.get(table);
  if (!byAnalyzer) preparedTables.set(table, (byAnalyzer = new WeakMap()));
  let result = byAnalyzer.get(analyzer);
  if (!result) byAnalyzer.set(analyzer, (result = prepareTable(table, analyzer)));
  return result;
}

/**
 * Every grounded candidate plan of `question` over `table`, executed, with its features and its
 * linear score under `weights` (default: the fitted model). Used by the fitting script; most
 * callers want {@link answerFromTable}.
 */
export function tableAnswerCandidates(
  question: string,
  table: Table,
  options: TableAnswerOptions & { weights?: Record<string, number> } = {},
): ScoredCandidate[] {
  const analyzer = options.analyzer ?? (defaultAnalyzer ??= createEnglishAnalyzer());
  const weights = options.weights ?? (model as TableOperationsModel).weights;
  const read = prepared(table, analyzer);
  const analyzed = analyzeQuestion(question, analyzer);
  const conditions = findConditions(analyzed, read, analyzer);
  return enumerateCandidates(analyzed, read, conditions)
    .filter((candidate) => isGrounded(candidate, read, analyzed))
    .map((candidate) => {
      const features = candidateFeatures(candidate, analyzed, read, conditions);
      let logit = 0;
      for (const [name, value] of Object.entries(features)) logit += (weights[name] ?? 0) * value;
      return { ...candidate, features, logit };
    });
}

/**
 * The answers of scored candidates, each with its highest-scoring candidate and its probability (a
 * softmax over candidates, the probabilities of candidates with the same answer text summed);
 * ordered by their best candidate's score, as a semantic parser returns its best logical form
 * (choosing by summed probability instead measured 1.6 points lower on the tuning half, cross-validated).
 */
export function rankAnswers(candidates: readonly ScoredCandidate[]): { candidate: ScoredCandidate; probability: number }[] {
  if (candidates.length === 0) return [];
  const top = Math.max(...candidates.map((candidate) => candidate.logit));
  const byText = new Map<string, { candidate: ScoredCandidate; mass: number }>();
  let total = 0;
  for (const candidate of candidates) {
    const mass = Math.exp(candidate.logit - top);
    total += mass;
    const key = candidate.text.toLowerCase();
    const entry = byText.get(key);
    if (!entry) byText.set(key, { candidate, mass });
    else {
      entry.mass += mass;
      if (candidate.logit > entry.candidate.logit) entry.candidate = candidate;
    }
  }
  return [...byText.values()]
    .map(({ candidate, mass }) => ({ candidate, probability: mass / total }))
    .sort((a, b) => b.candidate.logit - a.candidate.logit);
}

/**
 * Probability clip before the logit in {@link calibrate}: an answer that is the only one the
 * question supports has p = 1, whose logit is infinite.
 */
const probabilityClip = 1e-3;

/**
 * The calibrated score of a chosen answer: a logistic regression of correctness on its best
 * plan's linear score and the logit of its (clipped) probability, Platt scaling (Platt, 1999,
 * "Probabilistic outputs for support vector machines") with a second input.
 */
export function calibrate(logit: number, probability: number, calibration: TableOperationsModel["calibration"]): number {
  const clipped = Math.min(1 - probabilityClip, Math.max(probabilityClip, probability));
  const z = calibration.score * logit + calibration.probability * Math.log(clipped / (1 - clipped)) + calibration.intercept;
  return 1 / (1 + Math.exp(-z));
}

/**
 * Answers `question` from `table` by the best-scoring operation, or undefined when no plan is
 * grounded in the question (no condition from its words or numbers, no column it names).
 *
 * @example
 * ```ts
 * const table = { header: ["Year", "Sales"], rows: [["2003", "21.3"], ["2004", "22.4"]] };
 * answerFromTable("which year had the least sales?", table)?.text; // "2003"
 * ```
 */
export function answerFromTable(question: string, table: Table, options: TableAnswerOptions = {}): TableAnswer | undefined {
  const ranked = rankAnswers(tableAnswerCandidates(question, table, options));
  const best = ranked[0];
  if (!best) return undefined;
  const { candidate } = best;
  const { plan } = candidate;
  const columnIndex = plan.answerColumn ?? plan.measureColumn ?? plan.conditions[0]?.column;
  const header = columnIndex === undefined ? undefined : (table.header[columnIndex] ?? "").replace(/\s+/g, " ").trim();
  return {
    text: candidate.text,
    operation: plan.operation,
    ...(header ? { column: header } : {}),
    rows: [...new Set(candidate.rows)].sort((a, b) => a - b),
    explanation: candidate.explanation,
    restatesCondition:
      plan.operation === "lookup" &&
      plan.conditions.length > 0 &&
      plan.conditions.every((condition) => condition.column === plan.answerColumn),
    score: calibrate(candidate.logit, best.probability, (model as TableOperationsModel).calibration),
    explained: candidate.features["question:explained"] ?? 0,
  };
}
