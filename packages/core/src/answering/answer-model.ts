/**
 * The fitted models of answering: the unit scorer that ranks answer units (`rankEvidence`) and the
 * two abstention models (`decideAnswerable`). Each is a logistic model, P = σ(b + Σ wᵢ xᵢ), over
 * a small set of named, general features; the weights are fitted by
 * `scripts/calibrate-answering.mjs` on the calibration splits only (SQuAD 2.0 dev calibration,
 * the tuning half of WikiTableQuestions-150) and written to `fitted-weights.json` with the figures
 * they reach on the calibration and report splits (`npm run calibrate:answering` reruns it). Nothing here names a word, an entity or a column of a
 * particular document.
 */
import fitted from "./fitted-weights.json" with { type: "json" };

/** The features of an answer unit, in the order the fitted weights list them. */
export const unitFeatureNames = [
  /**
   * Idf-weighted share of the question's content terms that the unit states: a sentence's words;
   * a cell's column name or key (the field it answers) with the other values of its row and its
   * record's name (the entity it is of), its own value left out; a command with its section's
   * heading and its lead-in (the task it performs).
   */
  "coverage",
  /** The same share with the unit's heading (the section it sits in). */
  "localCoverage",
  /**
   * For a sentence: the same share with the sentences just before and after it in its chunk, which
   * often name what its pronouns refer to ("It was founded in 1850."); for other units, `localCoverage`.
   */
  "windowCoverage",
  /** The same share for the unit's whole chunk with its title and section. */
  "passageCoverage",
  /**
   * For a cell: the share of the question's focus words (`questionFocus`: "city" in "What city
   * …", "boiling point" in "What is the boiling point of …") that its key names; 0 otherwise.
   */
  "focusKey",
  /** 1 when the question asks for a type of answer (number, date, entity, procedure) and the unit offers one the question does not state. */
  "typeOffered",
  /** 1 when the question asks for a type of answer and the unit offers none. */
  "typeMissing",
  /** 1 when the question asks "how many X" and the unit states a count of X. */
  "countMatch",
  /** Share of the question's names and numbers that the unit's chunk (text and title) does not hold. */
  "constraintsMissing",
  /**
   * The weight share of the heaviest question term that the unit's local text (with its heading
   * or row) does not hold: one specific word of the question missing where the rest is stated is
   * the trace of a swapped entity or attribute (Rajpurkar et al., 2018, "Know What You Don't
   * Know", section 3).
   */
  "missingLocal",
  /** The same for the unit's whole chunk with its title. */
  "missingPassage",
  /** 1 / (1 + the chunk's retrieval rank). */
  "rankPrior",
  /** 1 for a sentence of fewer than five words (a label, a table cell extracted as text). */
  "fragment",
  /** 1 for a cell of a table row or record. */
  "cell",
  /** 1 for a command. */
  "command",
  /** 1 when both the question and the unit are negated. */
  "samePolarity",
  /**
   * Weighted share of the question's adjacent content-term pairs that the unit's own text has
   * adjacent, in order (stop words aside): "mpsc stands for" for "What does mpsc stand for?". A
   * phrase of the question kept whole in a sentence is stronger evidence than its words scattered
   * (term proximity: Tao & Zhai, 2007, "An Exploration of Proximity Measures in Information
   * Retrieval"; n-gram overlap in answer sentence selection: Yih et al., 2013).
   */
  "phraseMatch",
  /** The dense signal cos(q, u) / cos(q, q as a passage), floored at 0; 0 without an embedding model. */
  "dense",
] as const;

/** A unit feature's name. */
export type UnitFeatureName = (typeof unitFeatureNames)[number];

/** The features of one unit, each in [0, 1]. */
export type UnitFeatures = Record<UnitFeatureName, number>;

/** The question-level features of the abstention models, read from the ranked evidence. */
export const answerabilityFeatureNames = [
  /** The best unit's score (P that it holds the answer). */
  "bestScore",
  /** The best unit's score minus the second's. */
  "scoreMargin",
  /** The best unit's own coverage of the question. */
  "bestCoverage",
  /** The best unit's coverage with its heading, lead-in or row. */
  "bestLocalCoverage",
  /** The highest share of the question one chunk holds. */
  "passageCoverage",
  /** The share of the question the whole context holds. */
  "contextCoverage",
  /** The best passage's specific information shared with the question, divided by 2 and capped at 1. */
  "specificity",
  /** Share of the question's names and numbers the best unit's chunk lacks. */
  "constraintsMissing",
  /** The best unit's `missingLocal`. */
  "missingLocal",
  /** The best unit's `missingPassage`. */
  "missingPassage",
  /** The best unit's `focusKey`. */
  "focusKey",
  /** 1 when the best unit offers no answer of the type asked for. */
  "typeMissing",
  /** 1 when the best unit offers one. */
  "typeOffered",
  /** 1 when the question is negated and the best unit is not. */
  "negationMismatch",
  /** 1 when the best unit states the question with a word replaced by its opposite. */
  "contradicted",
  /** 1 when the best unit states the question with a content word replaced by another. */
  "substituted",
  /** 1 when the best unit is a cell. */
  "bestCell",
  /** 1 when the best unit is a command. */
  "bestCommand",
  /** The highest dense signal of any unit (0 without an embedding model). */
  "denseMax",
  /** The score of the answer computed over a whole table (`tableEvidence`); 0 when there is none. */
  "tableScore",
  /** The share of the question the table answer's plan accounts for (`TableAnswer.explained`); 0 when there is none. */
  "tableExplained",
] as const;

/** An answerability feature's name. */
export type AnswerabilityFeatureName = (typeof answerabilityFeatureNames)[number];

/** The question-level features of one question. */
export type AnswerabilityFeatures = Record<AnswerabilityFeatureName, number>;

/** A fitted logistic model. */
export interface LogisticModel {
  /** Names the model in logs and evaluation output (`lexical`, `bge-small`). */
  name: string;
  intercept: number;
  /** Weight per feature; a missing feature weighs 0. */
  weights: Readonly<Record<string, number>>;
  /**
   * The probability below which the model says no (for the abstention models); chosen by the
   * calibration script. Unused by the unit scorers.
   */
  threshold?: number | undefined;
}

/** The unit scorer: a logistic model over {@link UnitFeatures}. */
export type FittedScorer = LogisticModel;

/** The models fitted for one configuration (no dense signal, or one embedding model family). */
export interface FittedConfiguration {
  /** The unit scorer. */
  scorer: LogisticModel;
  /** P(the context is about the question): below its threshold, `low_relevance`. */
  relevance: LogisticModel;
  /** P(the best unit answers the question | the context is about it): below its threshold, `not_answerable`. */
  answerability: LogisticModel;
  /** What the models reached when they were fitted. */
  figures?: FittedFigures | undefined;
  /** The date of the fit (ISO). */
  fittedOn?: string | undefined;
}

/** The fitted models as `scripts/calibrate-answering.mjs` writes them. */
export interface FittedWeights {
  /** How they were produced: the command, the date, the splits, the figures reached. */
  source: string;
  /** Without a dense signal (BM25 only). */
  lexical: FittedConfiguration;
  /** Per embedding model family: the pattern of model ids it applies to and its models. */
  dense: readonly { family: string; pattern: string; models: FittedConfiguration }[];
}

/** What a configuration reached on the calibration and report splits, per set (see the calibration script). */
export interface FittedFigures {
  calibration: Readonly<Record<string, Readonly<Record<string, number>>>>;
  report: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** The logistic function σ(b + Σ wᵢ xᵢ). */
export function predict(model: LogisticModel, features: Readonly<Record<string, number>>): number {
  let sum = model.intercept;
  for (const [name, weight] of Object.entries(model.weights)) sum += weight * (features[name] ?? 0);
  return 1 / (1 + Math.exp(-sum));
}

/** The fitted models as written by the calibration script. */
export const fittedWeights = fitted as unknown as FittedWeights;

/** The models without a dense signal. */
export const lexicalModels: FittedConfiguration = fittedWeights.lexical;

/**
 * The models for an embedding model: those of the first family whose pattern matches its id,
 * else those of the first family fitted (the closest measured model; calibrate your own with
 * `scripts/calibrate-answering.mjs`), else the lexical ones.
 */
export function modelsFor(embeddingModel: string | undefined): FittedConfiguration {
  const families = fittedWeights.dense;
  const matched = embeddingModel === undefined ? undefined : families.find(({ pattern }) => new RegExp(pattern, "i").test(embeddingModel));
  return (matched ?? families[0])?.models ?? fittedWeights.lexical;
}
