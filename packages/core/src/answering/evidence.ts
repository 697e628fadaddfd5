/**
 * The evidence ranked for a question (`rankEvidence`) and a table answer computed from it
 * (`tableEvidence`). Types only, so the request state and the answerer can name them.
 */
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { UnitFeatures } from "./answer-model.js";
import type { AnswerUnit, holdsProse, RecordCell } from "./answer-units.js";
import type { AnswerType } from "./question-cues.js";
import type { TableAnswer } from "./table-operations.js";

/** A unit with its signals and score. */
export interface EvidenceUnit extends AnswerUnit {
  /** Analysed terms of the unit's own text (a cell: its key's words and its value). */
  terms: ReadonlySet<string>;
  features: UnitFeatures;
  /**
   * Dense signal cos(q, u) / cos(q, q as a passage) of the unit (read with its heading, lead-in or
   * row), or null without an embedding model.
   */
  dense: number | null;
  /** For a cell: the row's cell that names the entity the question asks about, when one does. */
  subject?: RecordCell | undefined;
  /** Whether the unit contains a negation. */
  negated: boolean;
  /**
   * Whether its answer part (a cell's value, a sentence) holds only words of the question: it
   * restates the question and answers nothing ("Yacht: Ausmaid" for "Which yacht
   * finished after Ausmaid?"), so it scores 0 and identifies the row or passage instead.
   */
  echo: boolean;
  /**
   * For a sentence that restates the question under a section whose heading path offers the
   * answer type the question asks for: that path ("Changelog > 2.4.0 (2026-03-02) > Added" over
   * "Streaming responses for the search endpoint." for "Which version added streaming
   * responses…?"). Such a sentence is no echo: it identifies the section, whose heading answers.
   * Undefined otherwise.
   */
  answeringSection?: string | undefined;
  /**
   * For a cell: how many of its key's terms the question does not mention ("accidents" in
   * `fatal_accidents` for "How many fatalities…?"); 0 for other units. Breaks ties between cells
   * of one row, which share every other feature: the field the question names most exactly wins.
   */
  keyUnmatched: number;
  /**
   * True for a cell that is an attribute of a row of attribute values (no value is prose,
   * {@link holdsProse}) when the question names none of the row's fields (by a key's words, a
   * prefix or a related form): the question asks about the row's entity something none of its
   * fields holds ("How tall was…?" of a record without a height), which `decideAnswerable`
   * declines. So is a cell of a row that states the counted noun of a "how many" question nowhere,
   * in no key and no value ("How many calories…?" of a row with a `bar` field). A table row's first cell identifies it, so it is an attribute only when the question names
   * its value ("What is the population of Canada?" of the row `airline: Air Canada`); otherwise it
   * answers a question that picks the row by another field ("Name a site that only offers biology").
   */
  unnamedField: boolean;
  /**
   * For a cell: whether the question names its own field (a word of its key, by prefix or a
   * related form: "born" of `birthday`, "2000 to 2014" of `fatalities_00_14`); false for other units.
   */
  fieldNamed: boolean;

  /** P(the unit holds the answer) under the fitted model, in (0, 1). */
  score: number;
}

/** A content term of the question with its weight. */
export interface WeightedTerm {
  /** The analysed term. */
  term: string;
  /** The question word it comes from. */
  word: string;
  /** Idf over the context's units times the word's background weight in general English. */
  weight: number;
}

/** The evidence for one question. */
export interface Evidence {
  /** The question's content terms, heaviest first. */
  questionTerms: WeightedTerm[];
  /** The answer type the question asks for. */
  expectedType: AnswerType;
  /** Whether the question asks for a procedure ("how do I …"). */
  asksProcedure: boolean;
  /** Whether the question contains a negation. */
  questionNegated: boolean;
  /** Every unit of the context, best first. */
  units: EvidenceUnit[];
  /** Idf-weighted share of the question's content terms found anywhere in the context, in [0, 1]. */
  contextCoverage: number;
  /** The highest such share in one chunk (its text and title), in [0, 1]. */
  passageCoverage: number;
  /**
   * The specific information the best passage (the one holding `passageCoverage`) shares with
   * the question: Σ max(0, b(w) − `commonWordWeight` (rank-evidence.ts)) over the question's words it
   * contains, with b(w) the word's background weight in general English, 1 for a name or number
   * of the question. A passage that shares only common words with the question ("day", "new")
   * is not about what it asks.
   */
  passageSpecificity: number;
  /** Whether the best unit states the question with a word replaced by its opposite (`contradiction`, question-cues.ts). */
  contradicted: boolean;
  /** Whether the best unit states the question with a content word replaced by another (`substitution`, question-cues.ts). */
  substituted: boolean;
  /**
   * Whether the best unit is a cell of a row (a table row or a record) that states none of the
   * question's words other than its field names, while another row of the context does: the
   * question is about that row's entity, and the best row only shares the field ("the melting point
   * of mendelevium" answered by `Curium: melting_point 1340.15` when the Mendelevium record has no
   * melting point). `decideAnswerable` declines it, as it declines a field the row lacks.
   */
  entityElsewhere: boolean;
  /** Whether the dense signal was computed. */
  denseUsed: boolean;
  /** The scorer that ranked the units. */
  scorer: string;
}

/** An answer computed over a whole table, with the chunks of the rows it was computed from. */
export interface TableEvidence {
  answer: TableAnswer;
  /** The table's document. */
  docId: string;
  /** The chunks of the rows the answer was computed from, at most `maximumCitedRows` (table-evidence.ts), in row order. */
  rows: ChunkRecord[];
}
