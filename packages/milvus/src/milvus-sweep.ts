/**
 * What the sweeper of uncommitted chunk versions (`@docqa/core`'s `SweepableIndex`) needs from
 * Milvus: the organisations that have a chunk collection of this store's base name, the
 * (document, version) pairs one organisation's collection stores, and the deletion of exact
 * versions. Collections are read page by page in primary key order, so an organisation of any
 * size is listed in requests of at most {@link maximumTopK} rows.
 */
import type { StoredVersion } from "@docqa/core/stores";
import { afterPrimaryKey, ExpressionBuilder, type FilterExpression, type FilterValueMode } from "./filter-expression.js";
import type { MilvusCapabilities } from "./milvus-capabilities.js";
import { collectionGone, type MilvusCollections } from "./milvus-collections.js";
import { checkStatus, type MilvusConnection } from "./milvus-connection.js";
import { chunksOf, deleteRows, maximumTopK, queryRows } from "./milvus-requests.js";

/** Versions per delete expression. */
const removeBatchSize = 100;

/** Sweeping support of one Milvus store. */
export class MilvusSweep {
  constructor(
    private readonly connection: MilvusConnection,
    private readonly collections: MilvusCollections,
    private readonly capabilities: MilvusCapabilities,
  ) {}

  /**
   * The organisations with a chunk collection under this store's base name: each candidate
   * collection's organisation is read from a chunk (`metadata.org_id`) and kept only when the
   * store would name its collection so (another deployment's collections are skipped).
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async organisations(): Promise<string[]> {
    const names = await this.connection.call("list collections", async (client, timeout) =>
      checkStatus("list collections", await client.showCollections({ timeout })),
    );
    /** Each organisation's chunk collection name, and one collection of its family to read the organisation from. */
    const candidates = new Map<string, string>();
    for (const collection of names.data) {
      const logical = this.collections.logicalChunkCollectionName(collection.name);
      if (logical && !candidates.has(logical)) candidates.set(logical, collection.name);
    }
    const found: string[] = [];
    for (const [logical, physical] of [...candidates].sort(([left], [right]) => (left < right ? -1 : 1))) {
      let orgId: string | undefined;
      try {
        orgId = await this.organisationOf(physical);
      } catch (error) {
        if (collectionGone(error)) continue; // dropped meanwhile, or not loaded: not ours to sweep now
        throw error;
      }
      if (orgId !== undefined && this.collections.chunkCollectionName(orgId) === logical) found.push(orgId);
    }
    return found;
  }

  /**
   * Every (document, version) in the organisation's chunk collection, with its chunk count.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async storedVersions(orgId: string): Promise<StoredVersion[]> {
    return this.collections.withChunkCollection(orgId, [] as StoredVersion[], async (collection) => {
      const counts = new Map<string, StoredVersion>();
      for await (const rows of scanRows(this.connection, this.capabilities, collection.name, ["doc_id", "content_hash"])) {
        for (const row of rows) {
          const docId = String(row.doc_id);
          const contentHash = String(row.content_hash);
          const key = `${docId}\u0000${contentHash}`;
          const entry = counts.get(key) ?? { docId, contentHash, chunks: 0 };
          entry.chunks++;
          counts.set(key, entry);
        }
      }
      return [...counts.values()];
    });
  }

  /**
   * Deletes the chunks of exactly these versions.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async removeVersions(orgId: string, versions: readonly Pick<StoredVersion, "docId" | "contentHash">[]): Promise<void> {
    if (versions.length === 0) return;
    await this.collections.withChunkCollection(orgId, undefined, (collection) =>
      deleteVersions(this.connection, this.capabilities, collection.name, versions, "remove uncommitted chunk versions"),
    );
  }

  /** The `org_id` stamped in one chunk of collection `name`, or undefined when it holds none. */
  private async organisationOf(name: string): Promise<string | undefined> {
    const rows = await queryRows(this.connection, name, { expression: "", values: {} }, ["metadata"], 1, "read an organisation id");
    const metadata = rows[0]?.metadata as { org_id?: unknown } | undefined;
    return typeof metadata?.org_id === "string" ? metadata.org_id : undefined;
  }
}

/** `(doc_id == <id> and content_hash == <version>) or ...` over the given versions. */
export function versionsExpression(
  versions: readonly Pick<StoredVersion, "docId" | "contentHash">[],
  mode: FilterValueMode,
  prefix = "p",
): FilterExpression {
  const builder = new ExpressionBuilder(mode, prefix);
  return builder.build(
    versions
      .map((version) => `(doc_id == ${builder.value(version.docId)} and content_hash == ${builder.value(version.contentHash)})`)
      .join(" or "),
  );
}

/**
 * Deletes the chunks of exactly these versions from `collection`, {@link removeBatchSize} versions
 * per request.
 *
 * @throws {DocqaError} `store_unavailable`.
 */
export async function deleteVersions(
  connection: MilvusConnection,
  capabilities: MilvusCapabilities,
  collection: string,
  versions: readonly Pick<StoredVersion, "docId" | "contentHash">[],
  operation: string,
): Promise<void> {
  const mode = await capabilities.filterValueMode(collection);
  for (const batch of chunksOf(versions, removeBatchSize))
    await deleteRows(connection, collection, versionsExpression(batch, mode), operation);
}

/**
 * The rows of `collection` (all of them, or those matching `filter`), `outputFields` plus `id`,
 * page by page in primary key order.
 *
 * @throws {DocqaError} `store_unavailable`.
 */
export async function* scanRows(
  connection: MilvusConnection,
  capabilities: MilvusCapabilities,
  collection: string,
  outputFields: readonly string[],
  filter: FilterExpression = { expression: "", values: {} },
  pageSize = maximumTopK,
): AsyncGenerator<Record<string, unknown>[]> {
  const mode = await capabilities.filterValueMode(collection);
  const fields = [...new Set(["id", ...outputFields])];
  let expression = filter;
  for (;;) {
    const rows = await queryRows(connection, collection, expression, fields, pageSize, "scan a collection");
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    expression = afterPrimaryKey(filter, "id", lastPrimaryKey(rows), mode);
  }
}

/**
 * The largest `id` of `rows`: where the next page of a limited query starts, since Milvus returns
 * a limited query in primary key order (VarChar keys compared as UTF-8 bytes).
 */
export function lastPrimaryKey(rows: readonly Record<string, unknown>[]): string {
  return rows
    .map((row) => String(row.id))
    .reduce((left, right) => (Buffer.compare(Buffer.from(right, "utf8"), Buffer.from(left, "utf8")) > 0 ? right : left));
}
