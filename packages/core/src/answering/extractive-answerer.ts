/**
 * The extractive answerer: answers with the answer unit of the retrieved context that most
 * probably holds the answer ({@link rankEvidence}), with no language model. It is the default
 * when no model is configured, and the fallback when a model's output cannot be repaired.
 *
 * Method (answer selection over units, as in the answer-sentence selection stage of open-domain
 * QA, Yih et al., 2013, "Question Answering Using Enhanced Lexical Semantic Models", extended to
 * table cells and commands):
 * 1. The callout is the best unit, cited `[Source: doc_n]`:
 *    - a sentence as written (a lead-in ending with a colon is followed by the command or
 *      sentence it introduces), after its heading path when the heading states question words
 *      the sentence lacks or the sentence is a property of what it names ("MAX_CONNECTIONS —
 *      Default: 512"), or after its section's heading path when the sentence only restates the
 *      question and the path answers it
 *      (`EvidenceUnit.answeringSection`: "Changelog > 2.4.0 (2026-03-02) > Added — Streaming
 *      responses for the search endpoint.");
 *    - a cell as `<entity>: <column> <value>` ("France: wine_servings 370"), the entity being the
 *      row's cell the question names, or the record's name;
 *    - a command with its lead-in ("Run the following command: `rustup update`"), the shell
 *      prompt removed;
 *    - for a question asking a procedure ("How do I update…?", `Evidence.asksProcedure`) whose best
 *      unit is a sentence, the sentence followed by the command its section gives next
 *      ({@link followingCommand}): documentation explains a task, then shows its command, so the
 *      sentence that names the task is the one the question's words match and the command is the
 *      answer ("Once Rust is installed via `rustup`, updating … is easy. From your shell, run the
 *      following update script: `rustup update`").
 * 2. `positive_list`: for a cell, the rest of its row or record (the unit that answers); for a
 *    sentence or command, other units of the same chunk that more probably than not hold the
 *    answer too ({@link supportProbability}) and state every question term the callout states
 *    (the same question: "full-time employees receive 25 days" does not support an answer about
 *    new employees).
 * 3. `negative_list`: sentences next to the callout in its chunk that qualify it (a caveat cue:
 *    negation, exception, limitation).
 * 4. `info_list`: the best unit of another document, when it more probably than not holds the
 *    answer too, labelled with its document's title.
 * 5. An answer computed over a whole table (`AnswerRequest.table`: a count, the largest, the next
 *    row) replaces the best unit when its calibrated score is higher: its explanation is the
 *    callout ("least Toy sales: Year 2003 (21.3)"), citing the rows it was computed from.
 *
 * The pipeline's `decide-answerable` stage decides whether to answer at all; called on its own
 * (without `evidence`), the answerer ranks and applies the same decision (`decideAnswerable`).
 */
import type { Analyzer } from "../text/analyzer.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { type Answer, emptyContextAnswer } from "./answer.js";
import { sectionPathOf } from "./answer-context.js";
import { subjectText } from "./answer-units.js";
import type { Answerer, AnswerRequest, GeneratedAnswer } from "./answerer.js";
import { formatCitation } from "./citations.js";
import { type AbstentionReason, decideAnswerable } from "./decide-answerable.js";
import { type AnswerType, offersAnswerType } from "./question-cues.js";
import { type EvidenceUnit, rankEvidence } from "./rank-evidence.js";
import { keyWords } from "./record-keys.js";
import type { TableEvidence } from "./table-evidence.js";

/** Settings of {@link createExtractiveAnswerer}. */
export interface ExtractiveAnswererSettings {
  /** Analyzer for matching question and units; default {@link createEnglishAnalyzer}. */
  analyzer?: Analyzer;
  /** Maximum items of `positive_list` and `negative_list`; default 2. */
  maximumListItems?: number;
}

/**
 * Probability (of holding the answer, under the fitted unit scorer) from which another unit
 * supports the callout or adds information: more probably than not. A calibrated probability
 * needs no other cut-off.
 */
export const supportProbability = 0.5;
/** Positions apart within one chunk that still count as next to the callout: the sentences just before and after it. */
const neighbourhood = 1;
/**
 * Positions after a sentence within which the command it explains follows: the command itself, or
 * its lead-in sentence ("From your shell, run the following update script:") and then the command.
 */
export const commandReach = 2;
/** Most cells of a row or record listed in `positive_list`: enough to identify the row, short enough to read. */
const maximumRowCells = 8;
/** Caveat cues of English: negation, exception, limitation, condition. */
const caveatPattern =
  /\b(however|but|except|excluding|unless|not|never|cannot|can't|won't|only if|only when|limited|limitation|although|though|must not|may not|restricted|prohibited|warning|note that)\b/i;
const wordPattern = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/** Creates the extractive answerer. */
export function createExtractiveAnswerer(settings: ExtractiveAnswererSettings = {}): Answerer {
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();
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
    async answer({ question, context, evidence: given, table, signal }: AnswerRequest): Promise<GeneratedAnswer> {
      const evidence = given ?? (await rankEvidence(question, context, { analyzer, signal }));
      if (!given) {
        const decision = decideAnswerable(evidence, { tableAnswer: table?.answer });
        if (!decision.answerable) return result(emptyContextAnswer(), decision.reason);
      }
      const ranked = evidence.units;
      const best = ranked[0];
      if (!best) return result(emptyContextAnswer(), "no_documents");
      const answer =
        (table && table.answer.score > best.score && offersAskedValue(table, question, evidence.expectedType)
          ? tableAnswer(table, context)
          : undefined) ??
        composeAnswer(best, ranked, new Set(evidence.questionTerms.map(({ term }) => term)), maximumListItems, {
          procedure: evidence.asksProcedure,
        });
      const weights = new Map(evidence.questionTerms.map(({ term, weight }) => [term, weight]));
      answer.keywords = keywordsOf(question, [answer.callout_answer, ...answer.positive_list].join(" "), weights, analyzer);
      return result(answer, null);
    },
  };
}

/**
 * The answer built around the best unit (see the module comment); `keywords` is left empty.
 *
 * @param questionTerms - the question's analysed content terms (`Evidence.questionTerms`).
 * @param options.procedure - the question asks for a procedure (`Evidence.asksProcedure`); default false.
 */
export function composeAnswer(
  best: EvidenceUnit,
  ranked: readonly EvidenceUnit[],
  questionTerms: ReadonlySet<string>,
  maximumListItems = 2,
  options: { procedure?: boolean } = {},
): Answer {
  const cite = (unit: EvidenceUnit, text: string) => `${text} ${formatCitation([unit.entry.key])}`;
  const sameEntry = ranked.filter((unit) => unit.entry === best.entry);
  const byPosition = new Map(sameEntry.map((unit) => [unit.position, unit]));
  const used = new Set<EvidenceUnit>([best]);

  let callout: string;
  if (best.kind === "cell" && best.row && best.cell) {
    // The entity: the row's cell the question names ("France: wine_servings 370"), else the record's
    // name; a number is read with its key ("Hospital beds 6: Name …").
    const named = best.subject;
    const subject = named && /^[\d.,%$€£\s-]+$/.test(named.value) ? `${named.key} ${named.value}` : subjectText(best.row, named);
    callout = `${subject ?? best.entry.chunk.title}: ${best.cell.key} ${best.cell.value}`;
  } else if (best.kind === "command") {
    callout = commandText(best);
  } else {
    callout = best.text;
    // The section that answers, or the heading that names what the question asks about (its terms
    // count toward the unit's local coverage only) or whose property the line states, leads it.
    const section =
      best.answeringSection ??
      (best.heading && (best.property || best.features.localCoverage > best.features.coverage)
        ? headingPath(best, best.heading)
        : undefined);
    if (section !== undefined) callout = `${section} \u2014 ${best.text}`;
    const next = byPosition.get(best.position + 1);
    if (best.text.endsWith(":") && next && next.kind !== "heading") {
      callout = next.kind === "command" ? commandText({ ...next, leadIn: callout }) : `${callout} ${next.text}`;
      used.add(next);
    } else if (options.procedure) {
      const command = followingCommand(best, byPosition);
      if (command) {
        callout = `${callout} ${commandText(command)}`;
        used.add(command);
      }
    }
  }

  const calloutSubject = [...best.terms].filter((term) => questionTerms.has(term));
  const positive: string[] = [];
  if (best.kind === "cell" && best.row) {
    const row = best.row;
    const cells = row.cells.filter((cell) => cell !== best.cell).slice(0, maximumRowCells);
    if (cells.length > 0) {
      const name = row.name ?? (row.tableRow ? undefined : best.entry.chunk.title);
      positive.push(cite(best, `${name ? `${name}: ` : ""}${cells.map((cell) => `${cell.key}: ${cell.value}`).join("; ")}`));
    }
    for (const unit of sameEntry) if (unit.row === row) used.add(unit);
  } else {
    for (const unit of sameEntry) {
      if (positive.length >= maximumListItems) break;
      if (used.has(unit) || unit.kind === "heading" || unit.score < supportProbability || caveatPattern.test(unit.text)) continue;
      if (!calloutSubject.every((term) => unit.terms.has(term))) continue;
      positive.push(cite(unit, unit.kind === "command" ? commandText(unit) : unit.text));
      used.add(unit);
    }
  }

  const negative: string[] = [];
  for (const unit of sameEntry) {
    if (negative.length >= maximumListItems) break;
    if (used.has(unit) || unit.kind !== "sentence" || !caveatPattern.test(unit.text)) continue;
    if (Math.abs(unit.position - best.position) > neighbourhood) continue;
    negative.push(cite(unit, unit.text));
    used.add(unit);
  }

  const info: string[] = [];
  const other = ranked.find((unit) => unit.entry.chunk.docId !== best.entry.chunk.docId && unit.kind !== "heading");
  if (other && other.score >= supportProbability) {
    const text =
      other.kind === "cell" && other.row && other.cell
        ? `${other.cell.key}: ${other.cell.value}`
        : other.kind === "command"
          ? commandText(other)
          : other.text;
    info.push(`${other.entry.chunk.title}: ${cite(other, text)}`);
  }

  return {
    callout_answer: cite(best, callout),
    positive_list: positive,
    negative_list: negative,
    info_list: info,
    keywords: [],
  };
}

/**
 * Whether a table's answer is a value of the kind the question asks for when it asks for a number
 * or a date ("On what date…" is not answered by the cell `month` of a data dictionary): the
 * answer-type check of the unit features (`offersAnswerType`), applied to the one answer a table
 * operation gives. Names and other kinds are left to the table model, whose cells are often
 * lower-case names ("gold", "forward").
 */
function offersAskedValue(table: TableEvidence, question: string, type: AnswerType): boolean {
  if (type !== "number" && type !== "date") return true;
  return offersAnswerType(table.answer.text, question, type) !== false;
}

/**
 * The answer computed over a whole table (`tableEvidence`): its explanation as the callout, citing
 * the rows it was computed from, and those rows as supporting points; undefined when none of them
 * is in the context.
 */
function tableAnswer(table: TableEvidence, context: AnswerRequest["context"]): Answer | undefined {
  const ids = new Set(table.rows.map((chunk) => chunk.id));
  const entries = context.entries.filter((entry) => ids.has(entry.chunk.id));
  if (entries.length === 0) return undefined;
  return {
    callout_answer: `${table.answer.explanation} ${formatCitation(entries.map((entry) => entry.key))}`,
    positive_list: entries.map((entry) => `${entry.text.replace(/\s+/g, " ").trim()} ${formatCitation([entry.key])}`),
    negative_list: [],
    info_list: [],
    keywords: [],
  };
}

/**
 * `heading` with the headings above it: the chunk's `section` path when it ends with `heading`
 * ("Changelog > 2.3.1 (2026-01-15) > Fixed"), else `heading` alone (a heading inside the chunk).
 */
function headingPath(unit: EvidenceUnit, heading: string): string {
  const section = sectionPathOf(unit.entry.chunk.metadata);
  return section?.split(" > ").at(-1)?.trim() === heading ? section : heading;
}

/**
 * The command that `sentence` explains: the first command within {@link commandReach} positions
 * after it in its chunk, with nothing but sentences between (a heading starts another task).
 */
function followingCommand(sentence: EvidenceUnit, byPosition: ReadonlyMap<number, EvidenceUnit>): EvidenceUnit | undefined {
  for (let offset = 1; offset <= commandReach; offset++) {
    const unit = byPosition.get(sentence.position + offset);
    if (!unit || (unit.kind !== "sentence" && unit.kind !== "command")) return undefined;
    if (unit.kind === "command") return unit;
  }
  return undefined;
}

/** A command with its lead-in: `Run this: \`rustup update\``; the shell prompt removed, lines joined with ` && `-free line breaks. */
function commandText(unit: Pick<EvidenceUnit, "text" | "leadIn" | "heading">): string {
  const lines = unit.text.split("\n").map((line) => line.replace(/^\s*(\$|PS>|C:\\>)\s?/, "").trim());
  const command = lines.length === 1 ? `\`${lines[0]}\`` : `\n${lines.join("\n")}`;
  const intro = unit.leadIn ?? (unit.heading ? `${unit.heading}:` : undefined);
  return intro ? `${intro} ${command}`.trim() : command.trim();
}

/** Question words (surface forms) whose terms occur in the cited text, most specific first; at most 8. */
function keywordsOf(question: string, citedText: string, weights: Map<string, number>, analyzer: Analyzer): string[] {
  const citedTerms = new Set([...analyzer.analyze(citedText), ...analyzer.analyze(keyWords(citedText))]);
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
