/**
 * Filters an index applies before scoring, so that top-k is filled with chunks the caller may
 * read (ACL pre-filtering) and that match the requested metadata.
 */
import { evaluateAccess } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
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
