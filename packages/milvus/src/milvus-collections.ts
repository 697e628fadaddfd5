/**
 * The lifecycle of the Milvus collections docqa keeps per organisation: naming, creating (schema,
 * BM25 function, indexes, recorded settings), opening and loading, and dropping. Chunk
 * collections are opened once and cached; when Milvus reports one missing or unloaded (dropped,
 * or the server restarted) it is opened again. Schemas themselves are in `collection-schemas.ts`.
 */
import { DocqaError, type Logger } from "@docqa/core";
import type { Analyzer } from "@docqa/core/retrieval";
import { type EmbeddingModelInfo, organisationCollectionName } from "@docqa/core/stores";
import type { MilvusClient } from "@zilliz/milvus2-sdk-node";
import {
  type Bm25IndexParameters,
  bm25Function,
  type ChunkCollectionRecord,
  chunkCollectionFields,
  chunkIndexes,
  type HnswBuildParameters,
  type IndexDefinition,
  noKeywordIndex,
  readRecord,
  recordProperties,
} from "./collection-schemas.js";
import { bm25Tokenizers, isUnsupportedTokenizer } from "./milvus-capabilities.js";
import { asStatusError, type CallOptions, checkStatus, type MilvusConnection, MilvusStatusError } from "./milvus-connection.js";

/** An opened chunk collection. */
export interface ChunkCollection {
  name: string;
  record: ChunkCollectionRecord;
  /** Dimension of the `embedding` field. */
  dimension: number;
}

/** Settings of {@link MilvusCollections}; see `MilvusStoreSettings` for each. */
export interface MilvusCollectionsSettings {
  connection: MilvusConnection;
  /** Base collection name, already validated. */
  base: string;
  /** Deadline of creating and loading a collection, in milliseconds. */
  schemaTimeoutMs: number;
  /** BM25 parameters of new chunk collections. */
  bm25: Bm25IndexParameters;
  /** HNSW build parameters of new chunk collections. */
  hnsw: HnswBuildParameters;
  /** Who analyses text for BM25 in new chunk collections; `none`: new collections hold no BM25 (a search engine serves it). */
  textAnalysis: "docqa" | "milvus" | "none";
  /** The analyzer of `textAnalysis: "docqa"` (its name is recorded in new collections). */
  analyzer: Analyzer;
  logger: Logger;
}

/** Dimension of the placeholder `embedding` of collections created without an embedding model. */
const placeholderDimension = 2;

/**
 * How long a process trusts its answer to "which collection serves this organisation now" (the
 * alias `<chunk collection>_live`, moved by a reindex), in milliseconds. Writes always ask again.
 */
export const liveCollectionTtlMs = 2_000;

/** The generation suffix of a collection a reindex created: `<chunk collection>_gen<n>`. */
const generationPattern = /_gen(\d+)$/;

/** The per-organisation collections of one Milvus store. */
export class MilvusCollections {
  private readonly chunkCollections = new Map<string, Promise<ChunkCollection | undefined>>();
  /** The collection serving each organisation (by its chunk collection name), and until when to trust it. */
  private readonly live = new Map<string, { name: Promise<string>; expires: number }>();

  constructor(private readonly settings: MilvusCollectionsSettings) {}

  /** The alias naming the collection that serves an organisation after a reindex: `<chunk collection>_live`. */
  liveAliasName(orgId: string): string {
    return `${this.chunkCollectionName(orgId)}_live`;
  }

  /** The collection a reindex creates for an organisation: `<chunk collection>_gen<generation>`. */
  generationName(orgId: string, generation: number): string {
    return `${this.chunkCollectionName(orgId)}_gen${generation}`;
  }

  /** The generation of a collection name (`_gen<n>`), or 1 for the organisation's first collection. */
  generationOf(name: string): number {
    const match = generationPattern.exec(name);
    return match ? Number(match[1]) : 1;
  }

  /**
   * The collection serving the organisation now: the target of the alias
   * `<chunk collection>_live` when a reindex created one, else `<chunk collection>` itself.
   * Remembered for {@link liveCollectionTtlMs}; `fresh` asks Milvus again.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async liveCollectionName(orgId: string, fresh = false): Promise<string> {
    const logical = this.chunkCollectionName(orgId);
    const known = this.live.get(logical);
    if (known && !fresh && known.expires > Date.now()) return known.name;
    const resolving = this.settings.connection.call("resolve the live collection", async (client, timeout) => {
      const response = await client.describeAlias({ alias: `${logical}_live`, collection_name: logical, timeout });
      try {
        checkStatus("resolve the live collection", response);
      } catch (error) {
        if (error instanceof MilvusStatusError && error.collectionMissing) return logical; // no alias: never reindexed
        throw error;
      }
      return response.collection || logical;
    });
    const entry = { name: resolving, expires: Date.now() + liveCollectionTtlMs };
    this.live.set(logical, entry);
    resolving.catch(() => {
      if (this.live.get(logical) === entry) this.live.delete(logical);
    });
    return resolving;
  }

  /** Records that `name` now serves the organisation (this process switched it). */
  setLive(orgId: string, name: string): void {
    this.live.set(this.chunkCollectionName(orgId), { name: Promise.resolve(name), expires: Date.now() + liveCollectionTtlMs });
  }

  /**
   * Opens collection `name`, creating it as a chunk collection for `model` when it does not exist
   * (a reindex target).
   *
   * @throws {DocqaError} `store_unavailable`; `config_invalid`.
   */
  async openOrCreate(name: string, model: EmbeddingModelInfo | null): Promise<ChunkCollection> {
    this.chunkCollections.delete(name);
    const collection = await this.openChunkCollection(name, { model });
    if (!collection) throw new DocqaError("internal_error", `collection ${name} was not created`, { component: "milvus" });
    this.chunkCollections.set(name, Promise.resolve(collection));
    return collection;
  }

  /** The names of every collection of the organisation's chunk collection family (`<chunk>` and `<chunk>_gen<n>`). */
  async generationNames(orgId: string): Promise<string[]> {
    const logical = this.chunkCollectionName(orgId);
    const listed = await this.settings.connection.call("list collections", async (client, timeout) =>
      checkStatus("list collections", await client.showCollections({ timeout })),
    );
    return listed.data
      .map((collection) => collection.name)
      .filter((name) => name === logical || (name.startsWith(`${logical}_gen`) && generationPattern.test(name)));
  }

  /** Drops the alias naming the organisation's live collection, if any. */
  async dropLiveAlias(orgId: string): Promise<void> {
    const alias = this.liveAliasName(orgId);
    this.live.delete(this.chunkCollectionName(orgId));
    await this.settings.connection.call("drop an alias", async (client, timeout) => {
      try {
        checkStatus("drop an alias", await client.dropAlias({ alias, timeout }));
      } catch (error) {
        if (!(error instanceof MilvusStatusError && (error.collectionMissing || /not exist|not found/i.test(error.status.reason))))
          throw error;
      }
    });
  }

  /** The chunk collection of an organisation: `<base>_<organisation suffix>`. */
  chunkCollectionName(orgId: string): string {
    return organisationCollectionName(this.settings.base, orgId);
  }

  /**
   * The organisation chunk collection name that collection `name` is, or is a reindex
   * generation of (`_gen<n>`), or undefined when `name` is not one of this base (a registry,
   * another base's collection).
   */
  logicalChunkCollectionName(name: string): string | undefined {
    if (!name.startsWith(`${this.settings.base}_`) || name.endsWith("_registry")) return undefined;
    return name.replace(generationPattern, "");
  }

  /**
   * Runs `action` on the organisation's chunk collection, or returns `empty` when there is none.
   * When Milvus reports the collection missing or unloaded (dropped, or the server restarted),
   * the collection is opened again and `action` retried once.
   */
  async withChunkCollection<T>(orgId: string, empty: T, action: (collection: ChunkCollection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const collection = await this.chunkCollection(orgId);
      if (!collection) return empty;
      try {
        return await action(collection);
      } catch (error) {
        if (attempt > 0 || !collectionGone(error)) throw error;
        // Dropped (a reindex retired it) or unloaded (a restart): ask again which collection serves.
        this.chunkCollections.delete(collection.name);
        this.live.delete(this.chunkCollectionName(orgId));
      }
    }
  }

  /**
   * The organisation's chunk collection, opened (and loaded) once; created when `create` is given.
   *
   * @throws {DocqaError} `config_invalid` when a collection of that name exists that docqa did not
   *   create; `store_unavailable` when Milvus cannot be reached or refuses.
   */
  async chunkCollection(orgId: string, create?: { model: EmbeddingModelInfo | null }): Promise<ChunkCollection | undefined> {
    const name = await this.liveCollectionName(orgId, create !== undefined);
    for (let attempt = 0; attempt < 3; attempt++) {
      let opening = this.chunkCollections.get(name);
      if (!opening) {
        const started = this.openChunkCollection(name, create);
        opening = started;
        this.chunkCollections.set(name, started);
        started.then(
          (collection) => {
            if (!collection && this.chunkCollections.get(name) === started) this.chunkCollections.delete(name);
          },
          () => {
            if (this.chunkCollections.get(name) === started) this.chunkCollections.delete(name);
          },
        );
      }
      const collection = await opening;
      if (collection || !create) return collection;
    }
    return undefined;
  }

  /**
   * Creates an index on `collection` unless it exists. A failure of a `required` index is thrown;
   * a failure of an optional one (an index the server does not support) is logged at debug level.
   *
   * @throws {DocqaError} `store_unavailable` when a required index cannot be created.
   */
  async createIndex(collection: string, index: IndexDefinition, required: boolean): Promise<void> {
    try {
      await this.settings.connection.call(
        `create the ${index.field_name} index`,
        async (client, timeout) =>
          checkStatus("create an index", await client.createIndex({ collection_name: collection, ...index, timeout })),
        { timeoutMs: this.settings.schemaTimeoutMs },
      );
    } catch (error) {
      const cause = DocqaError.isInstance(error) ? error.cause : undefined;
      if (cause instanceof MilvusStatusError && /already exist/i.test(cause.status.reason)) return;
      if (required) throw error;
      this.settings.logger.debug("optional Milvus index not created", {
        component: "milvus",
        field: index.field_name,
        error: (error as Error).message,
      });
    }
  }

  /**
   * Loads the collection unless it is loaded; waits while another writer is still building it
   * (up to the schema deadline).
   *
   * @throws {DocqaError} `store_unavailable` when it cannot be loaded in time.
   */
  async ensureLoaded(name: string): Promise<void> {
    const deadline = Date.now() + this.settings.schemaTimeoutMs;
    for (;;) {
      try {
        await this.settings.connection.call(
          "load a collection",
          async (client, timeout) => {
            const state = checkStatus("read the load state", await client.getLoadState({ collection_name: name, timeout }));
            if (String(state.state) === "LoadStateLoaded") return;
            await loadCollection(client, name, timeout);
          },
          { timeoutMs: Math.max(1, deadline - Date.now()) },
        );
        return;
      } catch (error) {
        if (Date.now() + 500 >= deadline || !/index/i.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /**
   * Drops the collection `name` if it exists (a no-op otherwise).
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async drop(name: string): Promise<void> {
    await this.settings.connection.call(`drop collection ${name}`, async (client, timeout) => {
      const exists = checkStatus("check a collection", await client.hasCollection({ collection_name: name, timeout }));
      if (exists.value) checkStatus("drop a collection", await client.dropCollection({ collection_name: name, timeout }));
    });
  }

  /** Forgets the opened chunk collection `name`, so that the next use opens it again. */
  forget(name: string): void {
    this.chunkCollections.delete(name);
  }

  /** Forgets every opened chunk collection. */
  clear(): void {
    this.chunkCollections.clear();
    this.live.clear();
  }

  private async openChunkCollection(name: string, create?: { model: EmbeddingModelInfo | null }): Promise<ChunkCollection | undefined> {
    const options: CallOptions = { timeoutMs: this.settings.schemaTimeoutMs };
    const exists = await this.settings.connection.call(
      "check a collection",
      async (client, timeout) => checkStatus("check a collection", await client.hasCollection({ collection_name: name, timeout })).value,
      options,
    );
    if (!exists) {
      if (!create) return undefined;
      await this.createChunkCollection(name, create.model);
    }
    const described = await this.settings.connection.call(
      "describe a collection",
      async (client, timeout) => checkStatus("describe a collection", await client.describeCollection({ collection_name: name, timeout })),
      options,
    );
    const record = readRecord(described.properties);
    if (!record) {
      throw new DocqaError(
        "config_invalid",
        `collection ${name} exists but was not created by docqa (no docqa.* properties): drop it or choose another VECTORDB_COLLECTION`,
        { component: "milvus" },
      );
    }
    const field = described.schema.fields.find((item) => item.name === "embedding") as Record<string, unknown> | undefined;
    const parameters = (field?.type_params ?? []) as { key: string; value: unknown }[];
    const dimension = Number(
      field?.dim ?? parameters.find((parameter) => parameter.key === "dim")?.value ?? record.embeddingModel?.dimension,
    );
    await this.ensureLoaded(name);
    return { name, record, dimension };
  }

  private async createChunkCollection(name: string, model: EmbeddingModelInfo | null): Promise<void> {
    const dimension = model?.dimension ?? placeholderDimension;
    const keyword = this.settings.textAnalysis !== "none";
    const tokenizers = this.settings.textAnalysis === "none" ? [noKeywordIndex] : bm25Tokenizers(this.settings.textAnalysis);
    const textAnalysis =
      this.settings.textAnalysis === "none"
        ? noKeywordIndex
        : this.settings.textAnalysis === "docqa"
          ? `docqa:${this.settings.analyzer.name}`
          : "milvus:english";
    const options: CallOptions = { timeoutMs: this.settings.schemaTimeoutMs };
    for (const [index, tokenizer] of tokenizers.entries()) {
      try {
        await this.settings.connection.call(
          "create a collection",
          async (client, timeout) => {
            try {
              checkStatus(
                "create a collection",
                await client.createCollection({
                  collection_name: name,
                  description: "docqa chunks of one organisation",
                  consistency_level: "Strong",
                  fields: chunkCollectionFields(dimension, tokenizer),
                  functions: keyword ? [bm25Function] : [],
                  properties: recordProperties({ embeddingModel: model, textAnalysis, tokenizer }),
                  timeout,
                }),
              );
            } catch (error) {
              throw asStatusError("create a collection", error);
            }
          },
          options,
        );
        this.settings.logger.info("created a Milvus chunk collection", { component: "milvus", collection: name, tokenizer, dimension });
        break;
      } catch (error) {
        const cause = DocqaError.isInstance(error) ? error.cause : undefined;
        if (cause instanceof MilvusStatusError && cause.alreadyExists) return; // another writer created it
        if (!isUnsupportedTokenizer(error) || index === tokenizers.length - 1) throw error;
        this.settings.logger.info(`Milvus has no ${tokenizer} tokenizer; trying ${tokenizers[index + 1]}`, { component: "milvus" });
      }
    }
    const indexes = chunkIndexes(this.settings.hnsw, keyword ? this.settings.bm25 : undefined);
    for (const index of indexes.required) await this.createIndex(name, index, true);
    for (const index of indexes.optional) await this.createIndex(name, index, false);
  }
}

/** Whether `error` says the collection is missing or not loaded (dropped, or the server restarted). */
export function collectionGone(error: unknown): boolean {
  const cause = DocqaError.isInstance(error) ? error.cause : error;
  return cause instanceof MilvusStatusError && (cause.collectionMissing || cause.collectionNotLoaded);
}

/** Loads a collection and waits until it is loaded (the SDK's `loadCollection` polls progress). */
async function loadCollection(client: MilvusClient, name: string, timeout: number): Promise<void> {
  checkStatus("load a collection", await client.loadCollection({ collection_name: name, timeout }));
}
