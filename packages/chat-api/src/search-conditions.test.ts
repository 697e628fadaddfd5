import { describe, expect, it } from "vitest";
import { createdAtBound, searchConditions } from "./search-conditions.js";

describe("searchConditions", () => {
  it("maps type, source, the created_at range and other keys to metadata conditions", () => {
    expect(
      searchConditions({
        type: "pdf",
        source: ["wiki", "intranet"],
        created_after: "2024-01-01",
        created_before: "2024-03-31",
        department: "hr",
        page: { gte: 3, lte: 5 },
        archived: false,
        tags: ["a"],
      }),
    ).toEqual([
      { key: "type", op: "eq", value: "pdf" },
      { key: "source", op: "in", values: ["wiki", "intranet"] },
      { key: "created_at", op: "gte", value: "2024-01-01" },
      { key: "created_at", op: "lte", value: "2024-03-31T23:59:59.999Z" },
      { key: "department", op: "eq", value: "hr" },
      { key: "page", op: "gte", value: 3 },
      { key: "page", op: "lte", value: 5 },
      { key: "archived", op: "eq", value: false },
      { key: "tags", op: "eq", value: "a" },
    ]);
  });

  it("gives no conditions for absent filters", () => {
    expect(searchConditions(undefined)).toEqual([]);
    expect(searchConditions({})).toEqual([]);
  });
});

describe("createdAtBound", () => {
  it("keeps a date as a lower bound, extends it to the day's end as an upper bound, and converts date-times to UTC", () => {
    expect(createdAtBound("2024-05-01", "lower")).toBe("2024-05-01");
    expect(createdAtBound("2024-05-01", "upper")).toBe("2024-05-01T23:59:59.999Z");
    expect(createdAtBound("2024-05-01T10:00:00+02:00", "lower")).toBe("2024-05-01T08:00:00.000Z");
    expect(createdAtBound("2024-05-01T10:00:00Z", "upper")).toBe("2024-05-01T10:00:00.000Z");
  });
});
