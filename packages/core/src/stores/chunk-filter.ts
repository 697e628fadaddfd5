/**
 * Filters an index applies before scoring, so that top-k is filled with chunks the caller may
 * read (ACL pre-filtering) and that match the requested metadata.
 */
import { evaluateAccess } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { ChunkRecord } from "./chunk-record.js";

/**
 * A condition on one metadata key. Values compare only with values of the same type: strings
 * lexicographically (so ISO 8601 dates such as `created_at` compare in time order), numbers
 * numerically, booleans by equality; a missing key or a value of another type does not match.
 */
export type MetadataCondition =
  | { key: string; op: "eq"; value: string | number | boolean }
  | { key: string; op: "in"; values: readonly (string | number | boolean)[] }
  | { key: string; op: "gte" | "lte"; value: string | number };

/**
 * The grammar of a metadata key a condition may name: 1 to 128 ASCII letters, digits, `_`, `-`,
 * `.`, `:` or `@`. Quotes, backslashes, NUL and other control characters, spaces, brackets and
 * operators are refused, so no key can change the SQLite JSON path, the Milvus expression or the
 * search-engine query it is placed in, whatever the store. ASCII only, so that the OpenAPI
 * documents can state the same grammar as a pattern every JSON Schema validator reads alike.
 */
export const metadataKeyPattern = /^[A-Za-z0-9_.:@-]{1,128}$/;

/**
 * Most conditions in one filter. Bounds the expression a store builds (SQLite refuses an
 * expression tree deeper than 1,000, `SQLITE_MAX_EXPR_DEPTH`; OpenSearch and Elasticsearch refuse
 * more than 1,024 clauses by default, `indices.query.bool.max_clause_count`); `POST /api/search`
 * allows 32 filter keys, each at most two conditions (a range).
 */
export const maximumMetadataConditions = 64;

/** Most values of one `in` condition (the 100 items of a list in `POST /api/search` filters). */
export const maximumMetadataValues = 100;

/**
 * Checks metadata conditions before any store sees them: at most
 * {@link maximumMetadataConditions}, each naming a key of {@link metadataKeyPattern}, a known
 * `op`, values of the types the op takes (finite numbers), and at most
 * {@link maximumMetadataValues} values in an `in`. Called once at the service's boundary
 * (`RagService.search`), so every store gets the same validation; stores that place keys in
 * query text check the key again.
 *
 * @param component - named in the error message.
 * @throws {DocqaError} `invalid_request` naming the first problem.
 */
export function assertMetadataConditions(conditions: readonly MetadataCondition[], component = "search"): void {
  const refuse = (problem: string) => new DocqaError("invalid_request", `metadata filter: ${problem}`, { component });
  if (conditions.length > maximumMetadataConditions) {
    throw refuse(`${conditions.length} conditions; at most ${maximumMetadataConditions} are allowed`);
  }
  const scalar = (value: unknown) =>
    typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
  for (const condition of conditions as readonly Record<string, unknown>[]) {
    const key = condition.key;
    assertMetadataKey(key, component);
    const values = condition.values;
    switch (condition.op) {
      case "eq":
        if (!scalar(condition.value)) throw refuse(`${key}: eq takes a string, a finite number or a boolean`);
        break;
      case "in":
        if (!Array.isArray(values) || !values.every(scalar)) throw refuse(`${key}: in takes a list of strings, finite numbers or booleans`);
        if (values.length > maximumMetadataValues)
          throw refuse(`${key}: ${values.length} values; at most ${maximumMetadataValues} are allowed`);
        break;
      case "gte":
      case "lte":
        if (typeof condition.value !== "string" && !(typeof condition.value === "number" && Number.isFinite(condition.value))) {
          throw refuse(`${key}: ${condition.op} takes a string or a finite number`);
        }
        break;
      default:
        throw refuse(`${key}: op must be eq, in, gte or lte`);
    }
  }
}

/**
 * Checks one metadata key against {@link metadataKeyPattern}.
 *
 * @throws {DocqaError} `invalid_request` quoting the key (at most 80 characters, as JSON).
 */
export function assertMetadataKey(key: unknown, component = "search"): asserts key is string {
  if (typeof key === "string" && metadataKeyPattern.test(key)) return;
  const shown = typeof key === "string" ? JSON.stringify(key.slice(0, 80)) : String(typeof key);
  throw new DocqaError(
    "invalid_request",
    `metadata filter key ${shown} is not allowed: keys are 1 to 128 ASCII letters, digits, "_", "-", ".", ":" or "@"`,
    { component },
  );
}

/** What a search may return. */
export interface ChunkFilter {
  /**
   * Only chunks this principal may read under the spec's seven ACL rules. Required for every
   * user-facing search; omit only for administrative operations.
   */
  principal?: Principal | undefined;
  /** Only chunks of these documents. */
  docIds?: readonly string[] | undefined;
  /** Every condition must hold. */
  metadata?: readonly MetadataCondition[] | undefined;
}

/**
 * Whether `chunk` passes `filter`: the reference semantics every index implements, and the check
 * applied after an engine's own pre-filter for conditions it cannot express.
 */
export function matchesChunkFilter(chunk: ChunkRecord, filter: ChunkFilter): boolean {
  if (filter.docIds && !filter.docIds.includes(chunk.docId)) return false;
  if (filter.principal && !evaluateAccess(filter.principal, chunk).granted) return false;
  for (const condition of filter.metadata ?? []) if (!matchesCondition(chunk.metadata[condition.key], condition)) return false;
  return true;
}

/** Whether a metadata value satisfies one condition, by the rules of {@link MetadataCondition}. */
export function matchesCondition(value: unknown, condition: MetadataCondition): boolean {
  switch (condition.op) {
    case "eq":
      return value === condition.value;
    case "in":
      return condition.values.some((candidate) => candidate === value);
    case "gte":
      return typeof value === typeof condition.value && (value as string | number) >= condition.value;
    case "lte":
      return typeof value === typeof condition.value && (value as string | number) <= condition.value;
  }
}
