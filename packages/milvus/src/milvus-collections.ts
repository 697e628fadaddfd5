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
  /** Who analyses text for BM25 in new chunk collections. */
  textAnalysis: "docqa" | "milvus";
  /** The analyzer of `textAnalysis: "docqa"` (its name is recorded in new collections). */
  analyzer: Analyzer;
  logger: Logger;
}

/** Dimension of the placeholder `embedding` of collections created without an embedding model. */
const placeholderDimension = 2;

/** The per-organisation collections of one Milvus store. */
export class MilvusCollections {
  private readonly chunkCollections = new Map<string, Promise<ChunkCollection | undefined>>();

  constructor(private readonly settings: MilvusCollectionsSettings) {}

  /** The chunk collection of an organisation: `<base>_<organisation suffix>`. */
  chunkCollectionName(orgId: string): string {
    return organisationCollectionName(this.settings.base, orgId);
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
        this.chunkCollections.delete(collection.name);
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
    const name = this.chunkCollectionName(orgId);
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
    const tokenizers = bm25Tokenizers(this.settings.textAnalysis);
    const textAnalysis = this.settings.textAnalysis === "docqa" ? `docqa:${this.settings.analyzer.name}` : "milvus:english";
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
                  functions: [bm25Function],
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
    const indexes = chunkIndexes(this.settings.hnsw, this.settings.bm25);
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
