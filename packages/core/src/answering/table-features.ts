/**
 * Features of a candidate logical form for the log-linear model of `table-operations.ts`, after
 * the feature families of Pasupat & Liang (2015, section 5: "the operation and the question's
 * words", "the header and the question", "the denotation's type and the question's wh-word").
 * Every feature is general: cue classes of English words, header overlap with the question, the
 * share of the question the plan explains, the kind of column read against the kind of answer
 * asked for. No feature names a word, column or value of a particular table.
 */
import type { Candidate } from "./table-candidates.js";
import { type AnalyzedQuestion, type Condition, type Cue, headerMentions, type PreparedTable, termsMatch } from "./table-question.js";

/** The cues a candidate's features are crossed with (every cue but negation, which no operation expresses). */
const crossedCues: readonly Cue[] = [
  "count",
  "sum",
  "total",
  "average",
  "most",
  "least",
  "more",
  "less",
  "difference",
  "first",
  "last",
  "next",
  "previous",
  "alternatives",
  "frequency",
];

/** Whether every term of `text` occurs in the question. */
function inQuestion(terms: readonly string[], question: AnalyzedQuestion): boolean {
  return terms.length > 0 && terms.every((term) => question.terms.includes(term));
}

/**
 * Share of a column name's terms that the question mentions ({@link termsMatch}; 0 for a name
 * without terms), counting the terms outside parentheses only (a unit in parentheses is rarely asked).
 */
function headerOverlap(table: PreparedTable, column: number | undefined, question: AnalyzedQuestion): number {
  if (column === undefined || column < 0) return 0;
  const terms = table.headerCoreTerms[column] ?? [];
  if (terms.length === 0) return 0;
  return terms.filter((term) => question.terms.some((asked) => termsMatch(term, asked))).length / terms.length;
}

/** Question content-term indexes that a column name covers. */
function headerCovered(table: PreparedTable, column: number | undefined, question: AnalyzedQuestion): number[] {
  const mentioned = new Set(headerMentions(question, table, column));
  return question.contentIndexes.filter((index) => mentioned.has(index));
}

/** Question content-term indexes inside the spans of `conditions`. */
function conditionCovered(conditions: readonly Condition[], question: AnalyzedQuestion): number[] {
  return question.contentIndexes.filter((index) => conditions.some((condition) => index >= condition.span[0] && index < condition.span[1]));
}

/**
 * Whether a candidate is grounded in the question: it uses a condition from the question, or a
 * column whose name shares a term with it. An ungrounded plan (counting all rows, reading the
 * first row) would answer any question, so it is never offered.
 */
export function isGrounded(candidate: Candidate, table: PreparedTable, question: AnalyzedQuestion): boolean {
  const { plan } = candidate;
  return (
    plan.conditions.length > 0 ||
    headerOverlap(table, plan.answerColumn, question) > 0 ||
    headerOverlap(table, plan.measureColumn, question) > 0
  );
}

/**
 * The feature values of `candidate` (names are stable: they key the fitted weights).
 * `allConditions` are every condition the question supports, used or not.
 */
export function candidateFeatures(
  candidate: Candidate,
  question: AnalyzedQuestion,
  table: PreparedTable,
  allConditions: readonly Condition[],
): Record<string, number> {
  const { plan } = candidate;
  const features: Record<string, number> = {};
  const set = (name: string, value: number | boolean) => {
    const number = Number(value);
    if (number !== 0) features[name] = number;
  };
  // Compare's direction is described by the direction features only: one operation name for both keeps its few examples together.
  const operation = plan.operation;
  set(`op:${operation}`, 1);
  for (const cue of crossedCues) if (question.cues.has(cue)) set(`op:${operation}&cue:${cue}`, 1);
  set(`op:${operation}&type:${question.type}`, 1);

  const conditionColumns = new Set(plan.conditions.map((condition) => condition.column));
  const readsAnswer = plan.answerColumn !== undefined;
  if (readsAnswer) {
    const column = plan.answerColumn as number;
    const kind = table.profiles[column]?.kind ?? "text";
    set("answer:header", headerOverlap(table, column, question));
    set(`answer:kind:${kind}&type:${question.type}`, 1);
    set("answer:condition-column", conditionColumns.has(column));
    set(`answer:condition-column&op:${operation}`, conditionColumns.has(column));
    set("answer:first-column", column === 0);
    set("answer:first-text-column", column === table.profiles.findIndex((profile) => profile.kind === "text"));
    set("answer:measure-column", column === plan.measureColumn);
    set(
      "answer:wh-noun",
      (table.headerTerms[column] ?? []).some((term) => [...question.answerNoun].some((noun) => termsMatch(noun, term))),
    );
  }
  if (plan.operation === "compare") {
    const column = plan.conditions[0]?.column ?? 0;
    set(`answer:kind:${table.profiles[column]?.kind ?? "text"}&type:${question.type}`, 1);
  }
  const direction = plan.operation === "argmax" ? "max" : plan.operation === "argmin" ? "min" : plan.direction;
  if (direction !== undefined) {
    const larger = question.cues.has("most") || question.cues.has("more");
    const smaller = question.cues.has("least") || question.cues.has("less");
    set("direction:agrees", direction === "max" ? larger && !smaller : smaller && !larger);
    set("direction:disagrees", direction === "max" ? smaller && !larger : larger && !smaller);
  }
  const answerTerms = candidate.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  set("answer:in-question", plan.operation !== "compare" && inQuestion(answerTerms, question));
  if (plan.measureColumn !== undefined) {
    set("measure:header", headerOverlap(table, plan.measureColumn, question));
    set("measure:condition-column", conditionColumns.has(plan.measureColumn));
    set("measure:date", table.profiles[plan.measureColumn]?.kind === "date");
  }
  if (!readsAnswer && plan.measureColumn === undefined) set("count:no-column", 1);

  const content = question.contentIndexes.length;
  const byConditions = conditionCovered(plan.conditions, question);
  const explained = new Set([
    ...byConditions,
    ...headerCovered(table, plan.answerColumn, question),
    ...headerCovered(table, plan.measureColumn, question),
  ]);
  const unusedCovered = conditionCovered(
    allConditions.filter((condition) => !plan.conditions.includes(condition)),
    question,
  ).filter((index) => !explained.has(index));
  set("question:explained", content === 0 ? 0 : explained.size / content);
  set("conditions:unused", content === 0 ? 0 : new Set(unusedCovered).size / content);
  set("conditions:count", plan.conditions.length);
  set("conditions:none", plan.conditions.length === 0);
  set(`conditions:none&op:${operation}`, plan.conditions.length === 0);
  set("conditions:compare", plan.conditions.filter((condition) => condition.kind === "compare").length);
  const qualities = plan.conditions.map((condition) => condition.quality);
  set("conditions:partial", qualities.length === 0 ? 0 : qualities.reduce((sum, quality) => sum + (1 - quality), 0) / qualities.length);
  set("conditions:alternatives", plan.conditions.length > conditionColumns.size);
  const named = plan.conditions.filter((condition) => headerMentions(question, table, condition.column).length > 0);
  set("conditions:column-named", plan.conditions.length === 0 ? 0 : named.length / plan.conditions.length);
  // The column named right next to the value ("2 bids", "week 5", "less than 40 episodes").
  const adjacent = plan.conditions.filter((condition) => {
    const mentioned = headerMentions(question, table, condition.column);
    return mentioned.includes(condition.span[0] - 1) || mentioned.includes(condition.span[1]);
  });
  set("conditions:column-adjacent", plan.conditions.length === 0 ? 0 : adjacent.length / plan.conditions.length);
  set(
    "conditions:bare-number",
    plan.conditions.filter(
      (condition) =>
        condition.kind === "match" &&
        !named.includes(condition) &&
        question.terms.slice(condition.span[0], condition.span[1]).every((term) => /^\d+$/.test(term)),
    ).length,
  );
  const rows = candidate.rows.length;
  set("count:one", plan.operation === "count" && rows === 1);
  set("rows:single", rows === 1);
  set("rows:log", Math.log1p(rows) / Math.log1p(Math.max(1, table.table.rows.length)));
  set("lookup:several-rows", plan.operation === "lookup" && rows > 1);
  set("anchor:ambiguous", (plan.operation === "next" || plan.operation === "previous") && (plan.conditions[0]?.rows.length ?? 0) > 1);
  return features;
}
