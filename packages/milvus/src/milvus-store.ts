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
 *
 * This file holds the store's own work (writing and pruning chunks); it composes the searches
 * (`milvus-search.ts`), the BM25 text analysis (`milvus-text-analysis.ts`), the collection
 * lifecycle (`milvus-collections.ts`), the registry (`milvus-registry.ts`) and the probing of
 * server capabilities (`milvus-capabilities.ts`).
 */
import { DocqaError, type Logger, silentLogger } from "@docqa/core";
import { type Analyzer, createEnglishAnalyzer } from "@docqa/core/retrieval";
import {
  type ChunkRecord,
  type CountOptions,
  compareUtf8,
  type DocumentPage,
  type DocumentQuery,
  type DocumentRecord,
  type DocumentVersion,
  defaultHnswExpansionSearch,
  type EmbeddingModelInfo,
  type HybridIndex,
  type HybridSearchRequest,
  type RegisteredDocument,
  type ReindexableIndex,
  type ReindexJob,
  type ReindexTarget,
  type ScoredChunk,
  type SearchOptions,
  type ServerVectorStore,
  type StoredVersion,
  type SweepableIndex,
  type WriteOptions,
} from "@docqa/core/stores";
import { ConsistencyLevelEnum } from "@zilliz/milvus2-sdk-node";
import { type ChunkRow, chunkOutputFields, chunkToRow, maximumVarCharBytes, rowToChunk, utf8Length } from "./chunk-rows.js";
import type { Bm25IndexParameters, HnswBuildParameters } from "./collection-schemas.js";
import { afterPrimaryKey, documentVersionExpression, type FilterValueMode, pruneExpression } from "./filter-expression.js";
import { MilvusCapabilities } from "./milvus-capabilities.js";
import { type ChunkCollection, MilvusCollections } from "./milvus-collections.js";
import { checkStatus, MilvusConnection } from "./milvus-connection.js";
import { MilvusRegistry } from "./milvus-registry.js";
import { MilvusReindex } from "./milvus-reindex.js";
import { chunksOf, deleteRows, maximumTopK, queryRows } from "./milvus-requests.js";
import { assertCollectionModel, MilvusSearch } from "./milvus-search.js";
import { MilvusSweep } from "./milvus-sweep.js";
import { MilvusTextAnalysis } from "./milvus-text-analysis.js";

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
   * 200) for new collections, and the search list size ef (`HNSW_EXPANSION_SEARCH`, default
   * `defaultHnswExpansionSearch` of `@docqa/core/stores`, 128;
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
  /**
   * Whether this store serves the BM25 keyword index; default true. False when a search engine
   * serves BM25 (`KEYWORD_STORE` elasticsearch or opensearch): new chunk collections then have no
   * `bm25_text`, `bm25_sparse`, BM25 function or sparse index, so Milvus does no BM25 work (no
   * text analysis, no term statistics), and writes to older collections that have them leave
   * `bm25_text` empty. {@link MilvusStore.searchByText} then fails with `config_invalid`.
   * Milvus 2.3 and 2.4 (no BM25 function) can serve as the vector index only this way.
   */
  keywordIndex?: boolean | undefined;
  /** The analyzer of `textAnalysis: "docqa"`; default `createEnglishAnalyzer()`. */
  analyzer?: Analyzer | undefined;
  /**
   * How filter values reach Milvus: `template` (filter templating, Milvus 2.5+), `literal`
   * (escaped literals) or `auto` (default: templating when the server supports it, probed once).
   */
  filterValues?: "auto" | FilterValueMode | undefined;
  /** Most rows per insert request; default 500 (requests are also kept under 8 MiB). */
  batchSize?: number | undefined;
  /**
   * After a reindex switched an organisation to a new collection: how long the old one is kept,
   * in milliseconds, while chunks that other processes wrote through it (before they saw the
   * switch) are copied over; default the larger of 5,000 and `timeoutMs`.
   */
  reindexSettleMs?: number | undefined;
  /** Logger; default silent. */
  logger?: Logger | undefined;
}

/** Largest request built by `write`, in estimated bytes. */
const maximumRequestBytes = 8 * 1024 * 1024;
/** Documents per prune expression. */
const pruneBatchSize = 100;

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
export class MilvusStore implements ServerVectorStore, SweepableIndex, ReindexableIndex, HybridIndex {
  readonly name = "milvus";
  readonly writes = "staged" as const;
  private readonly connection: MilvusConnection;
  private readonly logger: Logger;
  private readonly hnsw: HnswBuildParameters & { expansionSearch: number };
  private readonly analyzer: Analyzer;
  private readonly batchSize: number;
  private readonly keywordIndex: boolean;
  private readonly capabilities: MilvusCapabilities;
  private readonly collections: MilvusCollections;
  private readonly registry: MilvusRegistry;
  private readonly sweeping: MilvusSweep;
  private readonly reindexing: MilvusReindex;
  private readonly textAnalysis: MilvusTextAnalysis;
  private readonly search: MilvusSearch;

  constructor(settings: MilvusStoreSettings = {}) {
    const base = settings.collection ?? "docs_collection";
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,179}$/.test(base)) {
      throw new DocqaError(
        "config_invalid",
        `VECTORDB_COLLECTION ${JSON.stringify(base)} is not a valid Milvus collection base name: use at most 180 letters, digits and underscores, not starting with a digit`,
        { component: "milvus" },
      );
    }
    this.logger = settings.logger ?? silentLogger;
    const timeoutMs = settings.timeoutMs ?? 10_000;
    const schemaTimeoutMs = settings.schemaTimeoutMs ?? Math.max(60_000, timeoutMs);
    const bm25: Bm25IndexParameters = settings.bm25 ?? { k1: 0.9, b: 0.4 };
    this.hnsw = settings.hnsw ?? { connectivity: 16, construction: 200, expansionSearch: defaultHnswExpansionSearch };
    this.analyzer = settings.analyzer ?? createEnglishAnalyzer();
    this.batchSize = settings.batchSize ?? 500;
    this.keywordIndex = settings.keywordIndex ?? true;
    this.connection = new MilvusConnection({
      address: settings.address ?? "http://localhost:19530",
      token: settings.token,
      timeoutMs,
      logger: this.logger,
    });
    this.capabilities = new MilvusCapabilities(this.connection, this.logger, settings.filterValues ?? "auto");
    this.collections = new MilvusCollections({
      connection: this.connection,
      base,
      schemaTimeoutMs,
      bm25,
      hnsw: this.hnsw,
      textAnalysis: settings.keywordIndex === false ? "none" : (settings.textAnalysis ?? "docqa"),
      analyzer: this.analyzer,
      logger: this.logger,
    });
    this.textAnalysis = new MilvusTextAnalysis(this.analyzer, this.keywordIndex);
    this.search = new MilvusSearch(this.connection, this.collections, this.capabilities, this.textAnalysis, {
      expansionSearch: this.hnsw.expansionSearch,
      keywordIndex: this.keywordIndex,
    });
    this.registry = new MilvusRegistry(this.connection, this.collections, this.capabilities, schemaTimeoutMs);
    this.sweeping = new MilvusSweep(this.connection, this.collections, this.capabilities);
    this.reindexing = new MilvusReindex({
      connection: this.connection,
      collections: this.collections,
      capabilities: this.capabilities,
      writeChunks: (collection, chunks) => this.writeChunks(collection, chunks),
      settleMs: settings.reindexSettleMs ?? Math.max(5_000, timeoutMs),
      logger: this.logger,
    });
  }

  /** The chunk collection of an organisation: `<base>_<organisation suffix>`. */
  chunkCollectionName(orgId: string): string {
    return this.collections.chunkCollectionName(orgId);
  }

  /** The registry collection of an organisation: `<chunk collection>_registry`. */
  registryCollectionName(orgId: string): string {
    return this.registry.registryCollectionName(orgId);
  }

  /** Number of chunk rows of the organisation (every stored version); 0 without a collection. */
  async count(orgId: string): Promise<number> {
    return this.collections.withChunkCollection(orgId, 0, async (collection) => {
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

  /** Asks the server its version (`GetVersion`), uncached, within `STORE_TIMEOUT_MS`. */
  async ping(): Promise<void> {
    await this.connection.call("answer a health check", async (client) => checkStatus("answer a health check", await client.getVersion()));
  }

  /** Vector search under the filter expression; see {@link MilvusSearch.searchByVector}. */
  searchByVector(orgId: string, vector: Float32Array, model: EmbeddingModelInfo, options: SearchOptions): Promise<ScoredChunk[]> {
    return this.search.searchByVector(orgId, vector, model, options);
  }

  /** BM25 search under the filter expression; see {@link MilvusSearch.searchByText}. */
  searchByText(orgId: string, query: string, options: SearchOptions): Promise<ScoredChunk[]> {
    return this.search.searchByText(orgId, query, options);
  }

  /** Vector and BM25 lists fused by Milvus in one request; see {@link MilvusSearch.searchHybrid}. */
  searchHybrid(orgId: string, request: HybridSearchRequest): Promise<ScoredChunk[] | undefined> {
    return this.search.searchHybrid(orgId, request);
  }

  /** The number of chunks matching `query` or in `options.include`; see {@link MilvusSearch.countByText}. */
  countByText(orgId: string, query: string, options: CountOptions): Promise<number> {
    return this.search.countByText(orgId, query, options);
  }

  async write(orgId: string, documents: readonly DocumentVersion[], options: WriteOptions = {}): Promise<void> {
    const chunkCount = documents.reduce((total, document) => total + document.chunks.length, 0);
    if (chunkCount === 0) return;
    const model = options.embeddingModel;
    const hasVectors = documents.some((document) => document.chunks.some((chunk) => chunk.embedding !== undefined));
    if (hasVectors && !model) {
      throw new DocqaError("invalid_request", "chunks carry embeddings but the write names no embedding model", { component: "milvus" });
    }
    const collection = await this.collections.chunkCollection(orgId, { model: model ?? null });
    if (!collection) throw new DocqaError("internal_error", "the chunk collection was not created", { component: "milvus" });
    if (hasVectors && model) assertCollectionModel(collection, model);
    await this.writeChunks(
      collection,
      documents.flatMap((document) =>
        document.chunks.map((chunk) => ({ ...chunk, docId: document.docId, contentHash: document.contentHash })),
      ),
    );
  }

  /**
   * Writes chunks (each keyed by its document, position and version) to `collection`, in batches
   * of at most `batchSize` rows and 8 MiB.
   *
   * @throws {DocqaError} `store_unavailable` (including rows Milvus did not write);
   *   `embedding_dimension_mismatch`; `payload_too_large`.
   */
  private async writeChunks(collection: ChunkCollection, chunks: readonly ChunkRecord[]): Promise<void> {
    const bm25Text = this.textAnalysis.bm25Text(collection);
    const truncated: string[] = [];
    const rows: ChunkRow[] = [];
    for (const chunk of chunks) {
      const converted = chunkToRow(chunk.docId, chunk.contentHash, chunk, { dimension: collection.dimension, bm25Text });
      rows.push(converted.row);
      if (converted.truncated.length > 0) truncated.push(`${converted.row.id} (${converted.truncated.join(", ")})`);
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
    await this.collections.withChunkCollection(orgId, undefined, async (collection) => {
      const mode = await this.capabilities.filterValueMode(collection.name);
      for (const batch of chunksOf([...keep], pruneBatchSize)) {
        await deleteRows(this.connection, collection.name, pruneExpression(batch, mode), "prune old chunk versions");
      }
    });
  }

  async commit(orgId: string, change: { write: readonly RegisteredDocument[]; remove: readonly string[] }): Promise<void> {
    await this.registry.commit(orgId, change);
  }

  /** The model of the organisation's live vectors (see `ReindexableIndex.vectorModel`). */
  vectorModel(orgId: string): Promise<EmbeddingModelInfo | null | undefined> {
    return this.reindexing.vectorModel(orgId);
  }

  /** Prepares a new collection generation for a reindex (see `ReindexableIndex.beginReindex`). */
  beginReindex(orgId: string, job: ReindexJob): Promise<ReindexTarget> {
    return this.reindexing.beginReindex(orgId, job);
  }

  /** The organisation's latest reindex job (see `ReindexableIndex.reindexJob`). */
  reindexJob(orgId: string): Promise<ReindexJob | undefined> {
    return this.reindexing.reindexJob(orgId);
  }

  /** Organisations with a chunk collection of this base (see `SweepableIndex.organisations`). */
  organisations(): Promise<string[]> {
    return this.sweeping.organisations();
  }

  /** Every (document, version) stored for the organisation (see `SweepableIndex.storedVersions`). */
  storedVersions(orgId: string): Promise<StoredVersion[]> {
    return this.sweeping.storedVersions(orgId);
  }

  /** Deletes exactly these versions' chunks (see `SweepableIndex.removeVersions`). */
  removeVersions(orgId: string, versions: readonly Pick<StoredVersion, "docId" | "contentHash">[]): Promise<void> {
    return this.sweeping.removeVersions(orgId, versions);
  }

  async contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>> {
    return this.registry.contentHashes(orgId, docIds);
  }

  async derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]> {
    return this.registry.derivedDocuments(orgId, sourceDocIds);
  }

  async describeDocuments(orgId: string, docIds: readonly string[]): Promise<Map<string, DocumentRecord>> {
    return this.registry.describeDocuments(orgId, docIds);
  }

  async listDocuments(orgId: string, query: DocumentQuery): Promise<DocumentPage> {
    return this.registry.listDocuments(orgId, query);
  }

  /**
   * The chunks of one stored version of a document, with their embeddings (none for chunks
   * stored without one); see `ChunkIndex.documentChunks`. Text longer than Milvus's field limit
   * comes back truncated, as it was stored.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async documentChunks(orgId: string, docId: string, contentHash: string): Promise<ChunkRecord[]> {
    return this.collections.withChunkCollection(orgId, [], async (collection) => {
      const mode = await this.capabilities.filterValueMode(collection.name);
      const base = documentVersionExpression(docId, contentHash, mode);
      const rows: Record<string, unknown>[] = [];
      for (let expression = base; ; ) {
        // Pages in primary key order (Milvus sorts query results with a limit by primary key).
        const page = await queryRows(
          this.connection,
          collection.name,
          expression,
          [...chunkOutputFields, "has_embedding", "embedding"],
          maximumTopK,
          "read a document's chunks",
        );
        rows.push(...page);
        if (page.length < maximumTopK) break;
        const last = page.map((row) => String(row.id)).reduce((left, right) => (compareUtf8(right, left) > 0 ? right : left));
        expression = afterPrimaryKey(base, "id", last, mode);
      }
      return rows
        .map((row) => ({
          ...rowToChunk(row),
          embedding: row.has_embedding === true && Array.isArray(row.embedding) ? Float32Array.from(row.embedding as number[]) : undefined,
        }))
        .sort((left, right) => left.chunkIndex - right.chunkIndex);
    });
  }

  /**
   * Drops the organisation's chunk collections (every reindex generation and the alias naming
   * the live one) and registry collection: every document, version and recorded setting. A no-op
   * for an organisation without collections.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  async dropOrganisation(orgId: string): Promise<void> {
    await this.collections.dropLiveAlias(orgId);
    const names = [...(await this.collections.generationNames(orgId)), this.registryCollectionName(orgId)];
    for (const name of names) {
      this.collections.forget(name);
      this.registry.forget(name);
      await this.collections.drop(name);
    }
  }

  async close(): Promise<void> {
    this.collections.clear();
    this.registry.clear();
    this.capabilities.reset();
    await this.connection.close();
  }
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

/** A generous estimate of a row's size in a request. */
function estimatedBytes(row: ChunkRow): number {
  return (
    utf8Length(row.text) +
    utf8Length(row.bm25_text ?? "") +
    utf8Length(row.title) +
    utf8Length(row.acl) +
    utf8Length(JSON.stringify(row.metadata)) +
    8 * row.embedding.length +
    1024
  );
}
