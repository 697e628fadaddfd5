/**
 * The document registry of the Milvus store: per organisation a collection
 * `<chunk collection>_registry` with one row per committed document (its content hash, the
 * documents it was derived from, and what it is: title, source, type, owner, ACL with its access
 * tokens, text hash, chunk count, commit time). Committing a version here is what makes it
 * current in the staged protocol of `@docqa/core` (write chunks → commit → prune); chunk versions
 * not committed here are pruned later. The collection is created on the first commit that writes.
 * Listings page through it in primary key (document id) order, filtered inside Milvus by
 * principal (`grants`/`denied`, as chunk searches are), source, type and owner.
 */
import { canRead, DocqaError, normalizeAccessName, normalizePrincipal } from "@docqa/core";
import {
  chunkAccessTokens,
  compareUtf8,
  type DocumentPage,
  type DocumentQuery,
  type DocumentRecord,
  type RegisteredDocument,
} from "@docqa/core/stores";
import { maximumArrayCapacity, maximumVarCharBytes, truncateUtf8, utf8Length } from "./chunk-rows.js";
import {
  registryCollectionFields,
  registryIndex,
  registryLayoutVersion,
  registryOutputFields,
  registryPlaceholderVector,
} from "./collection-schemas.js";
import { afterPrimaryKey, derivedFromExpression, documentIdsExpression, documentListExpression } from "./filter-expression.js";
import type { MilvusCapabilities } from "./milvus-capabilities.js";
import { collectionGone, type MilvusCollections } from "./milvus-collections.js";
import { asStatusError, type CallOptions, checkStatus, type MilvusConnection, MilvusStatusError } from "./milvus-connection.js";
import { chunksOf, deleteRows, maximumTopK, queryRows } from "./milvus-requests.js";

/** Values per `in` list or per registry request. */
const listBatchSize = 1_000;

/** The per-organisation registry collections of one Milvus store. */
export class MilvusRegistry {
  private readonly registries = new Map<string, Promise<boolean>>();

  /**
   * @param schemaTimeoutMs - deadline of creating and loading a registry collection, in
   *   milliseconds.
   */
  constructor(
    private readonly connection: MilvusConnection,
    private readonly collections: MilvusCollections,
    private readonly capabilities: MilvusCapabilities,
    private readonly schemaTimeoutMs: number,
  ) {}

  /** The registry collection of an organisation: `<chunk collection>_registry`. */
  registryCollectionName(orgId: string): string {
    return `${this.collections.chunkCollectionName(orgId)}_registry`;
  }

  /**
   * Records `change.write` as the committed versions and removes `change.remove`; see
   * `StagedRegistry.commit`.
   *
   * @throws {DocqaError} `payload_too_large` when a document is derived from more documents, or
   *   from a longer id, than a Milvus array holds; `store_unavailable`.
   */
  async commit(orgId: string, change: { write: readonly RegisteredDocument[]; remove: readonly string[] }): Promise<void> {
    if (change.write.length === 0 && change.remove.length === 0) return;
    const rows = change.write.map((document) => {
      const derivedFrom = [...new Set(document.derivedFrom ?? [])];
      if (derivedFrom.length > maximumArrayCapacity || derivedFrom.some((docId) => utf8Length(docId) > maximumVarCharBytes)) {
        throw new DocqaError(
          "payload_too_large",
          `document ${JSON.stringify(document.docId.slice(0, 200))} is derived from more than ${maximumArrayCapacity} documents or from an id longer than ${maximumVarCharBytes} bytes`,
          { component: "milvus" },
        );
      }
      const { info } = document;
      const { grants, denied } = chunkAccessTokens(info.ownerId, info.acl);
      for (const value of [info.ownerId, info.acl, info.type, info.textHash, ...grants, ...denied]) {
        if (utf8Length(value) > maximumVarCharBytes || grants.length > maximumArrayCapacity || denied.length > maximumArrayCapacity) {
          throw new DocqaError(
            "payload_too_large",
            `the owner, type or ACL of document ${JSON.stringify(document.docId.slice(0, 200))} exceeds Milvus's limits (${maximumVarCharBytes} bytes per value, ${maximumArrayCapacity} ACL entries)`,
            { component: "milvus" },
          );
        }
      }
      return {
        doc_id: document.docId,
        content_hash: document.contentHash,
        derived_from: derivedFrom,
        title: truncateUtf8(info.title, maximumVarCharBytes),
        source: truncateUtf8(info.source, maximumVarCharBytes),
        type: info.type,
        owner_id: normalizeAccessName(info.ownerId),
        acl: info.acl,
        grants,
        denied,
        text_hash: info.textHash,
        chunk_count: document.chunkCount,
        updated_at: Date.now(),
        placeholder: registryPlaceholderVector,
      };
    });
    await this.withRegistry(orgId, rows.length > 0, undefined, async (name) => {
      for (const batch of chunksOf(rows, listBatchSize)) {
        await this.connection.call("commit document versions", async (client, timeout) =>
          checkStatus("commit document versions", await client.upsert({ collection_name: name, data: batch, timeout })),
        );
      }
      if (change.remove.length === 0) return;
      const mode = await this.capabilities.filterValueMode(name);
      for (const batch of chunksOf(change.remove, listBatchSize)) {
        await deleteRows(this.connection, name, documentIdsExpression(batch, mode), "remove documents from the registry");
      }
    });
  }

  /**
   * The committed content hash of each of `docIds` that is registered; see
   * `DocumentRegistry.contentHashes`.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.rowsOf(orgId, docIds, ["doc_id", "content_hash"], "read committed versions");
    return new Map(rows.map((row) => [String(row.doc_id), String(row.content_hash)]));
  }

  /**
   * Ids of the registered documents derived from any of `sourceDocIds`, sorted; see
   * `DocumentRegistry.derivedDocuments`.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]> {
    if (sourceDocIds.length === 0) return [];
    return this.withRegistry(orgId, false, [], async (name) => {
      const mode = await this.capabilities.filterValueMode(name);
      const found = new Set<string>();
      for (const batch of chunksOf([...new Set(sourceDocIds)], listBatchSize)) {
        const base = derivedFromExpression(batch, mode);
        let expression = base;
        for (;;) {
          // Pages in primary key order: Milvus sorts query results with a limit by primary key,
          // comparing VarChar keys as UTF-8 bytes.
          const rows = await queryRows(this.connection, name, expression, ["doc_id"], maximumTopK, "read derived documents");
          for (const row of rows) found.add(String(row.doc_id));
          if (rows.length < maximumTopK) break;
          const last = rows.map((row) => String(row.doc_id)).reduce((left, right) => (compareUtf8(right, left) > 0 ? right : left));
          expression = afterPrimaryKey(base, "doc_id", last, mode);
        }
      }
      return [...found].sort();
    });
  }

  /**
   * The records of the registered documents among `docIds`; see
   * `DocumentRegistry.describeDocuments`.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async describeDocuments(orgId: string, docIds: readonly string[]): Promise<Map<string, DocumentRecord>> {
    const rows = await this.rowsOf(orgId, docIds, registryOutputFields, "read document records");
    return new Map(rows.map((row) => [String(row.doc_id), toDocumentRecord(row)]));
  }

  /** The registry rows of the registered documents among `docIds`, with `fields`, in batches. */
  private async rowsOf(orgId: string, docIds: readonly string[], fields: string[], operation: string): Promise<Record<string, unknown>[]> {
    if (docIds.length === 0) return [];
    return this.withRegistry(orgId, false, [] as Record<string, unknown>[], async (name) => {
      const mode = await this.capabilities.filterValueMode(name);
      const rows: Record<string, unknown>[] = [];
      for (const batch of chunksOf([...new Set(docIds)], listBatchSize)) {
        rows.push(...(await queryRows(this.connection, name, documentIdsExpression(batch, mode), fields, batch.length, operation)));
      }
      return rows;
    });
  }

  /**
   * One page of registered documents in id order (UTF-8 bytes, as Milvus orders VarChar primary
   * keys), filtered inside Milvus; see `DocumentRegistry.listDocuments`. Each record is checked
   * again with the seven rules.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async listDocuments(orgId: string, query: DocumentQuery): Promise<DocumentPage> {
    return this.withRegistry(orgId, false, { documents: [], next: null } as DocumentPage, async (name) => {
      const mode = await this.capabilities.filterValueMode(name);
      const principal = query.principal ? normalizePrincipal(query.principal) : undefined;
      const base = documentListExpression(query, mode);
      const documents: DocumentRecord[] = [];
      let after = query.after;
      for (;;) {
        const expression = after === undefined ? base : afterPrimaryKey(base, "doc_id", after, mode);
        const limit = Math.min(maximumTopK, query.limit + 1);
        const rows = (await queryRows(this.connection, name, expression, registryOutputFields, limit, "list documents"))
          .map(toDocumentRecord)
          .sort((left, right) => compareUtf8(left.docId, right.docId));
        for (const record of rows) {
          if (principal && !canRead(principal, record)) continue;
          if (documents.length === query.limit) return { documents, next: documents.at(-1)?.docId ?? null };
          documents.push(record);
        }
        if (rows.length < limit) return { documents, next: null };
        after = rows.at(-1)?.docId;
      }
    });
  }

  /** Forgets the opened registry collection `name`, so that the next use checks it again. */
  forget(name: string): void {
    this.registries.delete(name);
  }

  /** Forgets every opened registry collection. */
  clear(): void {
    this.registries.clear();
  }

  /**
   * Runs `action` on the organisation's registry collection (created first when `create`), or
   * returns `empty` when there is none; retried once after reopening, like
   * `MilvusCollections.withChunkCollection`.
   */
  private async withRegistry<T>(orgId: string, create: boolean, empty: T, action: (name: string) => Promise<T>): Promise<T> {
    const name = this.registryCollectionName(orgId);
    for (let attempt = 0; ; attempt++) {
      if (!(await this.registryCollection(orgId, create))) return empty;
      try {
        return await action(name);
      } catch (error) {
        if (attempt > 0 || !collectionGone(error)) throw error;
        this.registries.delete(name);
      }
    }
  }

  /** Whether the organisation's registry collection exists (creating it when `create`). */
  private async registryCollection(orgId: string, create: boolean): Promise<boolean> {
    const name = this.registryCollectionName(orgId);
    const cached = this.registries.get(name);
    if (cached && (await cached)) return true;
    const opening = this.openRegistry(name, create);
    this.registries.set(name, opening);
    try {
      const exists = await opening;
      if (!exists) this.registries.delete(name);
      return exists;
    } catch (error) {
      this.registries.delete(name);
      throw error;
    }
  }

  private async openRegistry(name: string, create: boolean): Promise<boolean> {
    const options: CallOptions = { timeoutMs: this.schemaTimeoutMs };
    const exists = await this.connection.call(
      "check a collection",
      async (client, timeout) => checkStatus("check a collection", await client.hasCollection({ collection_name: name, timeout })).value,
      options,
    );
    if (!exists) {
      if (!create) return false;
      try {
        await this.connection.call(
          "create the registry collection",
          async (client, timeout) => {
            try {
              checkStatus(
                "create the registry collection",
                await client.createCollection({
                  collection_name: name,
                  description: "docqa registry: the committed version of each document of one organisation",
                  consistency_level: "Strong",
                  fields: registryCollectionFields(),
                  properties: { "docqa.schema": "1", "docqa.role": "registry", "docqa.registry": registryLayoutVersion },
                  timeout,
                }),
              );
            } catch (error) {
              throw asStatusError("create the registry collection", error);
            }
          },
          options,
        );
        await this.collections.createIndex(name, registryIndex, true);
      } catch (error) {
        const cause = DocqaError.isInstance(error) ? error.cause : undefined;
        if (!(cause instanceof MilvusStatusError && cause.alreadyExists)) throw error;
      }
    } else {
      await this.checkLayout(name, options);
    }
    await this.collections.ensureLoaded(name);
    return true;
  }

  /** Fails when an existing registry collection has an older layout (created before document records). */
  private async checkLayout(name: string, options: CallOptions): Promise<void> {
    const described = await this.connection.call(
      "describe a collection",
      async (client, timeout) => checkStatus("describe a collection", await client.describeCollection({ collection_name: name, timeout })),
      options,
    );
    const layout = described.properties?.find((property) => String(property.key) === "docqa.registry")?.value;
    if (String(layout) !== registryLayoutVersion) {
      throw new DocqaError(
        "store_corrupt",
        `registry collection ${name} has layout ${layout === undefined ? "1" : String(layout)}; this docqa needs layout ${registryLayoutVersion} (document owners and ACLs): drop the organisation's two collections and ingest its documents again, or use another VECTORDB_COLLECTION`,
        { component: "milvus" },
      );
    }
  }
}

/** The document record of a registry row read with `registryOutputFields`. */
function toDocumentRecord(row: Record<string, unknown>): DocumentRecord {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    docId: String(row.doc_id),
    contentHash: text(row.content_hash),
    derivedFrom: Array.isArray(row.derived_from) ? row.derived_from.map(String).sort(compareUtf8) : [],
    title: text(row.title),
    source: text(row.source),
    type: text(row.type),
    ownerId: text(row.owner_id),
    acl: text(row.acl),
    textHash: text(row.text_hash),
    chunkCount: Number(row.chunk_count ?? 0),
    updatedAt: new Date(Number(row.updated_at ?? 0)).toISOString(),
  };
}
