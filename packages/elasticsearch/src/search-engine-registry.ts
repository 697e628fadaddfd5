/**
 * The document registry on Elasticsearch or OpenSearch: per organisation a registry index with
 * one document per committed document version (`doc_id`, `content_hash`, `derived_from`).
 * Committing here is what makes a version current in the staged protocol of `@docqa/core`
 * (write chunks → commit → prune). The index is created on the first commit that writes.
 */
import type { RegisteredDocument, StagedRegistry } from "@docqa/core";
import { type BulkOperation, registryDocumentId } from "./chunk-documents.js";
import { type IndexDefinitionSettings, registryIndexDefinition } from "./index-definitions.js";
import type { IndexLifecycle } from "./index-lifecycle.js";
import type { OrganisationIndexNames } from "./index-names.js";
import { encodePathSegment, errorType, isMissingIndex, type SearchEngineClient, unexpectedAnswer } from "./search-engine-client.js";
import { derivedDocumentsBody } from "./search-queries.js";

/** What the registry shares with the store that composes it. */
export interface SearchEngineRegistryContext {
  /** The connected client (connecting on first use). */
  connection: () => Promise<SearchEngineClient>;
  /** The index names of an organisation. */
  indexNames: (orgId: string) => OrganisationIndexNames;
  /** The store's index lifecycle. */
  indexes: IndexLifecycle;
  /** Settings of new indexes. */
  definitionSettings: IndexDefinitionSettings;
  /** Sends bulk operations to an alias (see `sendBulk`). */
  bulk: (search: SearchEngineClient, alias: string, operations: readonly BulkOperation[], what: string) => Promise<void>;
}

/** The registry operations of a search engine store. */
export type SearchEngineRegistry = Pick<StagedRegistry, "commit" | "contentHashes" | "derivedDocuments">;

/** Ids per `_mget` of the registry, and documents per page of a registry search. */
const registryBatchSize = 1_000;

/**
 * Creates the registry operations of a search engine store. An organisation without a registry
 * index has no committed documents.
 *
 * @throws {DocqaError} from each operation: `store_unavailable` when the engine cannot be reached,
 *   refuses, or answers in an unexpected shape.
 */
export function createSearchEngineRegistry(context: SearchEngineRegistryContext): SearchEngineRegistry {
  const { connection, indexNames, indexes, definitionSettings, bulk } = context;
  return {
    async contentHashes(orgId, docIds) {
      const hashes = new Map<string, string>();
      const unique = [...new Set(docIds)];
      if (unique.length === 0) return hashes;
      const search = await connection();
      const names = indexNames(orgId);
      for (let start = 0; start < unique.length; start += registryBatchSize) {
        const batch = unique.slice(start, start + registryBatchSize);
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.registry)}/_mget`,
            querystring: { _source_includes: "doc_id,content_hash" },
            body: { ids: batch.map(registryDocumentId) },
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return hashes;
        const docs = (response.body as { docs?: unknown }).docs;
        if (!Array.isArray(docs)) throw unexpectedAnswer(search, "_mget", response.body);
        const wanted = new Set(batch);
        for (const doc of docs as { found?: unknown; _source?: { doc_id?: unknown; content_hash?: unknown }; error?: unknown }[]) {
          if (doc.error !== undefined) {
            if (errorType({ error: doc.error }) === "index_not_found_exception") return hashes;
            throw unexpectedAnswer(search, "_mget", { error: doc.error });
          }
          const source = doc._source;
          if (doc.found !== true || !source) continue;
          if (typeof source.doc_id === "string" && wanted.has(source.doc_id) && typeof source.content_hash === "string") {
            hashes.set(source.doc_id, source.content_hash);
          }
        }
      }
      return hashes;
    },

    async derivedDocuments(orgId, sourceDocIds) {
      if (sourceDocIds.length === 0) return [];
      const search = await connection();
      const names = indexNames(orgId);
      const found: string[] = [];
      let after: unknown[] | undefined;
      for (;;) {
        const response = await search.request(
          {
            method: "POST",
            path: `/${encodePathSegment(names.registry)}/_search`,
            body: derivedDocumentsBody(sourceDocIds, registryBatchSize, after),
          },
          { allowStatus: [404] },
        );
        if (isMissingIndex(response)) return [];
        const hits = (response.body as { hits?: { hits?: unknown } }).hits?.hits;
        if (!Array.isArray(hits)) throw unexpectedAnswer(search, "_search", response.body);
        for (const hit of hits as { _source?: { doc_id?: unknown }; sort?: unknown[] }[]) {
          if (typeof hit._source?.doc_id === "string") found.push(hit._source.doc_id);
        }
        if (hits.length < registryBatchSize) return found;
        after = (hits[hits.length - 1] as { sort?: unknown[] }).sort;
      }
    },

    async commit(orgId, change: { write: readonly RegisteredDocument[]; remove: readonly string[] }) {
      if (change.write.length === 0 && change.remove.length === 0) return;
      const search = await connection();
      const names = indexNames(orgId);
      if (change.write.length > 0) {
        await indexes.ensure(search, names.registryIndex, names.registry, registryIndexDefinition(definitionSettings, names.registry));
      } else if (!(await indexes.exists(search, names.registry))) {
        return; // nothing was ever committed: nothing to remove
      }
      const operations: BulkOperation[] = [
        ...change.write.map((entry) => ({
          action: { index: { _id: registryDocumentId(entry.docId) } },
          document: { doc_id: entry.docId, content_hash: entry.contentHash, derived_from: [...(entry.derivedFrom ?? [])] },
        })),
        ...change.remove.map((docId) => ({ action: { delete: { _id: registryDocumentId(docId) } } })),
      ];
      await bulk(search, names.registry, operations, `committing ${change.write.length} and removing ${change.remove.length} documents`);
    },
  };
}
