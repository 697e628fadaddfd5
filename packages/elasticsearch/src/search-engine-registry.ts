/**
 * The document registry on Elasticsearch or OpenSearch: per organisation a registry index with
 * one document per committed document version (`doc_id`, `content_hash`, `derived_from`, and
 * what the document is: title, source, type, owner, ACL with its access tokens, text hash, chunk
 * count, commit time). Committing here is what makes a version current in the staged protocol of
 * `@docqa/core` (write chunks → commit → prune). The index is created on the first commit that
 * writes. Listings page through it by document id, filtered in the engine by principal (the
 * `grants`/`denied` tokens, as chunk searches are), source, type and owner.
 */
import { canRead, normalizeAccessName, normalizePrincipal } from "@docqa/core";
import {
  chunkAccessTokens,
  type DocumentPage,
  type DocumentQuery,
  type DocumentRecord,
  type RegisteredDocument,
  type StagedRegistry,
} from "@docqa/core/stores";
import { type BulkOperation, registryDocumentId } from "./chunk-documents.js";
import { type IndexDefinitionSettings, registryIndexDefinition } from "./index-definitions.js";
import type { IndexLifecycle } from "./index-lifecycle.js";
import type { OrganisationIndexNames } from "./index-names.js";
import { encodePathSegment, errorType, isMissingIndex, type SearchEngineClient, unexpectedAnswer } from "./search-engine-client.js";
import { derivedDocumentsBody, documentListBody } from "./search-queries.js";

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
export type SearchEngineRegistry = Pick<
  StagedRegistry,
  "commit" | "contentHashes" | "derivedDocuments" | "describeDocuments" | "listDocuments"
>;

/** The registry fields read back as a document record. */
const recordFields = [
  "doc_id",
  "content_hash",
  "derived_from",
  "title",
  "source",
  "type",
  "owner_id",
  "acl",
  "text_hash",
  "chunk_count",
  "updated_at",
] as const;

/** The document record of a registry `_source` (missing fields read as empty). */
function toDocumentRecord(source: Record<string, unknown>): DocumentRecord {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const derivedFrom = Array.isArray(source.derived_from) ? source.derived_from.filter((value) => typeof value === "string") : [];
  const updatedAt = Number(source.updated_at ?? 0);
  return {
    docId: text(source.doc_id),
    contentHash: text(source.content_hash),
    derivedFrom: derivedFrom.sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right))),
    title: text(source.title),
    source: text(source.source),
    type: text(source.type),
    ownerId: text(source.owner_id),
    acl: text(source.acl),
    textHash: text(source.text_hash),
    chunkCount: Number(source.chunk_count ?? 0),
    updatedAt: new Date(Number.isFinite(updatedAt) ? updatedAt : 0).toISOString(),
  };
}

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

  /** The registry entries of `docIds` that exist, read with `_mget` in batches. */
  const getRecords = async (orgId: string, docIds: readonly string[], fields: readonly string[]): Promise<Map<string, DocumentRecord>> => {
    const records = new Map<string, DocumentRecord>();
    const unique = [...new Set(docIds)];
    if (unique.length === 0) return records;
    const search = await connection();
    const names = indexNames(orgId);
    for (let start = 0; start < unique.length; start += registryBatchSize) {
      const batch = unique.slice(start, start + registryBatchSize);
      const response = await search.request(
        {
          method: "POST",
          path: `/${encodePathSegment(names.registry)}/_mget`,
          querystring: { _source_includes: fields.join(",") },
          body: { ids: batch.map(registryDocumentId) },
        },
        { allowStatus: [404] },
      );
      if (isMissingIndex(response)) return records;
      const docs = (response.body as { docs?: unknown }).docs;
      if (!Array.isArray(docs)) throw unexpectedAnswer(search, "_mget", response.body);
      const wanted = new Set(batch);
      for (const doc of docs as { found?: unknown; _source?: Record<string, unknown>; error?: unknown }[]) {
        if (doc.error !== undefined) {
          if (errorType({ error: doc.error }) === "index_not_found_exception") return records;
          throw unexpectedAnswer(search, "_mget", { error: doc.error });
        }
        const source = doc._source;
        if (doc.found !== true || !source) continue;
        if (typeof source.doc_id === "string" && wanted.has(source.doc_id) && typeof source.content_hash === "string") {
          records.set(source.doc_id, toDocumentRecord(source));
        }
      }
    }
    return records;
  };

  return {
    async contentHashes(orgId, docIds) {
      const hashes = new Map<string, string>();
      for (const [docId, record] of await getRecords(orgId, docIds, ["doc_id", "content_hash"])) {
        if (record.contentHash !== "") hashes.set(docId, record.contentHash);
      }
      return hashes;
    },

    describeDocuments(orgId, docIds) {
      return getRecords(orgId, docIds, recordFields);
    },

    async listDocuments(orgId, query: DocumentQuery): Promise<DocumentPage> {
      const search = await connection();
      const names = indexNames(orgId);
      const response = await search.request(
        { method: "POST", path: `/${encodePathSegment(names.registry)}/_search`, body: documentListBody(query, recordFields) },
        { allowStatus: [404] },
      );
      if (isMissingIndex(response)) return { documents: [], next: null };
      const hits = (response.body as { hits?: { hits?: unknown } }).hits?.hits;
      if (!Array.isArray(hits)) throw unexpectedAnswer(search, "_search", response.body);
      const principal = query.principal ? normalizePrincipal(query.principal) : undefined;
      const records = (hits as { _source?: Record<string, unknown> }[]).map((hit) => toDocumentRecord(hit._source ?? {}));
      const documents = records.slice(0, query.limit).filter((record) => !principal || canRead(principal, record));
      return { documents, next: records.length > query.limit ? (records[query.limit - 1]?.docId ?? null) : null };
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
        ...change.write.map((entry) => {
          const { grants, denied } = chunkAccessTokens(entry.info.ownerId, entry.info.acl);
          return {
            action: { index: { _id: registryDocumentId(entry.docId) } },
            document: {
              doc_id: entry.docId,
              content_hash: entry.contentHash,
              derived_from: [...(entry.derivedFrom ?? [])],
              title: entry.info.title,
              source: entry.info.source,
              type: entry.info.type,
              owner_id: normalizeAccessName(entry.info.ownerId),
              acl: entry.info.acl,
              grants,
              denied,
              text_hash: entry.info.textHash,
              chunk_count: entry.chunkCount,
              updated_at: Date.now(),
            },
          };
        }),
        ...change.remove.map((docId) => ({ action: { delete: { _id: registryDocumentId(docId) } } })),
      ];
      await bulk(search, names.registry, operations, `committing ${change.write.length} and removing ${change.remove.length} documents`);
    },
  };
}
