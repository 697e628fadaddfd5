/**
 * Translates the `filters` of `POST /api/search` into the core's metadata conditions
 * (`MetadataCondition`: `eq`, `in`, `gte`, `lte` on one metadata key).
 */
import type { MetadataCondition } from "@docqa/core/stores";
import type { SearchFilters } from "./schemas.js";

type Scalar = string | number | boolean;

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date bound as stored `created_at` values compare: a date-time becomes ISO 8601 UTC with
 * milliseconds (`2024-05-01T10:00:00.000Z`, the form docqa stamps); a date stays a date for a
 * lower bound (it sorts before every time of that day) and becomes the day's last millisecond for
 * an upper bound, so that `created_before: "2024-05-01"` includes the whole of 1 May.
 */
export function createdAtBound(value: string, bound: "lower" | "upper"): string {
  if (dateOnly.test(value)) return bound === "lower" ? value : `${value}T23:59:59.999Z`;
  return new Date(value).toISOString();
}

function valueCondition(key: string, value: Scalar | readonly Scalar[]): MetadataCondition {
  if (!Array.isArray(value)) return { key, op: "eq", value: value as Scalar };
  return value.length === 1 ? { key, op: "eq", value: value[0] as Scalar } : { key, op: "in", values: value };
}

/**
 * The conditions of `filters`, all of which must hold:
 *
 * - `type`, `source`: equal to the value, or to any value of a list (`metadata.type`,
 *   `metadata.source`);
 * - `created_after`, `created_before`: `created_at` on or after, on or before (inclusive; see
 *   {@link createdAtBound});
 * - any other key: a value (equal), a list (any of), or `{gte, lte}` (inclusive range).
 *
 * Values compare only with stored values of the same JSON type (`"3"` does not match `3`).
 *
 * @example
 * ```ts
 * searchConditions({ type: "pdf", created_after: "2024-01-01", department: ["hr", "legal"] });
 * // [{ key: "type", op: "eq", value: "pdf" }, { key: "created_at", op: "gte", value: "2024-01-01" },
 * //  { key: "department", op: "in", values: ["hr", "legal"] }]
 * ```
 */
export function searchConditions(filters: SearchFilters | undefined): MetadataCondition[] {
  if (!filters) return [];
  const conditions: MetadataCondition[] = [];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (key === "created_after") conditions.push({ key: "created_at", op: "gte", value: createdAtBound(value as string, "lower") });
    else if (key === "created_before") conditions.push({ key: "created_at", op: "lte", value: createdAtBound(value as string, "upper") });
    else if (typeof value === "object" && !Array.isArray(value)) {
      const range = value as { gte?: string | number; lte?: string | number };
      if (range.gte !== undefined) conditions.push({ key, op: "gte", value: range.gte });
      if (range.lte !== undefined) conditions.push({ key, op: "lte", value: range.lte });
    } else conditions.push(valueCondition(key, value as Scalar | Scalar[]));
  }
  return conditions;
}
