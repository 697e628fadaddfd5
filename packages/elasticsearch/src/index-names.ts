/**
 * Names of an organisation's indexes. Each organisation has two indexes, each reached through an
 * alias that carries the documented name:
 *
 * | Alias (used by every request) | Index behind it | Holds |
 * |---|---|---|
 * | `<FULLTEXT_INDEX>_<suffix>` | `<FULLTEXT_INDEX>_<suffix>_v1` | chunks |
 * | `<FULLTEXT_INDEX>_<suffix>_registry` | `<FULLTEXT_INDEX>_<suffix>_registry_v1` | committed document versions |
 *
 * `<suffix>` is `organisationSuffix(orgId)` from `@docqa/core` (`[a-z0-9_]` only, injective).
 * Writes are sent with `require_alias=true`, so a write to an organisation whose indexes were
 * deleted behind docqa's back fails instead of letting the engine auto-create an index with
 * dynamic mappings (where ACL tokens would be analysed text, not exact keywords). The `_v1`
 * indexes also leave room to migrate mappings later by reindexing and moving the alias.
 */
import { DocqaError } from "@docqa/core";
import { organisationSuffix } from "@docqa/core/stores";

/** The indexes of one organisation. */
export interface OrganisationIndexNames {
  /** Alias of the chunk index: `<base>_<suffix>`. */
  chunks: string;
  /** The chunk index behind {@link chunks}: `<base>_<suffix>_v1`. */
  chunksIndex: string;
  /** Alias of the registry index: `<base>_<suffix>_registry`. */
  registry: string;
  /** The registry index behind {@link registry}: `<base>_<suffix>_registry_v1`. */
  registryIndex: string;
}

/** Version of the index layout (mappings and analyzer), the `_v<n>` of physical index names. */
export const indexLayoutVersion = 1;

/**
 * Longest accepted base name, in characters: engines limit index names to 255 bytes, and the
 * longest name built from a base adds 63 (`_`, a suffix of up to 50, `_registry_v1`).
 */
export const maximumIndexBaseLength = 192;

const indexBasePattern = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * Checks a base index name (`FULLTEXT_INDEX`): lower-case ASCII letters, digits, `_`, `.` and
 * `-`, starting with a letter or digit (Elasticsearch and OpenSearch refuse upper case, and names
 * starting with `_`, `-`, `+` or `.`), at most {@link maximumIndexBaseLength} characters.
 *
 * @returns the base, unchanged.
 * @throws {DocqaError} `config_invalid` naming `FULLTEXT_INDEX` and the rule broken.
 */
export function validateIndexBase(base: string): string {
  if (!indexBasePattern.test(base) || base.length > maximumIndexBaseLength) {
    throw new DocqaError(
      "config_invalid",
      `FULLTEXT_INDEX ${JSON.stringify(base)} is not a valid index base name: use 1 to ${maximumIndexBaseLength} lower-case letters, digits, "_", "." or "-", starting with a letter or digit`,
      { component: "search-engine" },
    );
  }
  return base;
}

/**
 * The index names of organisation `orgId` under base `base` (already validated).
 *
 * @example
 * ```ts
 * organisationIndexNames("docs_bm25", "3f2c0e1a-0000-4000-8000-000000000001").chunks;
 * // "docs_bm25_3f2c0e1a_0000_4000_8000_000000000001"
 * ```
 */
export function organisationIndexNames(base: string, orgId: string): OrganisationIndexNames {
  const suffix = organisationSuffix(orgId);
  if (!/^[a-z0-9_]+$/.test(suffix)) {
    throw new DocqaError("internal_error", `organisation suffix ${JSON.stringify(suffix)} is not lower-case [a-z0-9_]`, {
      component: "search-engine",
    });
  }
  const chunks = `${base}_${suffix}`;
  const registry = `${chunks}_registry`;
  return {
    chunks,
    chunksIndex: `${chunks}_v${indexLayoutVersion}`,
    registry,
    registryIndex: `${registry}_v${indexLayoutVersion}`,
  };
}
