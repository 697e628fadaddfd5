/**
 * Batch question answering: many questions through one service, with bounded concurrency.
 */
export {
  type AnswerLike,
  type AskManyOptions,
  askMany,
  type BatchAnswer,
  type BatchError,
  type BatchOutcome,
  type BatchPredictor,
  type BatchQuestion,
  batchError,
  isAbstention,
} from "./ask-many.js";
