import { describe, expect, it } from "vitest";
import { defaultDenseThreshold, fallbackDenseThreshold } from "./dense-thresholds.js";

describe("defaultDenseThreshold", () => {
  it("gives each measured model family its threshold, and others the fallback", () => {
    expect(defaultDenseThreshold("Xenova/bge-small-en-v1.5")).toBe(0.67);
    expect(defaultDenseThreshold("BAAI/bge-base-en-v1.5")).toBe(0.67);
    expect(defaultDenseThreshold("Xenova/all-MiniLM-L6-v2")).toBe(0.5);
    expect(defaultDenseThreshold("docqa-deterministic-hash-64")).toBe(fallbackDenseThreshold);
    expect(fallbackDenseThreshold).toBe(0.5);
  });
});
