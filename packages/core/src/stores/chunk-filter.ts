/**
 * Filters an index applies before scoring, so that top-k is filled with chunks the caller may
 * read (ACL pre-filtering) and that match the requested metadata.
 */
import type { Principal } from "../acl/principal.js";

/** A condition on one metadata key. `created_at` and other ISO dates compare as strings. */
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
