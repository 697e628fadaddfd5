import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { createIngestionAdmission } from "./ingestion-admission.js";

function refusal(attempt: () => unknown): DocqaError {
  try {
    attempt();
  } catch (error) {
    if (DocqaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("ingestion admission (INGESTION_QUEUE_SIZE)", () => {
  it("accepts up to the limit, refuses the next with ingestion_busy and a Retry-After, and accepts again once one finishes", () => {
    const admission = createIngestionAdmission({ limit: 2, concurrency: 1 });
    const first = admission.admit();
    admission.admit();
    expect(admission.pending).toBe(2);
    const refused = refusal(() => admission.admit());
    expect(refused.code).toBe("ingestion_busy");
    expect(refused.retryAfterSeconds).toBe(5);
    expect(refused.publicMessage).toBe("2 ingestion requests are in progress (INGESTION_QUEUE_SIZE is 2); retry after 5 s");
    expect(refusal(() => admission.check()).code).toBe("ingestion_busy");
    expect(admission.pending).toBe(2);
    first();
    first();
    expect(admission.pending).toBe(1);
    admission.check();
    admission.admit();
    expect(admission.pending).toBe(2);
  });

  it("accepts a resumed job even when full (force), and estimates Retry-After from finished requests", () => {
    const admission = createIngestionAdmission({ limit: 1, concurrency: 2 });
    const release = admission.admit();
    const resumed = admission.admit({ force: true });
    expect(admission.pending).toBe(2);
    release();
    resumed();
    admission.admit();
    // Requests finished in well under a second: the estimate is the minimum, one second.
    expect(refusal(() => admission.admit()).retryAfterSeconds).toBe(1);
  });
});
