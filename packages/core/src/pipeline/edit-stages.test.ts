import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { defaultPredictStages } from "./default-stages.js";
import { composeEdits, insertAfter, insertBefore, removeStage, replaceStage } from "./edit-stages.js";
import type { PredictState } from "./request-state.js";
import type { Stage } from "./stage.js";

const names = (stages: readonly Stage<PredictState>[]) => stages.map((stage) => stage.name);
const extra: Stage<PredictState> = { name: "extra", run() {} };

describe("stage list edits", () => {
  it("lists the default predict stages in the spec's processing order", () => {
    expect(names(defaultPredictStages)).toEqual([
      "normalize",
      "conversation",
      "rewrite-follow-up",
      "plan",
      "retrieve",
      "access-filter",
      "rerank",
      "select-top-k",
      "expand-summaries",
      "build-context",
      "rank-evidence",
      "answer-from-table",
      "decide-answerable",
      "generate",
      "resolve-citations",
      "check-citations",
      "record-memory",
    ]);
  });

  it("inserts after and before a named stage without changing the input list", () => {
    const before = names(defaultPredictStages);
    expect(names(insertAfter("rerank", extra)(defaultPredictStages)).slice(5, 9)).toEqual([
      "access-filter",
      "rerank",
      "extra",
      "select-top-k",
    ]);
    expect(names(insertBefore("generate", extra)(defaultPredictStages)).slice(12, 15)).toEqual(["decide-answerable", "extra", "generate"]);
    expect(names(defaultPredictStages)).toEqual(before);
  });

  it("replaces and removes a named stage, and composes edits in order", () => {
    const edited = composeEdits(replaceStage<PredictState>("rerank", extra), removeStage("record-memory"))(defaultPredictStages);
    expect(names(edited)).toContain("extra");
    expect(names(edited)).not.toContain("rerank");
    expect(names(edited).at(-1)).toBe("check-citations");
    expect(edited).toHaveLength(defaultPredictStages.length - 1);
  });

  it("refuses an unknown stage name and a duplicate insertion with config_invalid", () => {
    const unknown = () => insertAfter("no-such-stage", extra)(defaultPredictStages);
    expect(unknown).toThrow(DocqaError);
    expect(unknown).toThrow(/no pipeline stage named "no-such-stage"/);
    const twice = () => composeEdits(insertAfter("plan", extra), insertAfter("retrieve", extra))(defaultPredictStages);
    expect(twice).toThrow(/already has a stage named "extra"/);
  });
});
