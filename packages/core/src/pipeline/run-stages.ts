/**
 * Runs a pipeline: each stage in order on one request state, timed by this one wrapper (no stage
 * times itself). Cross-cutting work hooks in here instead of living inside the stages: PERF
 * events through {@link StageHooks}, and here itself one OpenTelemetry span per stage
 * (`docqa.stage.<name>`, covering exactly the stage's timing) and the stage metric events
 * (`runtime.metrics`).
 */
import { context, trace } from "@opentelemetry/api";
import { activeSpanClock, startSpanClock, withSpanClockIn } from "../telemetry/span-clock.js";
import { stateAttributes } from "../telemetry/state-attributes.js";
import { docqaTracer, errorCodeOf, recordSpanError } from "../telemetry/tracing.js";
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

/** Options of {@link runStages}: the hooks, and the pipeline's name for spans and metrics. */
export interface RunStagesOptions<State> extends StageHooks<State> {
  /** `predict`, `search`, or a name of your own; default `pipeline`. The `docqa.pipeline` span attribute and metric label. */
  pipeline?: string | undefined;
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
 * Runs `stages` in order on `state`, appending each stage's timing to `state.timings`. Each
 * stage runs inside its span `docqa.stage.<name>` (attributes `docqa.pipeline`,
 * `docqa.stage.name`, `docqa.stage.index`, `docqa.stage.phase`, and after the stage the state's
 * counts, see `stateAttributes`), started and ended at the instants its timing is measured
 * between, on the request's clock (`span-clock.ts`), so the span durations are the timings and
 * consecutive stage spans never overlap; spans the stage starts are its children.
 * `runtime.metrics` receives one `stage` event per stage, failed ones included.
 *
 * @throws the first error a stage throws (later stages do not run); the abort reason when
 *   `state.signal` is aborted between stages.
 */
export async function runStages<State extends { readonly timings: StageTiming[]; readonly signal?: AbortSignal | undefined }>(
  stages: readonly Stage<State>[],
  state: State,
  runtime: Runtime,
  options: RunStagesOptions<State> = {},
): Promise<State> {
  const phases = resolvePhases(stages);
  const pipeline = options.pipeline ?? "pipeline";
  const tracer = docqaTracer();
  const clock = activeSpanClock() ?? startSpanClock();
  for (const [index, stage] of stages.entries()) {
    state.signal?.throwIfAborted();
    options.beforeStage?.(stage, state);
    const phase = phases[index] as StagePhase;
    const started = performance.now();
    const span = tracer.startSpan(`docqa.stage.${stage.name}`, {
      startTime: clock.time(started),
      attributes: { "docqa.pipeline": pipeline, "docqa.stage.name": stage.name, "docqa.stage.index": index, "docqa.stage.phase": phase },
    });
    try {
      await context.with(trace.setSpan(withSpanClockIn(context.active(), clock), span), () => stage.run(state, runtime));
    } catch (error) {
      const failed = performance.now();
      recordSpanError(span, error);
      span.end(clock.time(failed));
      runtime.metrics?.stage?.({
        pipeline,
        stage: stage.name,
        phase,
        seconds: (failed - started) / 1000,
        outcome: "error",
        errorCode: errorCodeOf(error),
      });
      throw error;
    }
    const finished = performance.now();
    span.setAttributes(stateAttributes(state));
    span.end(clock.time(finished));
    const timing: StageTiming = { stage: stage.name, phase, milliseconds: finished - started };
    state.timings.push(timing);
    runtime.metrics?.stage?.({ pipeline, stage: stage.name, phase, seconds: timing.milliseconds / 1000, outcome: "ok", errorCode: null });
    options.afterStage?.(stage, timing, state);
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
