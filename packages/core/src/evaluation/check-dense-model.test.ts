import { describe, expect, it } from "vitest";
import { checkDenseModel, denseModelCheckTolerance } from "./check-dense-model.js";

describe("checkDenseModel", () => {
  it("passes a figure within the tolerance of the published one", () => {
    const check = checkDenseModel("Xenova/bge-small-en-v1.5", "scifact", 0.7197);
    expect(check).toMatchObject({ status: "passed", published: 0.71273, tolerance: denseModelCheckTolerance });
  });

  it("fails a figure far from the published one, as a wrong embedding gives", () => {
    expect(checkDenseModel("BAAI/bge-small-en-v1.5", "SciFact", 0.52).status).toBe("failed");
    expect(checkDenseModel("BAAI/bge-small-en-v1.5", "scifact", 0.6926).status).toBe("failed");
    expect(checkDenseModel("BAAI/bge-small-en-v1.5", "scifact", 0.77).status).toBe("failed");
  });

  it("knows all-MiniLM-L6-v2 on SciFact, and passes a chunked figure above the published one", () => {
    expect(checkDenseModel("Xenova/all-MiniLM-L6-v2", "scifact", 0.6469)).toMatchObject({ status: "passed", published: 0.6451 });
    expect(checkDenseModel("Xenova/all-MiniLM-L6-v2", "scifact", 0.6681).status).toBe("passed");
  });

  it("reports unknown for a model or data set without a published figure", () => {
    expect(checkDenseModel("Xenova/bge-base-en-v1.5", "scifact", 0.7).status).toBe("unknown");
    expect(checkDenseModel("Xenova/bge-small-en-v1.5", "nfcorpus", 0.3).status).toBe("unknown");
  });
});
