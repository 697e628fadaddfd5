/**
 * What the sweeper of uncommitted chunk versions (`@docqa/core`'s `SweepableIndex`) needs from
 * Elasticsearch or OpenSearch: the organisations whose chunk alias exists under this store's
 * base name (`_cat/aliases`, the organisation read from a chunk's `metadata.org_id`), the
 * (document, version) pairs one organisation's chunk index stores (a composite aggregation on
 * `doc_id` and `content_hash`, paged), and the deletion of exact versions (`_delete_by_query` on
 * `doc_version`).
 */
import { DocqaError } from "@docqa/core";
import type { StoredVersion, SweepableIndex } from "@docqa/core/stores";
import { documentVersionKey } from "./chunk-documents.js";
import { organisationIndexNames } from "./index-names.js";
import { encodePathSegment, isMissingIndex, type SearchEngineClient, unexpectedAnswer } from "./search-engine-client.js";
import { termsClause } from "./search-queries.js";

/**
 * Fails unless a `_delete_by_query` answer reports it deleted everything it matched.
 *
 * @throws {DocqaError} `store_unavailable` naming `what` when it timed out or reports failures.
 */
export function assertDeletedByQuery(search: SearchEngineClient, body: unknown, what: string): void {
  const result = body as { failures?: unknown; timed_out?: unknown };
  if (result.timed_out === true || (Array.isArray(result.failures) && result.failures.length > 0)) {
    throw new DocqaError(
      "store_unavailable",
      `${what} failed: ${result.timed_out === true ? "timed out" : JSON.stringify(result.failures).slice(0, 500)}`,
      { component: search.engine },
    );
  }
}

/** Buckets per page of the composite aggregation. */
const versionPageSize = 1_000;
/** Versions per `_delete_by_query`. */
const removeBatchSize = 1_000;

/** Creates the sweeping operations of a store on `base`. */
export function createSearchEngineSweep(
  connection: () => Promise<SearchEngineClient>,
  base: string,
): Pick<SweepableIndex, "organisations" | "storedVersions" | "removeVersions"> {
  return {
    async organisations() {
      const search = await connection();
      const response = await search.request(
        { method: "GET", path: `/_cat/aliases/${encodePathSegment(`${base}_*`)}`, querystring: { format: "json", h: "alias" } },
        { allowStatus: [404] },
      );
      if (!Array.isArray(response.body)) return [];
      const aliases = [
        ...new Set((response.body as { alias?: unknown }[]).map((row) => row.alias).filter((alias) => typeof alias === "string")),
      ].filter((alias) => !alias.endsWith("_registry"));
      const found: string[] = [];
      for (const alias of aliases.sort()) {
        const hit = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(alias)}/_search`,
            body: { size: 1, _source: ["metadata.org_id"], query: { match_all: {} } },
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(hit)) continue;
        const hits = (hit.body as { hits?: { hits?: { _source?: { metadata?: { org_id?: unknown } } }[] } }).hits?.hits;
        const orgId = hits?.[0]?._source?.metadata?.org_id;
        if (typeof orgId === "string" && organisationIndexNames(base, orgId).chunks === alias) found.push(orgId);
      }
      return found;
    },

    async storedVersions(orgId) {
      const search = await connection();
      const alias = organisationIndexNames(base, orgId).chunks;
      const versions: StoredVersion[] = [];
      let after: Record<string, unknown> | undefined;
      for (;;) {
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(alias)}/_search`,
            body: {
              size: 0,
              track_total_hits: false,
              aggs: {
                versions: {
                  composite: {
                    size: versionPageSize,
                    sources: [{ doc_id: { terms: { field: "doc_id" } } }, { content_hash: { terms: { field: "content_hash" } } }],
                    ...(after ? { after } : {}),
                  },
                },
              },
            },
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return [];
        const aggregation = (
          response.body as {
            aggregations?: {
              versions?: {
                buckets?: { key: { doc_id: string; content_hash: string }; doc_count: number }[];
                after_key?: Record<string, unknown>;
              };
            };
          }
        ).aggregations?.versions;
        if (!aggregation || !Array.isArray(aggregation.buckets)) throw unexpectedAnswer(search, "_search", response.body);
        for (const bucket of aggregation.buckets) {
          versions.push({ docId: bucket.key.doc_id, contentHash: bucket.key.content_hash, chunks: bucket.doc_count });
        }
        if (aggregation.buckets.length < versionPageSize || !aggregation.after_key) return versions;
        after = aggregation.after_key;
      }
    },

    async removeVersions(orgId, versions) {
      if (versions.length === 0) return;
      const search = await connection();
      const alias = organisationIndexNames(base, orgId).chunks;
      for (let start = 0; start < versions.length; start += removeBatchSize) {
        const batch = versions.slice(start, start + removeBatchSize);
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(alias)}/_delete_by_query`,
            querystring: { refresh: true, conflicts: "proceed" },
            body: {
              query: {
                bool: {
                  filter: [
                    termsClause(
                      "doc_version",
                      batch.map((version) => documentVersionKey(version.docId, version.contentHash)),
                    ),
                  ],
                },
              },
            },
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return;
        assertDeletedByQuery(search, response.body, `removing uncommitted versions from ${alias}`);
      }
    },
  };
}
