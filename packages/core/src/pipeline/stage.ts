/**
 * A pipeline stage: one named step of a request, with one job, reading and writing fields of a
 * shared request state. `runStages` runs a list of them in order and times each one.
 */
import type { Runtime } from "./runtime.js";

/**
 * Which part of the spec's `rag_end` PERF event a stage's time counts toward:
 * `retrieval` (`retrieval_ms`; planning, retrieval, access filter, reranking, top-k), `context`
 * (`context_ms`), `generation` (`llm_ms`), `post` (`post_ms`: citations), or `request` (only in
 * `total_ms`: normalisation, conversation memory).
 */
export type StagePhase = "request" | "retrieval" | "context" | "generation" | "post";

/**
 * One step of a pipeline.
 *
 * @typeParam State - the request state the stage reads and writes (`PredictState`, or the
 *   `RetrievalState` shared by `predict` and `search`; a stage written for `RetrievalState` fits
 *   both pipelines).
 * @example
 * ```ts
 * const dropShortChunks: Stage<RetrievalState> = {
 *   name: "drop-short-chunks",
 *   run(state) {
 *     state.chunks = state.chunks.filter((result) => result.chunk.text.length >= 40);
 *   },
 * };
 * ```
 */
export interface Stage<State> {
  /** Kebab-case name, unique in its pipeline; used in logs, timings and to edit the list. */
  readonly name: string;
  /**
   * The PERF phase the stage's time counts toward; default the phase of the stage before it
   * (`request` for a first stage), so a stage inserted among the retrieval stages counts as
   * retrieval.
   */
  readonly phase?: StagePhase | undefined;
  /**
   * Does the stage's work on `state` (mutated in place). May be async.
   *
   * @throws whatever the stage's work throws; the pipeline stops and the request fails with it.
   */
  run(state: State, runtime: Runtime): void | Promise<void>;
}

/** How long a stage took, in the order the stages ran. */
export interface StageTiming {
  stage: string;
  phase: StagePhase;
  /** Milliseconds, fractional (`performance.now()` differences). */
  milliseconds: number;
}
