/**
 * Rebuilding an organisation's Milvus vectors with another embedding model (`@docqa/core`'s
 * `ReindexableIndex`): the target is a new chunk collection `<chunk collection>_gen<n>` created
 * for the new model (vectors and BM25 text, so it replaces the live collection wholly), filled
 * from the live collection's committed chunks, then caught up by comparing stored versions with
 * the registry. The switch moves the alias `<chunk collection>_live` to the target in one
 * `AlterAlias` (or `CreateAlias`, the first time): a process resolving the alias sees the old or
 * the new collection, never a mix. Processes cache that answer for `liveCollectionTtlMs` and
 * writes resolve it afresh, so after the switch the old collection is kept for `settleMs` while
 * chunks other processes still wrote through it are copied over, then dropped.
 *
 * The job is recorded in the collection properties (`docqa.reindex`, JSON): the target's while it
 * runs, the live collection's once it ended, so every process can read it.
 */
import { DocqaError, type Logger } from "@docqa/core";
import {
  type ChunkRecord,
  type DocumentRegistry,
  type EmbeddingModelInfo,
  observedReindexJob,
  type ReindexJob,
  type ReindexTarget,
  reindexHeartbeatTimeoutMs,
  type StoredVersion,
} from "@docqa/core/stores";
import { chunkOutputFields, rowToChunk } from "./chunk-rows.js";
import { afterPrimaryKey } from "./filter-expression.js";
import type { MilvusCapabilities } from "./milvus-capabilities.js";
import type { ChunkCollection, MilvusCollections } from "./milvus-collections.js";
import { checkStatus, type MilvusConnection, MilvusStatusError } from "./milvus-connection.js";
import { queryRows } from "./milvus-requests.js";
import { deleteVersions, lastPrimaryKey, scanRows, versionsExpression } from "./milvus-sweep.js";

/** The collection property holding a reindex job. */
const jobProperty = "docqa.reindex";
/** Versions per query when reading the chunks of missing versions. */
const versionBatchSize = 100;

/** What the reindex of one Milvus store works with. */
export interface MilvusReindexSettings {
  connection: MilvusConnection;
  collections: MilvusCollections;
  capabilities: MilvusCapabilities;
  /** Writes chunks (with embeddings) to a collection: the store's own write. */
  writeChunks: (collection: ChunkCollection, chunks: readonly ChunkRecord[]) => Promise<void>;
  /** How long the old collection is kept after a switch, in milliseconds. */
  settleMs: number;
  logger: Logger;
}

/** The reindex operations of one Milvus store. */
export class MilvusReindex {
  constructor(private readonly settings: MilvusReindexSettings) {}

  /**
   * See `ReindexableIndex.vectorModel`: the live collection's recorded model, `null` for a
   * collection created without one, undefined without a collection. Read from the collection
   * opened (and the alias resolved) at most `liveCollectionTtlMs` ago, so cheap enough per query.
   */
  async vectorModel(orgId: string): Promise<EmbeddingModelInfo | null | undefined> {
    const collection = await this.settings.collections.chunkCollection(orgId);
    if (!collection) return undefined;
    return collection.record.embeddingModel ? { ...collection.record.embeddingModel } : null;
  }

  /** See `ReindexableIndex.reindexJob`: the latest job recorded on any collection of the organisation. */
  async reindexJob(orgId: string): Promise<ReindexJob | undefined> {
    let latest: ReindexJob | undefined;
    for (const name of await this.settings.collections.generationNames(orgId)) {
      const job = await this.readJob(name);
      if (job && (!latest || job.startedAt > latest.startedAt)) latest = job;
    }
    return latest ? observedReindexJob(latest) : undefined;
  }

  /** See `ReindexableIndex.beginReindex`. */
  async beginReindex(orgId: string, job: ReindexJob): Promise<ReindexTarget> {
    const { collections } = this.settings;
    const live = await collections.chunkCollection(orgId);
    if (!live) throw new DocqaError("invalid_request", `organisation ${orgId} has no chunks: nothing to reindex`, { component: "milvus" });
    const family = await collections.generationNames(orgId);
    for (const name of family) {
      if (name === live.name) continue;
      const other = await this.readJob(name);
      if (other?.state === "running" && other.jobId !== job.jobId && Date.now() - Date.parse(other.updatedAt) < reindexHeartbeatTimeoutMs) {
        throw new DocqaError(
          "invalid_request",
          `a reindex of this organisation to ${other.model.id} is running (job ${other.jobId}, started ${other.startedAt}); wait for it to finish`,
          { component: "milvus" },
        );
      }
      // The target of an interrupted job: started again from scratch.
      collections.forget(name);
      await collections.drop(name);
    }
    const generation = Math.max(1, ...family.map((name) => collections.generationOf(name))) + 1;
    const target = await collections.openOrCreate(collections.generationName(orgId, generation), job.model);
    await this.saveJob(target.name, job);
    this.settings.logger.info("reindex target created", {
      component: "milvus",
      org_id: orgId,
      collection: target.name,
      model: job.model.id,
    });
    return new MilvusReindexTarget(this, orgId, live, target);
  }

  /** The (document, version) pairs of `collection`, with chunk counts. */
  async versionsOf(collection: string): Promise<StoredVersion[]> {
    const counts = new Map<string, StoredVersion>();
    for await (const rows of scanRows(this.settings.connection, this.settings.capabilities, collection, ["doc_id", "content_hash"])) {
      for (const row of rows) {
        const entry = { docId: String(row.doc_id), contentHash: String(row.content_hash), chunks: 0 };
        const key = versionKey(entry);
        const known = counts.get(key) ?? entry;
        known.chunks++;
        counts.set(key, known);
      }
    }
    return [...counts.values()];
  }

  /** One page of chunks of `collection` after primary key `after`, in primary key order. */
  async page(collection: string, after: string | undefined, limit: number): Promise<{ chunks: ChunkRecord[]; last: string | undefined }> {
    const mode = await this.settings.capabilities.filterValueMode(collection);
    const all = { expression: "", values: {} };
    const expression = after === undefined ? all : afterPrimaryKey(all, "id", after, mode);
    const rows = await queryRows(this.settings.connection, collection, expression, chunkOutputFields, limit, "read chunks to reindex");
    return { chunks: rows.map(rowToChunk), last: rows.length > 0 ? lastPrimaryKey(rows) : undefined };
  }

  /** The chunks of exactly these versions in `collection`. */
  async chunksOfVersions(collection: string, versions: readonly Pick<StoredVersion, "docId" | "contentHash">[]): Promise<ChunkRecord[]> {
    const mode = await this.settings.capabilities.filterValueMode(collection);
    const chunks: ChunkRecord[] = [];
    for (let start = 0; start < versions.length; start += versionBatchSize) {
      const filter = versionsExpression(versions.slice(start, start + versionBatchSize), mode, "v");
      for await (const rows of scanRows(this.settings.connection, this.settings.capabilities, collection, chunkOutputFields, filter)) {
        chunks.push(...rows.map(rowToChunk));
      }
    }
    return chunks;
  }

  /** Deletes the chunks of exactly these versions from `collection`. */
  removeVersions(collection: string, versions: readonly Pick<StoredVersion, "docId" | "contentHash">[]): Promise<void> {
    const { connection, capabilities } = this.settings;
    return deleteVersions(connection, capabilities, collection, versions, "remove stale versions from a reindex target");
  }

  /** Writes chunks to the target collection. */
  write(collection: ChunkCollection, chunks: readonly ChunkRecord[]): Promise<void> {
    return this.settings.writeChunks(collection, chunks);
  }

  /** Moves the alias `<chunk collection>_live` to `target` (creating it the first time). */
  async switchTo(orgId: string, target: string): Promise<void> {
    const { connection, collections } = this.settings;
    const alias = collections.liveAliasName(orgId);
    await connection.call("switch the live collection", async (client, timeout) => {
      try {
        checkStatus("move the live alias", await client.alterAlias({ alias, collection_name: target, timeout }));
      } catch (error) {
        if (!(error instanceof MilvusStatusError && (error.collectionMissing || /not exist|not found/i.test(error.status.reason))))
          throw error;
        checkStatus("create the live alias", await client.createAlias({ alias, collection_name: target, timeout }));
      }
    });
    collections.setLive(orgId, target);
  }

  /** Drops collection `name`. */
  async drop(name: string): Promise<void> {
    this.settings.collections.forget(name);
    await this.settings.collections.drop(name);
  }

  /** The job recorded on collection `name`, if any. */
  async readJob(name: string): Promise<ReindexJob | undefined> {
    const described = await this.settings.connection.call("read a reindex job", async (client, timeout) =>
      checkStatus("read a reindex job", await client.describeCollection({ collection_name: name, timeout })),
    );
    const value = (described.properties ?? []).find((property) => property.key === jobProperty)?.value;
    return value ? (JSON.parse(String(value)) as ReindexJob) : undefined;
  }

  /** Records `job` on collection `name`. */
  async saveJob(name: string, job: ReindexJob): Promise<void> {
    await this.settings.connection.call("save a reindex job", async (client, timeout) =>
      checkStatus(
        "save a reindex job",
        await client.alterCollectionProperties({ collection_name: name, properties: { [jobProperty]: JSON.stringify(job) }, timeout }),
      ),
    );
  }

  get settleMs(): number {
    return this.settings.settleMs;
  }
}

/** The target of one Milvus reindex: see the module documentation. */
class MilvusReindexTarget implements ReindexTarget {
  /** Primary key after which the first pass reads the live collection next. */
  private after: string | undefined;
  private firstPassDone = false;
  private queue: ChunkRecord[] = [];
  private activated = false;
  private discarded = false;

  constructor(
    private readonly reindex: MilvusReindex,
    private readonly orgId: string,
    /** The collection that served the organisation when the job started (the old one after the switch). */
    private readonly live: ChunkCollection,
    private readonly target: ChunkCollection,
  ) {}

  get settleMs(): number {
    return this.reindex.settleMs;
  }

  async pending(limit: number, registry: Pick<DocumentRegistry, "contentHashes"> | undefined): Promise<ChunkRecord[]> {
    for (;;) {
      if (this.queue.length > 0) return this.queue.splice(0, limit);
      if (!this.firstPassDone && !this.activated) {
        const { chunks, last } = await this.reindex.page(this.live.name, this.after, limit);
        if (chunks.length < limit) this.firstPassDone = true;
        this.after = last ?? this.after;
        const kept = await committedOnly(this.orgId, chunks, registry);
        if (kept.length > 0) return kept;
        continue;
      }
      // Catch-up: committed versions the live (or, after the switch, old) collection holds and the
      // target lacks; before the switch, versions the target holds that are no longer committed
      // are removed from it (after it, the target serves, and writes in progress are its own).
      const [liveVersions, targetVersions] = await Promise.all([
        this.reindex.versionsOf(this.live.name),
        this.reindex.versionsOf(this.target.name),
      ]);
      const docIds = [...new Set([...liveVersions, ...targetVersions].map((version) => version.docId))];
      const committed = registry ? await registry.contentHashes(this.orgId, docIds) : undefined;
      const isCommitted = (version: StoredVersion) => !committed || committed.get(version.docId) === version.contentHash;
      const held = new Set(targetVersions.map(versionKey));
      const missing = liveVersions.filter((version) => isCommitted(version) && !held.has(versionKey(version)));
      if (!this.activated) {
        const stale = targetVersions.filter((version) => !isCommitted(version));
        if (stale.length > 0) await this.removeFromTarget(stale);
      }
      if (missing.length === 0) return [];
      this.queue = await this.reindex.chunksOfVersions(this.live.name, missing);
      if (this.queue.length === 0) return [];
    }
  }

  async write(chunks: readonly ChunkRecord[]): Promise<void> {
    await this.reindex.write(this.target, chunks);
  }

  async save(job: ReindexJob): Promise<void> {
    await this.reindex.saveJob(this.discarded ? this.live.name : this.target.name, job);
  }

  async activate(): Promise<boolean> {
    await this.reindex.switchTo(this.orgId, this.target.name);
    this.activated = true;
    return true;
  }

  async retire(): Promise<void> {
    await this.reindex.drop(this.live.name);
  }

  async discard(): Promise<void> {
    this.discarded = true;
    await this.reindex.drop(this.target.name);
  }

  private async removeFromTarget(versions: readonly StoredVersion[]): Promise<void> {
    await this.reindex.removeVersions(this.target.name, versions);
  }
}

async function committedOnly(
  orgId: string,
  chunks: readonly ChunkRecord[],
  registry: Pick<DocumentRegistry, "contentHashes"> | undefined,
): Promise<ChunkRecord[]> {
  if (!registry || chunks.length === 0) return [...chunks];
  const committed = await registry.contentHashes(orgId, [...new Set(chunks.map((chunk) => chunk.docId))]);
  return chunks.filter((chunk) => committed.get(chunk.docId) === chunk.contentHash);
}

function versionKey(version: Pick<StoredVersion, "docId" | "contentHash">): string {
  return `${version.docId}\u0000${version.contentHash}`;
}
