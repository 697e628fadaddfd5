/**
 * @docqa/core/evaluation: data sets (BEIR, SQuAD), retrieval metrics (nDCG@10, recall@k, MRR),
 * answer and intent evaluation, and the retrieval configurations `docqa eval` compares.
 */
export { type BeirDataset, loadBeirDataset } from "./beir-dataset.js";
export {
  checkDenseModel,
  type DenseModelCheck,
  denseModelCheckTolerance,
  type PublishedDenseScore,
  publishedDenseScores,
} from "./check-dense-model.js";
export {
  type AnswerEvaluation,
  type AnswerOutcome,
  type EvaluateAnswersOptions,
  evaluateAnswers,
  normalizeAnswer,
} from "./evaluate-answers.js";
export { evaluateIntentClassifier, type IntentEvaluation, type IntentScore } from "./evaluate-intent-classifier.js";
export { type EvaluateRetrievalOptions, evaluateRetrieval, type RetrievalEvaluation } from "./evaluate-retrieval.js";
export { type IntentExample, intentExamples } from "./intent-examples.js";
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
export { loadSquadDataset, type SquadDataset } from "./squad-dataset.js";
