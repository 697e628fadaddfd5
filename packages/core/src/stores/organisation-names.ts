/**
 * Per-organisation collection and index names (spec: "Base collection name (per organisation
 * suffix added)"). The mapping is injective, so two organisations never share a collection.
 */
import { createHash } from "node:crypto";

const lowerCaseUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The suffix that identifies an organisation in collection and index names, using only
 * `[a-z0-9_]`.
 *
 * - A lower-case UUID becomes the UUID with `-` replaced by `_` (readable, and unique).
 * - Anything else becomes a sanitised prefix, `_h`, and 16 hex digits of its SHA-256, so that
 *   ids differing only in case or punctuation still map to different names (a UUID suffix never
 *   contains `h`, so the two forms cannot collide).
 */
export function organisationSuffix(orgId: string): string {
  if (lowerCaseUuid.test(orgId)) return orgId.replaceAll("-", "_");
  const readable = orgId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 32);
  const digest = createHash("sha256").update(orgId, "utf8").digest("hex").slice(0, 16);
  return `${readable}_h${digest}`;
}

/** The per-organisation name: `<base>_<suffix>`, for example `docs_collection_3f2c..._...`. */
export function organisationCollectionName(base: string, orgId: string): string {
  return `${base}_${organisationSuffix(orgId)}`;
}
