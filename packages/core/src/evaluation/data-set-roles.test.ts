import { describe, expect, it } from "vitest";
import { dataSetRole } from "./data-set-roles.js";

describe("dataSetRole", () => {
  it("names the tuning and reporting sets by their folder, with or without a trailing slash", () => {
    expect(dataSetRole("../shared/data/qa/squad-v2-dev-calibration").role).toBe("tuning");
    expect(dataSetRole("/data/qa/squad-v2-dev-test/").role).toBe("reporting");
    expect(dataSetRole("qa/xquad-en").role).toBe("earlier-tuning");
    expect(dataSetRole("examples/evaluation/out-of-corpus-heldout.jsonl").role).toBe("reporting");
  });

  it("gives each half of the table set its own role, and the whole set a mixed one", () => {
    expect(dataSetRole("qa/wikitablequestions-150", "calibration").role).toBe("tuning");
    expect(dataSetRole("qa/wikitablequestions-150", "report").role).toBe("reporting");
    expect(dataSetRole("qa/wikitablequestions-150").role).toBe("mixed");
  });

  it("says when a set is not in the table", () => {
    expect(dataSetRole("/tmp/my-set")).toEqual({ role: "unlisted", note: expect.stringContaining("my-set is not in the table") });
    expect(dataSetRole("qa/squad-v2-dev-test", "report").role).toBe("unlisted");
  });
});
