import { describe, expect, it } from "vitest";
import { bulkFailures, describeBulkFailures, isRetryableFailure } from "./bulk-response.js";

describe("bulkFailures", () => {
  it("finds no failure when every item succeeded, and accepts deletes of missing documents", () => {
    const body = {
      errors: false,
      items: [
        { index: { _id: "a", status: 201, result: "created" } },
        { index: { _id: "b", status: 200, result: "updated" } },
        { delete: { _id: "c", status: 404, result: "not_found" } },
      ],
    };
    expect(bulkFailures(body, ["a", "b", "c"])).toEqual([]);
  });

  it("reports each failed item of a partial failure with its position, id, status and reason", () => {
    const body = {
      errors: true,
      items: [
        { index: { _id: "ok", status: 201, result: "created" } },
        {
          index: {
            _id: "bad",
            status: 400,
            error: {
              type: "document_parsing_exception",
              reason: "failed to parse field [owner_id]",
              caused_by: { type: "illegal_argument_exception", reason: "immense term" },
            },
          },
        },
        { index: { _id: "busy", status: 429, error: { type: "es_rejected_execution_exception", reason: "queue full" } } },
        {
          delete: { _id: "gone", status: 404, result: "not_found", error: { type: "index_not_found_exception", reason: "no such index" } },
        },
      ],
    };
    const failures = bulkFailures(body, ["ok", "bad", "busy", "gone"]);
    expect(failures).toEqual([
      {
        position: 1,
        action: "index",
        id: "bad",
        status: 400,
        type: "document_parsing_exception",
        reason: "failed to parse field [owner_id] (caused by illegal_argument_exception: immense term)",
      },
      { position: 2, action: "index", id: "busy", status: 429, type: "es_rejected_execution_exception", reason: "queue full" },
      { position: 3, action: "delete", id: "gone", status: 404, type: "index_not_found_exception", reason: "no such index" },
    ]);
    expect(failures.map(isRetryableFailure)).toEqual([false, true, false]);
  });

  it("counts items missing from the answer as failures", () => {
    expect(bulkFailures({ errors: false, items: [{ index: { _id: "a", status: 201 } }] }, ["a", "b"])).toEqual([
      { position: 1, action: "unknown", id: "b", status: 0, type: "missing_item", reason: "no answer for this item" },
    ]);
    expect(bulkFailures(undefined, ["a"])).toHaveLength(1);
  });
});

describe("describeBulkFailures", () => {
  it("summarises the count and the first failures", () => {
    const failures = Array.from({ length: 7 }, (_, position) => ({
      position,
      action: "index",
      id: `id-${position}`,
      status: 400,
      type: "mapper_parsing_exception",
      reason: "bad",
    }));
    expect(describeBulkFailures(failures, 10, 2)).toBe(
      '7 of 10 bulk items failed: index "id-0": 400 mapper_parsing_exception: bad; index "id-1": 400 mapper_parsing_exception: bad; and 5 more',
    );
  });
});
