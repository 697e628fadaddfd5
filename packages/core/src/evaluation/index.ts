/**
 * @docqa/core/evaluation: data sets (BEIR, SQuAD, table sets), retrieval metrics (nDCG@10,
 * recall@k, MRR), answer evaluation (resumable through a results file, on a seeded sample), intent
 * evaluation, the tuning/reporting role of each shared set, and the retrieval configurations
 * `docqa eval` compares.
 */
export { containsAnswer, exactMatch, normalizeAnswer, tokenF1 } from "./answer-metrics.js";
export { type BeirDataset, loadBeirDataset } from "./beir-dataset.js";
export {
  checkDenseModel,
  type DenseModelCheck,
  denseModelCheckTolerance,
  type PublishedDenseScore,
  publishedDenseScores,
} from "./check-dense-model.js";
export { type DataSetRole, type DataSetRoleEntry, dataSetRole, dataSetRoles } from "./data-set-roles.js";
export {
  type AnswerEvaluation,
  type AnswerOutcome,
  type AnswerQuestionsOptions,
  type AnswerRecord,
  type AnswerScorer,
  answerQuestions,
  type EvaluateAnswersOptions,
  evaluateAnswers,
  evaluateQuestions,
  evaluationPrincipal,
  type GenerationSummary,
  ingestSquadContexts,
  invalidJsonFallbackReasons,
  type LatencySummary,
  nearestRankPercentile,
  outcomeOf,
  type RecordedCitation,
  squadQuestions,
  summarizeAnswers,
} from "./evaluate-answers.js";
export { evaluateIntentClassifier, type IntentEvaluation, type IntentScore } from "./evaluate-intent-classifier.js";
export { type EvaluateRetrievalOptions, evaluateRetrieval, type RetrievalEvaluation } from "./evaluate-retrieval.js";
export {
  createTableIngestion,
  type TableEvaluationQuestion,
  type TableIngestion,
  tableEvaluationQuestions,
  tableOrganisation,
} from "./evaluate-table-answers.js";
export { type GenerationUsage, generationUsage } from "./generation-usage.js";
export { type IntentExample, intentExamples } from "./intent-examples.js";
export { type EvaluationQuestion, loadQuestionSet } from "./question-set.js";
export {
  configurationDigest,
  openResultsFile,
  type ResultsFile,
  type ResultsFileContent,
  type RunHeader,
  readResultsFile,
} from "./results-file.js";
export {
  type RetrievalConfiguration,
  retrievalConfigurations,
  serviceConfigurationName,
  serviceRetrievalConfiguration,
} from "./retrieval-configurations.js";
export {
  type Judgements,
  meanMetrics,
  ndcgAtK,
  type RetrievalMetrics,
  recallAtK,
  reciprocalRankAtK,
} from "./retrieval-metrics.js";
export { defaultSampleSeed, sampleMethod, sampleQuestions } from "./sample-questions.js";
export { loadSquadDataset, type SquadDataset } from "./squad-dataset.js";
export {
  containsAllItems,
  containsAnyItem,
  itemInText,
  numbersIn,
  numericValue,
  tableExactMatch,
  tableTokenF1,
} from "./table-answer-metrics.js";
export {
  loadTableQuestionSet,
  readTableAsCsv,
  type TableQuestion,
  type TableQuestionSet,
  type TableSplit,
  tableFileToCsv,
  tableSplitQuestions,
  tableSplits,
} from "./table-question-set.js";
