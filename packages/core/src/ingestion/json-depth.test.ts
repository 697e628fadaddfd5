import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { assertJsonDepth, jsonDepth } from "./json-depth.js";

describe("jsonDepth", () => {
  it("counts levels of arrays and objects: 0 for a scalar, 1 for a flat object", () => {
    expect(jsonDepth("text")).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({ a: 1, b: "x" })).toBe(1);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [1, { b: [] }], c: {} })).toBe(4);
  });

  it("measures 100,000 levels without overflowing the stack, and stops early past a bound", () => {
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expect(jsonDepth(deep)).toBe(100_000);
    expect(jsonDepth(deep, 64)).toBe(65);
  });

  it("assertJsonDepth accepts the limit and refuses one level more with json_too_deep", () => {
    const value = { a: { b: { c: 1 } } };
    expect(() => assertJsonDepth(value, 3, "the body")).not.toThrow();
    let error: unknown;
    try {
      assertJsonDepth(value, 2, "the body");
    } catch (caught) {
      error = caught;
    }
    expect(DocqaError.isInstance(error) && error.code).toBe("json_too_deep");
    expect((error as DocqaError).publicMessage).toBe("the body is nested more than 2 levels deep (MAX_JSON_DEPTH)");
  });
});
