/**
 * Editing a pipeline's stage list: insert, replace or remove a stage by name. Each helper returns
 * a {@link StageEdit}, a function from the default list to the new one, which is what
 * `createRagService({ stages: { predict, search } })` takes; {@link composeEdits} chains several.
 *
 * @example
 * ```ts
 * createRagService({ stages: { predict: insertAfter("rerank", mmrStage({ lambda: 0.7 })) } });
 * ```
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { Stage } from "./stage.js";

/** Turns a stage list into another; never mutates its input. */
export type StageEdit<State> = (stages: readonly Stage<State>[]) => Stage<State>[];

function indexOf<State>(stages: readonly Stage<State>[], name: string): number {
  const index = stages.findIndex((stage) => stage.name === name);
  if (index < 0) {
    throw new DocqaError("config_invalid", `no pipeline stage named "${name}" (stages: ${stages.map((stage) => stage.name).join(", ")})`, {
      component: "pipeline",
    });
  }
  return index;
}

/**
 * Inserts `stage` right after the stage named `name`.
 *
 * @throws {DocqaError} `config_invalid` when no stage has that name, or when a stage named like
 *   `stage` is already in the list.
 */
export function insertAfter<State>(name: string, stage: Stage<State>): StageEdit<State> {
  return (stages) => {
    assertAbsent(stages, stage.name);
    const index = indexOf(stages, name);
    return [...stages.slice(0, index + 1), stage, ...stages.slice(index + 1)];
  };
}

/**
 * Inserts `stage` right before the stage named `name`.
 *
 * @throws {DocqaError} `config_invalid` as {@link insertAfter}.
 */
export function insertBefore<State>(name: string, stage: Stage<State>): StageEdit<State> {
  return (stages) => {
    assertAbsent(stages, stage.name);
    const index = indexOf(stages, name);
    return [...stages.slice(0, index), stage, ...stages.slice(index)];
  };
}

/**
 * Replaces the stage named `name` with `stage` (which may keep the name or bring its own).
 *
 * @throws {DocqaError} `config_invalid` when no stage has that name.
 */
export function replaceStage<State>(name: string, stage: Stage<State>): StageEdit<State> {
  return (stages) => {
    const index = indexOf(stages, name);
    return [...stages.slice(0, index), stage, ...stages.slice(index + 1)];
  };
}

/**
 * Removes the stage named `name`.
 *
 * @throws {DocqaError} `config_invalid` when no stage has that name.
 */
export function removeStage<State>(name: string): StageEdit<State> {
  return (stages) => {
    const index = indexOf(stages, name);
    return [...stages.slice(0, index), ...stages.slice(index + 1)];
  };
}

/** Applies `edits` in order. */
export function composeEdits<State>(...edits: StageEdit<State>[]): StageEdit<State> {
  return (stages) => edits.reduce<Stage<State>[]>((current, edit) => edit(current), [...stages]);
}

function assertAbsent<State>(stages: readonly Stage<State>[], name: string): void {
  if (stages.some((stage) => stage.name === name)) {
    throw new DocqaError("config_invalid", `the pipeline already has a stage named "${name}"`, { component: "pipeline" });
  }
}
