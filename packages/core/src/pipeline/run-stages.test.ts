import { describe, expect, it } from "vitest";
import { phaseMilliseconds, resolvePhases, runStages } from "./run-stages.js";
import type { Runtime } from "./runtime.js";
import type { Stage, StageTiming } from "./stage.js";

interface CountingState {
  readonly timings: StageTiming[];
  readonly signal?: AbortSignal | undefined;
  visited: string[];
}

const runtime = {} as Runtime;
const visit = (name: string, phase?: Stage<CountingState>["phase"]): Stage<CountingState> => ({
  name,
  phase,
  run(state) {
    state.visited.push(name);
  },
});

describe("runStages", () => {
  it("runs the stages in order and appends one timing per stage with its resolved phase", async () => {
    const state: CountingState = { timings: [], visited: [] };
    const stages = [visit("a", "request"), visit("b", "retrieval"), visit("inserted"), visit("c", "post")];
    const seen: string[] = [];
    await runStages(stages, state, runtime, {
      beforeStage: (stage) => seen.push(`before ${stage.name}`),
      afterStage: (stage, timing) => seen.push(`after ${stage.name} ${timing.phase}`),
    });
    expect(state.visited).toEqual(["a", "b", "inserted", "c"]);
    expect(state.timings.map((timing) => [timing.stage, timing.phase])).toEqual([
      ["a", "request"],
      ["b", "retrieval"],
      ["inserted", "retrieval"],
      ["c", "post"],
    ]);
    expect(state.timings.every((timing) => timing.milliseconds >= 0)).toBe(true);
    expect(seen).toEqual([
      "before a",
      "after a request",
      "before b",
      "after b retrieval",
      "before inserted",
      "after inserted retrieval",
      "before c",
      "after c post",
    ]);
  });

  it("stops at the first error, without running later stages or timing the failed one", async () => {
    const state: CountingState = { timings: [], visited: [] };
    const failing: Stage<CountingState> = {
      name: "fails",
      run() {
        throw new Error("boom");
      },
    };
    await expect(runStages([visit("a"), failing, visit("b")], state, runtime)).rejects.toThrow("boom");
    expect(state.visited).toEqual(["a"]);
    expect(state.timings.map((timing) => timing.stage)).toEqual(["a"]);
  });

  it("stops between stages when the request is aborted", async () => {
    const controller = new AbortController();
    const state: CountingState = { timings: [], visited: [], signal: controller.signal };
    const abort: Stage<CountingState> = { name: "abort", run: () => controller.abort(new Error("client went away")) };
    await expect(runStages([abort, visit("after")], state, runtime)).rejects.toThrow("client went away");
    expect(state.visited).toEqual([]);
  });

  it("gives a first stage without a phase the request phase", () => {
    expect(resolvePhases([visit("x"), visit("y", "context"), visit("z")])).toEqual(["request", "context", "context"]);
  });

  it("sums and rounds milliseconds per phase", () => {
    expect(
      phaseMilliseconds([
        { stage: "a", phase: "retrieval", milliseconds: 1.4 },
        { stage: "b", phase: "retrieval", milliseconds: 1.4 },
        { stage: "c", phase: "generation", milliseconds: 10.6 },
      ]),
    ).toEqual({ request: 0, retrieval: 3, context: 0, generation: 11, post: 0 });
  });
});
