/**
 * Batch question answering: {@link askMany} answers many questions through one service with
 * bounded concurrency and yields one {@link BatchAnswer} per question as an async iterator. A
 * failed question is a result with an `error`, never an exception, so one bad question does not
 * stop the batch.
 */
import { pMapIterable } from "p-map";
import type { Principal } from "../acl/principal.js";
import { noInformationSentence } from "../answering/answer.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { PredictRequest } from "../service/rag-service.js";

/** One question of a batch. */
export interface BatchQuestion {
  /** The caller's id for the question, echoed in its answer (for example `"17"` for line 17 of a file). */
  id: string;
  /** The question text (`PredictRequest.query`). */
  question: string;
  /** Thread to continue (UUID); default a new thread for the question. */
  threadId?: string | undefined;
  /**
   * The asking user's e-mail when it is not {@link AskManyOptions.principal}'s; the roles and
   * groups stay the principal's.
   */
  user?: string | undefined;
}

/**
 * What {@link askMany} calls: a `RagService` (then `R` is `PredictResult`), or any object with the
 * same `predict` signature, for example a client of a running server's `POST /predict` (then `R`
 * is the response body).
 */
export interface BatchPredictor<R> {
  predict(request: PredictRequest): Promise<R>;
}

/**
 * The part of a result {@link askMany} reads to tell an answer from an abstention: a
 * `PredictResult` (`answerMode`) or a set A `/predict` body (`answer_mode`).
 */
export interface AnswerLike {
  answer: { callout_answer: string };
  answerMode?: string | undefined;
  answer_mode?: string | undefined;
}

/** Options of {@link askMany}. */
export interface AskManyOptions {
  /** Organisation asked (`PredictRequest.orgId`). */
  orgId: string;
  /** Who asks; a question's `user` replaces the user name only. */
  principal: Principal;
  /** Questions answered at the same time; default 4, at least 1. */
  concurrency?: number | undefined;
  /**
   * Order of the answers: `input` (default) yields them in the order of the questions, holding a
   * finished answer back until the answers before it are out (at most `4 × concurrency` questions
   * are read ahead of the slowest unfinished one); `completion` yields each as soon as it is ready.
   */
  order?: "input" | "completion" | undefined;
  /** Stops the batch: no question starts after it fires, and the iterator throws its reason. */
  signal?: AbortSignal | undefined;
  /** Clock for latencies, in milliseconds; default `performance.now`. */
  now?: (() => number) | undefined;
}

/** How a question ended: answered from sources, abstained (the spec's "No information" answer), or failed. */
export type BatchOutcome = "answered" | "abstained" | "failed";

/** Why a question failed: the `DocqaError` code (or the `code` of another error, else `internal_error`) and its message. */
export interface BatchError {
  code: string;
  message: string;
}

/** The answer to one question of a batch. */
export interface BatchAnswer<R> {
  /** Position of the question in the input, from 0. */
  index: number;
  question: BatchQuestion;
  outcome: BatchOutcome;
  /** The predictor's result; undefined when the question failed. */
  result: R | undefined;
  /** Why the question failed; undefined otherwise. */
  error: BatchError | undefined;
  /** Milliseconds from the call of `predict` to its result or error. */
  latencyMs: number;
}

/** Whether `result` is the spec's empty-context answer (an abstention). */
export function isAbstention(result: AnswerLike): boolean {
  const mode = result.answerMode ?? result.answer_mode;
  return mode === "empty-context" || result.answer.callout_answer === noInformationSentence;
}

/** The code and public message of any thrown value. */
export function batchError(error: unknown): BatchError {
  if (DocqaError.isInstance(error)) return { code: error.code, message: error.publicMessage };
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { code: typeof code === "string" && code !== "" ? code : "internal_error", message };
}

/**
 * Answers `questions` through `service.predict`, at most `concurrency` at a time, and yields one
 * {@link BatchAnswer} per question (see {@link AskManyOptions.order} for the order). `questions`
 * may be an array or any (async) iterable, read lazily, so a stream of questions is answered as it
 * arrives. Failures are answers with `outcome: "failed"`.
 *
 * @throws the signal's reason when `options.signal` aborts; `TypeError` for a concurrency below 1.
 * @example
 * ```ts
 * const service = createRagService({ config: loadConfig() });
 * for await (const answer of askMany(service, [{ id: "1", question: "How many vacation days?" }], {
 *   orgId: "northwind",
 *   principal: { userName: "ann@northwind.example", roles: [], groups: [] },
 * })) {
 *   console.log(answer.id, answer.outcome, answer.result?.answer.callout_answer);
 * }
 * ```
 */
export async function* askMany<R extends AnswerLike>(
  service: BatchPredictor<R>,
  questions: Iterable<BatchQuestion> | AsyncIterable<BatchQuestion>,
  options: AskManyOptions,
): AsyncGenerator<BatchAnswer<R>, void, undefined> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError(`concurrency must be an integer >= 1, not ${concurrency}`);
  const now = options.now ?? (() => performance.now());
  const { signal } = options;
  signal?.throwIfAborted();
  const ask = async (question: BatchQuestion, index: number): Promise<BatchAnswer<R>> => {
    signal?.throwIfAborted();
    const started = now();
    try {
      const result = await service.predict({
        orgId: options.orgId,
        principal: question.user ? { ...options.principal, userName: question.user } : options.principal,
        query: question.question,
        threadId: question.threadId,
        signal,
      });
      return {
        index,
        question,
        outcome: isAbstention(result) ? "abstained" : "answered",
        result,
        error: undefined,
        latencyMs: now() - started,
      };
    } catch (error) {
      signal?.throwIfAborted();
      return { index, question, outcome: "failed", result: undefined, error: batchError(error), latencyMs: now() - started };
    }
  };
  const preserveOrder = (options.order ?? "input") === "input";
  yield* pMapIterable(questions, ask, {
    concurrency,
    backpressure: preserveOrder ? concurrency * 4 : concurrency,
    preserveOrder,
  });
}
