/**
 * Runs a pipeline: each stage in order on one request state, timed by this one wrapper (no stage
 * times itself). Cross-cutting work (PERF events, traces, logs) hooks in here through
 * {@link StageHooks} instead of living inside the stages.
 */
import type { Runtime } from "./runtime.js";
import type { Stage, StagePhase, StageTiming } from "./stage.js";

/** Observers of a pipeline run. */
export interface StageHooks<State> {
  /** Called before a stage runs. */
  beforeStage?(stage: Stage<State>, state: State): void;
  /**
   * Called after a stage finished, with its timing (also appended to `timings`). Not called
   * when the stage throws.
   */
  afterStage?(stage: Stage<State>, timing: StageTiming, state: State): void;
}

/**
 * The phase each stage counts toward: its own, else that of the stage before it, else `request`.
 */
export function resolvePhases<State>(stages: readonly Stage<State>[]): StagePhase[] {
  const phases: StagePhase[] = [];
  let previous: StagePhase = "request";
  for (const stage of stages) {
    previous = stage.phase ?? previous;
    phases.push(previous);
  }
  return phases;
}

/**
 * Runs `stages` in order on `state`, appending each stage's timing to `state.timings`.
 *
 * @throws the first error a stage throws (later stages do not run); the abort reason when
 *   `state.signal` is aborted between stages.
 */
export async function runStages<State extends { readonly timings: StageTiming[]; readonly signal?: AbortSignal | undefined }>(
  stages: readonly Stage<State>[],
  state: State,
  runtime: Runtime,
  hooks: StageHooks<State> = {},
): Promise<State> {
  const phases = resolvePhases(stages);
  for (const [index, stage] of stages.entries()) {
    state.signal?.throwIfAborted();
    hooks.beforeStage?.(stage, state);
    const started = performance.now();
    await stage.run(state, runtime);
    const timing: StageTiming = { stage: stage.name, phase: phases[index] as StagePhase, milliseconds: performance.now() - started };
    state.timings.push(timing);
    hooks.afterStage?.(stage, timing, state);
  }
  return state;
}

/** Milliseconds spent per phase, summed over `timings`, rounded to integers (the PERF convention). */
export function phaseMilliseconds(timings: readonly StageTiming[]): Record<StagePhase, number> {
  const totals: Record<StagePhase, number> = { request: 0, retrieval: 0, context: 0, generation: 0, post: 0 };
  for (const timing of timings) totals[timing.phase] += timing.milliseconds;
  for (const phase of Object.keys(totals) as StagePhase[]) totals[phase] = Math.round(totals[phase]);
  return totals;
}
