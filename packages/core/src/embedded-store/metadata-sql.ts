/**
 * Metadata filters of the embedded store as SQL: each `MetadataCondition` becomes a clause on the
 * `metadata` JSON column of the `chunks` table, evaluated by SQLite's JSON functions with a type
 * check, so values compare only with values of the same type (see `MetadataCondition`).
 */
import { assertMetadataKey, type MetadataCondition } from "../stores/chunk-filter.js";

/**
 * The query selecting the `id` of every chunk row whose metadata satisfies all `conditions`,
 * and its positional parameters. Conditions are joined with `AND`; an `in` condition with no
 * values matches nothing. Each key becomes one quoted JSON path member, `$."key"`, bound as a
 * parameter; keys are checked against `metadataKeyPattern` first, so no quote, backslash or NUL
 * can end the member or make the path malformed (SQLite's "bad JSON path").
 *
 * @param conditions - at least one condition (at most `maximumMetadataConditions`, checked by the
 *   service, which keeps the expression within SQLite's depth limit).
 * @returns `sql` (`SELECT id FROM chunks WHERE …`) and `parameters` for its `?` placeholders,
 *   booleans as 1 or 0.
 * @throws {DocqaError} `invalid_request` for a key outside `metadataKeyPattern`.
 */
export function metadataSql(conditions: readonly MetadataCondition[]): { sql: string; parameters: (string | number)[] } {
  const clauses: string[] = [];
  const parameters: (string | number)[] = [];
  const typed = (path: string, value: string | number | boolean, operator: "=" | ">=" | "<=") => {
    parameters.push(path, path, sqlValue(value));
    return `(json_type(metadata, ?) IN (${sqlTypes(value)}) AND json_extract(metadata, ?) ${operator} ?)`;
  };
  for (const condition of conditions) {
    assertMetadataKey(condition.key, "embedded-store");
    const path = `$."${condition.key}"`;
    switch (condition.op) {
      case "eq":
        clauses.push(typed(path, condition.value, "="));
        break;
      case "in":
        clauses.push(`(${condition.values.map((value) => typed(path, value, "=")).join(" OR ") || "0"})`);
        break;
      case "gte":
        clauses.push(typed(path, condition.value, ">="));
        break;
      case "lte":
        clauses.push(typed(path, condition.value, "<="));
        break;
    }
  }
  return { sql: `SELECT id FROM chunks WHERE ${clauses.join(" AND ")}`, parameters };
}

/** The `json_type` names of a value's type, as an SQL list. */
function sqlTypes(value: string | number | boolean): string {
  if (typeof value === "string") return "'text'";
  if (typeof value === "number") return "'integer', 'real'";
  return "'true', 'false'";
}

/** A value as SQLite's JSON functions return it: booleans as 1 or 0. */
function sqlValue(value: string | number | boolean): string | number {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}
