/**
 * The Milvus store: vector index, BM25 keyword index and document registry of docqa on one
 * Milvus server, written with the staged protocol of `@docqa/core` (write → commit → prune).
 *
 * Per organisation it keeps a chunk collection (chunk versions side by side, keyed
 * `<docId>::<chunkIndex>::<contentHash>`) and a registry collection (the committed version of each
 * document), both created on first write. Searches pre-filter by ACL, document ids and metadata
 * inside Milvus, so top-k is filled with chunks the principal may read, then re-check every result
 * with `matchesChunkFilter`. Reads use consistency level Strong, so a write is searchable as soon
 * as it is acknowledged (no flush).
 */
import {
  type Analyzer,
  type ChunkFilter,
  createEnglishAnalyzer,
  DocqaError,
  type DocumentVersion,
  type EmbeddingModelInfo,
  indexedText,
  type Logger,
  matchesChunkFilter,
  organisationCollectionName,
  type RegisteredDocument,
  type ScoredChunk,
  type SearchOptions,
  type ServerVectorStore,
  silentLogger,
  type WriteOptions,
} from "@docqa/core";
import { ConsistencyLevelEnum, type MilvusClient } from "@zilliz/milvus2-sdk-node";
import {
  type ChunkRow,
  chunkOutputFields,
  chunkToRow,
  maximumArrayCapacity,
  maximumVarCharBytes,
  rowToChunk,
  utf8Length,
} from "./chunk-rows.js";
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
  registryCollectionFields,
  registryIndex,
  registryPlaceholderVector,
} from "./collection-schemas.js";
import {
  afterPrimaryKey,
  chunkFilterExpression,
  derivedFromExpression,
  documentIdsExpression,
  type FilterExpression,
  type FilterValueMode,
  pruneExpression,
} from "./filter-expression.js";
import { asStatusError, type CallOptions, checkStatus, MilvusConnection, MilvusStatusError } from "./milvus-connection.js";

/** Settings of {@link createMilvusStore}. Every setting has a default. */
export interface MilvusStoreSettings {
  /** Server address (`VECTORDB_URI`); default `http://localhost:19530`. */
  address?: string | undefined;
  /** Token, `user:password` or an API key (`VECTORDB_TOKEN`); default none. */
  token?: string | undefined;
  /**
   * Base collection name (`VECTORDB_COLLECTION`); default `docs_collection`. Letters, digits and
   * underscores, not starting with a digit. Each organisation gets `<base>_<suffix>` and
   * `<base>_<suffix>_registry`.
   */
  collection?: string | undefined;
  /** Deadline of each request to Milvus in milliseconds (`STORE_TIMEOUT_MS`); default 10,000. */
  timeoutMs?: number | undefined;
  /**
   * Deadline of creating and loading a collection (first write of an organisation, first use
   * after a server restart); default the larger of 60,000 and `timeoutMs`.
   */
  schemaTimeoutMs?: number | undefined;
  /** BM25 parameters of new collections (`BM25_K1`, `BM25_B`); default k1 = 0.9, b = 0.4. */
  bm25?: Bm25IndexParameters | undefined;
  /**
   * HNSW parameters: graph degree M (`HNSW_CONNECTIVITY`, default 16), efConstruction (default
   * 200) for new collections, and the search list size ef (`HNSW_EXPANSION_SEARCH`, default 64;
   * raised to top-k when smaller).
   */
  hnsw?: (HnswBuildParameters & { expansionSearch: number }) | undefined;
  /**
   * Who analyses text for BM25 in new collections: `docqa` (default) analyses it with `analyzer`
   * and stores the terms, which Milvus splits on whitespace, so ranking matches the embedded
   * store's (stemming, stop words, CJK bigrams) on every server; `milvus` stores the raw text and
   * lets Milvus's `english` analyzer process it (Milvus 2.5+, not milvus-lite).
   */
  textAnalysis?: "docqa" | "milvus" | undefined;
  /** The analyzer of `textAnalysis: "docqa"`; default `createEnglishAnalyzer()`. */
  analyzer?: Analyzer | undefined;
  /**
   * How filter values reach Milvus: `template` (filter templating, Milvus 2.5+), `literal`
   * (escaped literals) or `auto` (default: templating when the server supports it, probed once).
   */
  filterValues?: "auto" | FilterValueMode | undefined;
  /** Most rows per insert request; default 500 (requests are also kept under 8 MiB). */
  batchSize?: number | undefined;
  /** Logger; default silent. */
  logger?: Logger | undefined;
}

/** An opened chunk collection. */
interface ChunkCollection {
  name: string;
  record: ChunkCollectionRecord;
  /** Dimension of the `embedding` field. */
  dimension: number;
}

/** Largest `limit` (top-k) Milvus accepts for a search or query. */
const maximumTopK = 16_384;
/** Largest request built by `write`, in estimated bytes. */
const maximumRequestBytes = 8 * 1024 * 1024;
/** Values per `in` list or per registry request. */
const listBatchSize = 1_000;
/** Documents per prune expression. */
const pruneBatchSize = 100;
/** Dimension of the placeholder `embedding` of collections created without an embedding model. */
const placeholderDimension = 2;

/**
 * Creates a Milvus store. Nothing connects until the first call, so this never fails because the
 * server is down.
 *
 * @throws {DocqaError} `config_invalid` when `settings.collection` is not a valid base name.
 * @example
 * ```ts
 * const store = createMilvusStore({ address: "http://localhost:19530", collection: "docs" });
 * const stores = stagedDocumentStores({ vector: store, keyword: store, registry: store });
 * ```
 */
export function createMilvusStore(settings: MilvusStoreSettings = {}): MilvusStore {
  return new MilvusStore(settings);
}

/** The Milvus implementation of `ServerVectorStore`; see the module documentation. */
export class MilvusStore implements ServerVectorStore {
  readonly name = "milvus";
  readonly writes = "staged" as const;
  private readonly connection: MilvusConnection;
  private readonly logger: Logger;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly schemaTimeoutMs: number;
  private readonly bm25: Bm25IndexParameters;
  private readonly hnsw: HnswBuildParameters & { expansionSearch: number };
  private readonly textAnalysis: "docqa" | "milvus";
  private readonly analyzer: Analyzer;
  private readonly filterValues: "auto" | FilterValueMode;
  private readonly batchSize: number;
  private readonly chunkCollections = new Map<string, Promise<ChunkCollection | undefined>>();
  private readonly registries = new Map<string, Promise<boolean>>();
  private filterMode: Promise<FilterValueMode> | undefined;

  constructor(settings: MilvusStoreSettings = {}) {
    this.base = settings.collection ?? "docs_collection";
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,179}$/.test(this.base)) {
      throw new DocqaError(
        "config_invalid",
        `VECTORDB_COLLECTION ${JSON.stringify(this.base)} is not a valid Milvus collection base name: use at most 180 letters, digits and underscores, not starting with a digit`,
        { component: "milvus" },
      );
    }
    this.logger = settings.logger ?? silentLogger;
    this.timeoutMs = settings.timeoutMs ?? 10_000;
    this.schemaTimeoutMs = settings.schemaTimeoutMs ?? Math.max(60_000, this.timeoutMs);
    this.bm25 = settings.bm25 ?? { k1: 0.9, b: 0.4 };
    this.hnsw = settings.hnsw ?? { connectivity: 16, construction: 200, expansionSearch: 64 };
    this.textAnalysis = settings.textAnalysis ?? "docqa";
    this.analyzer = settings.analyzer ?? createEnglishAnalyzer();
    this.filterValues = settings.filterValues ?? "auto";
    this.batchSize = settings.batchSize ?? 500;
    this.connection = new MilvusConnection({
      address: settings.address ?? "http://localhost:19530",
      token: settings.token,
      timeoutMs: this.timeoutMs,
      logger: this.logger,
    });
  }

  /** The chunk collection of an organisation: `<base>_<organisation suffix>`. */
  chunkCollectionName(orgId: string): string {
    return organisationCollectionName(this.base, orgId);
  }

  /** The registry collection of an organisation: `<chunk collection>_registry`. */
  registryCollectionName(orgId: string): string {
    return `${this.chunkCollectionName(orgId)}_registry`;
  }

  /** Number of chunk rows of the organisation (every stored version); 0 without a collection. */
  async count(orgId: string): Promise<number> {
    return this.withChunkCollection(orgId, 0, async (collection) => {
      const response = await this.connection.call("count chunks", async (client, timeout) =>
        checkStatus(
          "count chunks",
          await client.query({
            collection_name: collection.name,
            filter: "",
            output_fields: ["count(*)"],
            consistency_level: ConsistencyLevelEnum.Strong,
            timeout,
          }),
        ),
      );
      return Number(response.data[0]?.["count(*)"] ?? 0);
    });
  }

  async searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]> {
    if (vector.length !== model.dimension) {
      throw new DocqaError(
        "embedding_dimension_mismatch",
        `the query vector has ${vector.length} dimensions; ${model.id} has ${model.dimension}`,
        { component: "milvus" },
      );
    }
    if (options.topK <= 0) return [];
    return this.withChunkCollection(orgId, [], async (collection) => {
      this.assertModel(collection, model);
      const mode = await this.filterValueMode(collection.name);
      const expression = chunkFilterExpression(options.filter, mode, { withEmbedding: true });
      if (!expression) return [];
      const data = Array.from(vector);
      return this.filteredSearch(options.topK, options.filter, async (limit) =>
        (
          await this.searchRows("search by vector", collection.name, expression, options.signal, {
            anns_field: "embedding",
            data,
            limit,
            metric_type: "COSINE",
            params: { ef: Math.max(limit, this.hnsw.expansionSearch) },
          })
        ).map((row) => ({ chunk: rowToChunk(row), score: Number(row.score) })),
      );
    });
  }

  async searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]> {
    if (options.topK <= 0) return [];
    return this.withChunkCollection(orgId, [], async (collection) => {
      const text = this.bm25Query(collection, query);
      if (text.trim() === "") return [];
      const mode = await this.filterValueMode(collection.name);
      const expression = chunkFilterExpression(options.filter, mode);
      if (!expression) return [];
      const sign = await this.bm25ScoreSign();
      return this.filteredSearch(options.topK, options.filter, async (limit) =>
        (
          await this.searchRows("search by text", collection.name, expression, options.signal, {
            anns_field: "bm25_sparse",
            data: text,
            limit,
            metric_type: "BM25",
          })
        )
          .map((row) => ({ chunk: rowToChunk(row), score: sign * Number(row.score) }))
          .sort((left, right) => right.score - left.score),
      );
    });
  }

  /**
   * One search of a chunk collection with `expression` as filter: the chunk fields, strong
   * consistency, the store's time limit; `request` gives the field, query data, limit and metric.
   */
  private async searchRows(
    operation: string,
    collectionName: string,
    expression: FilterExpression,
    signal: AbortSignal | undefined,
    request: { anns_field: string; data: number[] | string; limit: number; metric_type: string; params?: Record<string, number> },
  ): Promise<Record<string, unknown>[]> {
    const response = await this.connection.call(
      operation,
      async (client, timeout) =>
        checkStatus(
          operation,
          await client.search({
            collection_name: collectionName,
            ...request,
            ...filterRequest(expression),
            output_fields: chunkOutputFields,
            consistency_level: ConsistencyLevelEnum.Strong,
            timeout,
          }),
        ),
      { signal },
    );
    return response.results as Record<string, unknown>[];
  }

  async write(orgId: string, documents: readonly DocumentVersion[], options: WriteOptions = {}): Promise<void> {
    const chunkCount = documents.reduce((total, document) => total + document.chunks.length, 0);
    if (chunkCount === 0) return;
    const model = options.embeddingModel;
    const hasVectors = documents.some((document) => document.chunks.some((chunk) => chunk.embedding !== undefined));
    if (hasVectors && !model) {
      throw new DocqaError("invalid_request", "chunks carry embeddings but the write names no embedding model", { component: "milvus" });
    }
    const collection = await this.chunkCollection(orgId, { model: model ?? null });
    if (!collection) throw new DocqaError("internal_error", "the chunk collection was not created", { component: "milvus" });
    if (hasVectors && model) this.assertModel(collection, model);
    const truncated: string[] = [];
    const rows: ChunkRow[] = [];
    for (const document of documents) {
      for (const chunk of document.chunks) {
        const converted = chunkToRow(document.docId, document.contentHash, chunk, {
          dimension: collection.dimension,
          bm25Text: (item) => this.bm25Document(collection, indexedText(item)),
        });
        rows.push(converted.row);
        if (converted.truncated.length > 0) truncated.push(`${converted.row.id} (${converted.truncated.join(", ")})`);
      }
    }
    if (truncated.length > 0) {
      this.logger.warn(`truncated ${truncated.length} chunks to Milvus's ${maximumVarCharBytes}-byte field limit`, {
        component: "milvus",
        chunks: truncated.slice(0, 10),
      });
    }
    for (const batch of batches(rows, this.batchSize, estimatedBytes)) {
      await this.connection.call(`write ${batch.length} chunks`, async (client, timeout) => {
        const response = checkStatus("write chunks", await client.upsert({ collection_name: collection.name, data: batch, timeout }));
        const failed = (response.err_index ?? []).map((index) => batch[Number(index)]?.id);
        if (failed.length > 0) {
          throw new DocqaError("store_unavailable", `Milvus did not write ${failed.length} chunks: ${failed.slice(0, 10).join(", ")}`, {
            component: "milvus",
          });
        }
      });
    }
  }

  async prune(orgId: string, keep: ReadonlyMap<string, string | null>): Promise<void> {
    if (keep.size === 0) return;
    await this.withChunkCollection(orgId, undefined, async (collection) => {
      const mode = await this.filterValueMode(collection.name);
      for (const batch of chunksOf([...keep], pruneBatchSize)) {
        await this.deleteWhere(collection.name, pruneExpression(batch, mode), "prune old chunk versions");
      }
    });
  }

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
      return {
        doc_id: document.docId,
        content_hash: document.contentHash,
        derived_from: derivedFrom,
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
      const mode = await this.filterValueMode(name);
      for (const batch of chunksOf(change.remove, listBatchSize)) {
        await this.deleteWhere(name, documentIdsExpression(batch, mode), "remove documents from the registry");
      }
    });
  }

  async contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>> {
    if (docIds.length === 0) return new Map();
    return this.withRegistry(orgId, false, new Map<string, string>(), async (name) => {
      const hashes = new Map<string, string>();
      const mode = await this.filterValueMode(name);
      for (const batch of chunksOf([...new Set(docIds)], listBatchSize)) {
        const expression = documentIdsExpression(batch, mode);
        const rows = await this.query(name, expression, ["doc_id", "content_hash"], batch.length, "read committed versions");
        for (const row of rows) hashes.set(String(row.doc_id), String(row.content_hash));
      }
      return hashes;
    });
  }

  async derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]> {
    if (sourceDocIds.length === 0) return [];
    return this.withRegistry(orgId, false, [], async (name) => {
      const mode = await this.filterValueMode(name);
      const found = new Set<string>();
      for (const batch of chunksOf([...new Set(sourceDocIds)], listBatchSize)) {
        const base = derivedFromExpression(batch, mode);
        let expression = base;
        for (;;) {
          // Pages in primary key order: Milvus sorts query results with a limit by primary key,
          // comparing VarChar keys as UTF-8 bytes.
          const rows = await this.query(name, expression, ["doc_id"], maximumTopK, "read derived documents");
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
   * Drops the organisation's chunk and registry collections (every document, version and
   * recorded setting). A no-op for an organisation without collections.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async dropOrganisation(orgId: string): Promise<void> {
    const names = [this.chunkCollectionName(orgId), this.registryCollectionName(orgId)];
    for (const name of names) {
      this.chunkCollections.delete(name);
      this.registries.delete(name);
      await this.connection.call(`drop collection ${name}`, async (client, timeout) => {
        const exists = checkStatus("check a collection", await client.hasCollection({ collection_name: name, timeout }));
        if (exists.value) checkStatus("drop a collection", await client.dropCollection({ collection_name: name, timeout }));
      });
    }
  }

  async close(): Promise<void> {
    this.chunkCollections.clear();
    this.registries.clear();
    this.filterMode = undefined;
    await this.connection.close();
  }

  /**
   * Runs `action` on the organisation's chunk collection, or returns `empty` when there is none.
   * When Milvus reports the collection missing or unloaded (dropped, or the server restarted),
   * the collection is opened again and `action` retried once.
   */
  private async withChunkCollection<T>(orgId: string, empty: T, action: (collection: ChunkCollection) => Promise<T>): Promise<T> {
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
   * Runs `action` on the organisation's registry collection (created first when `create`), or
   * returns `empty` when there is none; retried once after reopening, like
   * {@link withChunkCollection}.
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

  /** The organisation's chunk collection, opened (and loaded) once; created when `create` is given. */
  private async chunkCollection(orgId: string, create?: { model: EmbeddingModelInfo | null }): Promise<ChunkCollection | undefined> {
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

  private async openChunkCollection(name: string, create?: { model: EmbeddingModelInfo | null }): Promise<ChunkCollection | undefined> {
    const options: CallOptions = { timeoutMs: this.schemaTimeoutMs };
    const exists = await this.connection.call(
      "check a collection",
      async (client, timeout) => checkStatus("check a collection", await client.hasCollection({ collection_name: name, timeout })).value,
      options,
    );
    if (!exists) {
      if (!create) return undefined;
      await this.createChunkCollection(name, create.model);
    }
    const described = await this.connection.call(
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
    const tokenizers = this.textAnalysis === "docqa" ? ["whitespace", "standard"] : ["english"];
    const textAnalysis = this.textAnalysis === "docqa" ? `docqa:${this.analyzer.name}` : "milvus:english";
    const options: CallOptions = { timeoutMs: this.schemaTimeoutMs };
    for (const [index, tokenizer] of tokenizers.entries()) {
      try {
        await this.connection.call(
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
        this.logger.info("created a Milvus chunk collection", { component: "milvus", collection: name, tokenizer, dimension });
        break;
      } catch (error) {
        const cause = DocqaError.isInstance(error) ? error.cause : undefined;
        if (cause instanceof MilvusStatusError && cause.alreadyExists) return; // another writer created it
        const unsupported = cause instanceof MilvusStatusError && /tokenizer|analyzer/i.test(cause.status.reason);
        if (!unsupported || index === tokenizers.length - 1) throw error;
        this.logger.info(`Milvus has no ${tokenizer} tokenizer; trying ${tokenizers[index + 1]}`, { component: "milvus" });
      }
    }
    const indexes = chunkIndexes(this.hnsw, this.bm25);
    for (const index of indexes.required) await this.createIndex(name, index, true);
    for (const index of indexes.optional) await this.createIndex(name, index, false);
  }

  private async createIndex(collection: string, index: IndexDefinition, required: boolean): Promise<void> {
    try {
      await this.connection.call(
        `create the ${index.field_name} index`,
        async (client, timeout) =>
          checkStatus("create an index", await client.createIndex({ collection_name: collection, ...index, timeout })),
        { timeoutMs: this.schemaTimeoutMs },
      );
    } catch (error) {
      const cause = DocqaError.isInstance(error) ? error.cause : undefined;
      if (cause instanceof MilvusStatusError && /already exist/i.test(cause.status.reason)) return;
      if (required) throw error;
      this.logger.debug("optional Milvus index not created", {
        component: "milvus",
        field: index.field_name,
        error: (error as Error).message,
      });
    }
  }

  /** Loads the collection unless it is loaded; waits while another writer is still building it. */
  private async ensureLoaded(name: string): Promise<void> {
    const deadline = Date.now() + this.schemaTimeoutMs;
    for (;;) {
      try {
        await this.connection.call(
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
                  properties: { "docqa.schema": "1", "docqa.role": "registry" },
                  timeout,
                }),
              );
            } catch (error) {
              throw asStatusError("create the registry collection", error);
            }
          },
          options,
        );
        await this.createIndex(name, registryIndex, true);
      } catch (error) {
        const cause = DocqaError.isInstance(error) ? error.cause : undefined;
        if (!(cause instanceof MilvusStatusError && cause.alreadyExists)) throw error;
      }
    }
    await this.ensureLoaded(name);
    return true;
  }

  /** How filter values reach this server: fixed by the settings, or probed once. */
  private filterValueMode(collection: string): Promise<FilterValueMode> {
    if (this.filterValues !== "auto") return Promise.resolve(this.filterValues);
    this.filterMode ??= this.probeTemplating(collection).catch((error: unknown) => {
      this.filterMode = undefined;
      throw error;
    });
    return this.filterMode;
  }

  /**
   * Whether the server supports filter templating: a query with a `{placeholder}` succeeds on
   * Milvus 2.5+ and fails to parse on servers without templating (milvus-lite, Milvus 2.4).
   */
  private async probeTemplating(collection: string): Promise<FilterValueMode> {
    try {
      await this.connection.call("probe filter templating", async (client, timeout) =>
        checkStatus(
          "probe filter templating",
          await client.query({
            collection_name: collection,
            filter: "doc_id == {docqa_probe}",
            exprValues: { docqa_probe: "" },
            output_fields: ["doc_id"],
            limit: 1,
            timeout,
          }),
        ),
      );
      this.logger.debug("Milvus supports filter templating", { component: "milvus" });
      return "template";
    } catch (error) {
      const cause = DocqaError.isInstance(error) ? error.cause : undefined;
      if (!(cause instanceof MilvusStatusError) || cause.collectionMissing || cause.collectionNotLoaded) throw error;
      this.logger.info("Milvus has no filter templating; filter values are sent as escaped literals", {
        component: "milvus",
        reason: cause.status.reason.split("\n")[0],
      });
      return "literal";
    }
  }

  /**
   * +1 when the server returns BM25 scores as they are (Milvus), −1 when it returns them negated
   * like distances (milvus-lite 3.x), so that callers always get non-negative BM25 scores.
   */
  private async bm25ScoreSign(): Promise<1 | -1> {
    const version = await this.connection.serverVersion();
    return /lite/i.test(version) ? -1 : 1;
  }

  /** Fails unless the collection holds vectors of `model`. */
  private assertModel(collection: ChunkCollection, model: EmbeddingModelInfo): void {
    const stored = collection.record.embeddingModel;
    if (stored && stored.id === model.id && stored.dimension === model.dimension) return;
    const holds = stored
      ? `${stored.dimension}-dimensional vectors of ${stored.id}`
      : "no embeddings (it was created without an embedding model)";
    throw new DocqaError(
      "embedding_model_mismatch",
      `collection ${collection.name} holds ${holds}, not of ${model.id} (${model.dimension}): re-ingest into another VECTORDB_COLLECTION or use the same EMBED_MODEL_NAME`,
      { component: "milvus" },
    );
  }

  /** The `bm25_text` of a document's indexed text, as the collection was built to expect. */
  private bm25Document(collection: ChunkCollection, text: string): string {
    return this.usesDocqaAnalysis(collection) ? this.analyzer.analyze(text).join(" ") : text;
  }

  /** The BM25 query text for `query`. */
  private bm25Query(collection: ChunkCollection, query: string): string {
    return this.usesDocqaAnalysis(collection) ? this.analyzer.analyze(query).join(" ") : query;
  }

  private usesDocqaAnalysis(collection: ChunkCollection): boolean {
    const recorded = collection.record.textAnalysis;
    if (recorded === "milvus:english") return false;
    if (recorded === `docqa:${this.analyzer.name}`) return true;
    throw new DocqaError(
      "config_invalid",
      `collection ${collection.name} was indexed with text analysis ${recorded}; this store analyses with docqa:${this.analyzer.name}: re-ingest into another VECTORDB_COLLECTION`,
      { component: "milvus" },
    );
  }

  /**
   * Runs a search at growing limits until `topK` results pass `matchesChunkFilter` (the engine's
   * pre-filter normally guarantees it on the first call), the engine has no more results, or the
   * limit reaches Milvus's maximum.
   */
  private async filteredSearch(topK: number, filter: ChunkFilter, run: (limit: number) => Promise<ScoredChunk[]>): Promise<ScoredChunk[]> {
    let limit = Math.min(topK, maximumTopK);
    for (;;) {
      const found = await run(limit);
      const kept = found.filter((result) => matchesChunkFilter(result.chunk, filter));
      if (kept.length >= topK || found.length < limit || limit >= maximumTopK) return kept.slice(0, topK);
      limit = Math.min(maximumTopK, limit * 4);
    }
  }

  private async query(
    collection: string,
    expression: FilterExpression,
    outputFields: string[],
    limit: number,
    operation: string,
  ): Promise<Record<string, unknown>[]> {
    const response = await this.connection.call(operation, async (client, timeout) =>
      checkStatus(
        operation,
        await client.query({
          collection_name: collection,
          ...filterRequest(expression),
          output_fields: outputFields,
          limit,
          consistency_level: ConsistencyLevelEnum.Strong,
          timeout,
        }),
      ),
    );
    return response.data;
  }

  private async deleteWhere(collection: string, expression: FilterExpression, operation: string): Promise<void> {
    await this.connection.call(operation, async (client, timeout) =>
      checkStatus(
        operation,
        await client.delete({
          collection_name: collection,
          filter: expression.expression,
          ...(Object.keys(expression.values).length > 0 ? { exprValues: expression.values } : {}),
          timeout,
        }),
      ),
    );
  }
}

/** Whether `error` says the collection is missing or not loaded (dropped, or the server restarted). */
function collectionGone(error: unknown): boolean {
  const cause = DocqaError.isInstance(error) ? error.cause : error;
  return cause instanceof MilvusStatusError && (cause.collectionMissing || cause.collectionNotLoaded);
}

/** Orders strings by their UTF-8 bytes, as Milvus orders VarChar values. */
function compareUtf8(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left, "utf8"), Buffer.from(right, "utf8"));
}

/** The `filter` and `exprValues` of a request (nothing for an empty expression). */
function filterRequest(expression: FilterExpression): { filter?: string; exprValues?: Record<string, unknown> } {
  if (expression.expression === "") return {};
  return Object.keys(expression.values).length > 0
    ? { filter: expression.expression, exprValues: expression.values }
    : { filter: expression.expression };
}

/** Loads a collection and waits until it is loaded (the SDK's `loadCollection` polls progress). */
async function loadCollection(client: MilvusClient, name: string, timeout: number): Promise<void> {
  checkStatus("load a collection", await client.loadCollection({ collection_name: name, timeout }));
}

/** Splits `items` into batches of at most `size` items and `maximumRequestBytes` bytes. */
function* batches<T>(items: readonly T[], size: number, bytesOf: (item: T) => number): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const itemBytes = bytesOf(item);
    if (batch.length > 0 && (batch.length >= size || bytes + itemBytes > maximumRequestBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += itemBytes;
  }
  if (batch.length > 0) yield batch;
}

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** A generous estimate of a row's size in a request. */
function estimatedBytes(row: ChunkRow): number {
  return (
    utf8Length(row.text) +
    utf8Length(row.bm25_text) +
    utf8Length(row.title) +
    utf8Length(row.acl) +
    utf8Length(JSON.stringify(row.metadata)) +
    8 * row.embedding.length +
    1024
  );
}
