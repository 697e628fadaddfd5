import { describe, expect, it } from "vitest";
import { backgroundWeight } from "./word-frequency.js";

describe("backgroundWeight", () => {
  it("weighs common English words less than rare ones, and unknown words 1", () => {
    expect(backgroundWeight("the")).toBeLessThan(0.25);
    expect(backgroundWeight("best")).toBeLessThan(backgroundWeight("tyre"));
    expect(backgroundWeight("days")).toBeLessThan(backgroundWeight("probation"));
    expect(backgroundWeight("Tyre")).toBe(backgroundWeight("tyre"));
    expect(backgroundWeight("qwzxvbn")).toBe(1);
    expect(backgroundWeight("tyre")).toBeGreaterThan(0);
    expect(backgroundWeight("tyre")).toBeLessThan(1);
  });
});
