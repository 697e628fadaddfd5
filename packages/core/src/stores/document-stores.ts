/**
 * The stores a service reads and writes, bundled with the write protocol that keeps them
 * consistent:
 *
 * - **Transactional** (the embedded store): one store holds vectors, BM25 postings and the
 *   registry; a write is one transaction.
 * - **Staged** (server engines, for example Milvus and OpenSearch): no transaction spans two
 *   engines, so a write runs in four steps:
 *   1. *write*: each index adds the chunks of the new versions beside the old ones (keyed by
 *      version), and confirms;
 *   2. *commit*: the registry records the new versions; this is the moment readers switch, one
 *      document at a time, from the old version to the new;
 *   3. *prune*: each index deletes the versions that are no longer committed;
 *   4. on a failure in step 1 or 2, the new chunks of the documents not committed are deleted
 *      again (best effort) and the write fails with `store_unavailable`.
 *   Readers keep only chunks of committed versions ({@link DocumentStores.visible}), so a write
 *   that fails half-way, or a prune that has not run yet, is never visible: a document shows its
 *   old version or its new one, never a mix and never a half-indexed one. An acknowledged write
 *   has been confirmed by every index and committed; a failed prune leaves only invisible
 *   leftovers, removed by the next write of the document.
 */
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import { type ChunkRecord, type DocumentVersion, documentInfo, type ScoredChunk } from "./chunk-record.js";
import type { DocumentRegistry } from "./document-registry.js";
import type {
  KeywordIndex,
  RegisteredDocument,
  StagedIndex,
  StagedRegistry,
  TransactionalStore,
  UpsertOptions,
  VectorIndex,
} from "./vector-index.js";

/** The stores of a service and the protocol that writes them. */
export interface DocumentStores {
  /** The vector index, or undefined when the deployment runs BM25 only. */
  readonly vector: VectorIndex | undefined;
  readonly keyword: KeywordIndex;
  readonly registry: DocumentRegistry;
  /** `transactional` or `staged`; see the module documentation. */
  readonly writes: "transactional" | "staged";
  /** Names of the engines, for health and logs, for example `embedded` or `milvus+opensearch`. */
  readonly description: string;
  /**
   * Writes `documents` (each replacing every chunk of its `docId`) and deletes
   * `options.deleteDocIds`. Resolves once every store has confirmed and the versions are
   * committed.
   *
   * @throws {DocqaError} `store_unavailable` when a store fails or times out (nothing of this
   *   write is then visible, except documents whose commit had already succeeded);
   *   `embedding_model_mismatch`.
   */
  write(orgId: string, documents: readonly DocumentVersion[], options?: UpsertOptions): Promise<void>;
  /** Keeps the results that belong to committed document versions, in order. */
  visible(orgId: string, results: readonly ScoredChunk[]): Promise<ScoredChunk[]>;
  /**
   * The stored chunks of version `contentHash` of `docId`, in chunk order, with embeddings when
   * the deployment has a vector index (read from it; else from the keyword index, without).
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  documentChunks(orgId: string, docId: string, contentHash: string): Promise<ChunkRecord[]>;
  /**
   * Brings what this process holds in memory for `orgId` up to date with writes made elsewhere
   * (an ingestion worker thread, another process), in small steps that leave the event loop
   * free; searches would otherwise do it first. A no-op for server engines, which hold nothing.
   */
  refresh(orgId: string): Promise<void>;
  /** Closes every store once. */
  close(): Promise<void>;
}

/** Bundles a {@link TransactionalStore} (the embedded store) as the service's stores. */
export function transactionalDocumentStores(store: TransactionalStore): DocumentStores {
  return {
    vector: store,
    keyword: store,
    registry: store,
    writes: "transactional",
    description: store.name,
    write: (orgId, documents, options) => store.upsert(orgId, documents, options),
    visible: async (_orgId, results) => [...results],
    documentChunks: (orgId, docId, contentHash) => store.documentChunks(orgId, docId, contentHash),
    refresh: async (orgId) => {
      await store.refresh?.(orgId);
    },
    close: () => store.close(),
  };
}

/**
 * Parts of a staged deployment. The same object may serve several roles (Milvus alone); the
 * registry is usually the keyword index, and is not closed by the bundle unless it is one of the
 * indexes.
 */
export interface StagedStoreParts {
  vector?: (VectorIndex & StagedIndex) | undefined;
  keyword: KeywordIndex & StagedIndex;
  registry: StagedRegistry;
  logger?: Logger | undefined;
}

/** Bundles server indexes and a registry with the staged write protocol. */
export function stagedDocumentStores(parts: StagedStoreParts): DocumentStores {
  const logger = parts.logger ?? silentLogger;
  const indexes = unique<StagedIndex>([parts.vector, parts.keyword]);
  const closeables = unique<{ close(): Promise<void> }>([parts.vector, parts.keyword]);

  const removeUncommitted = async (orgId: string, documents: readonly DocumentVersion[], before: Map<string, string>) => {
    let committed: Map<string, string>;
    try {
      committed = await parts.registry.contentHashes(
        orgId,
        documents.map((document) => document.docId),
      );
    } catch {
      return; // the registry is down too; the leftovers are invisible and pruned by the next write
    }
    const keep = new Map<string, string | null>();
    for (const document of documents) {
      if (committed.get(document.docId) === document.contentHash) continue;
      keep.set(document.docId, committed.get(document.docId) ?? before.get(document.docId) ?? null);
    }
    if (keep.size === 0) return;
    await Promise.allSettled(indexes.map((index) => index.prune(orgId, keep)));
  };

  return {
    vector: parts.vector,
    keyword: parts.keyword,
    registry: parts.registry,
    writes: "staged",
    // A getter: a store may learn its engine (Elasticsearch or OpenSearch) on first use.
    get description() {
      return unique<{ name: string }>([parts.vector, parts.keyword, parts.registry])
        .map((item) => item.name)
        .join("+");
    },
    async write(orgId, documents, options = {}) {
      const remove = options.deleteDocIds ?? [];
      if (documents.length === 0 && remove.length === 0) return;
      const before = await parts.registry.contentHashes(orgId, [...documents.map((document) => document.docId), ...remove]);
      try {
        for (const index of indexes) await index.write(orgId, documents, { embeddingModel: options.embeddingModel });
        const entries: RegisteredDocument[] = documents.map((document) => ({
          docId: document.docId,
          contentHash: document.contentHash,
          derivedFrom: document.derivedFrom,
          info: documentInfo(document),
          chunkCount: document.chunks.length,
        }));
        await parts.registry.commit(orgId, { write: entries, remove });
      } catch (error) {
        await removeUncommitted(orgId, documents, before);
        throw storeError(error, "write");
      }
      // Prune only documents still at the version this write committed: a concurrent write that
      // committed a newer version since must not lose its chunks to this prune.
      const keep = new Map<string, string | null>(documents.map((document) => [document.docId, document.contentHash]));
      for (const docId of remove) keep.set(docId, null);
      let current: Map<string, string>;
      try {
        current = await parts.registry.contentHashes(orgId, [...keep.keys()]);
      } catch (error) {
        logger.warn("pruning old document versions skipped; they stay invisible and are removed by the next write", {
          component: "stores",
          error: (error as Error).message,
        });
        return;
      }
      for (const [docId, version] of keep) if ((current.get(docId) ?? null) !== version) keep.delete(docId);
      if (keep.size === 0) return;
      const pruned = await Promise.allSettled(indexes.map((index) => index.prune(orgId, keep)));
      for (const result of pruned) {
        if (result.status === "rejected")
          logger.warn("pruning old document versions failed; they stay invisible and are removed by the next write", {
            component: "stores",
            error: (result.reason as Error).message,
          });
      }
    },
    async visible(orgId, results) {
      if (results.length === 0) return [];
      const committed = await parts.registry.contentHashes(orgId, [...new Set(results.map((result) => result.chunk.docId))]);
      return results.filter((result) => committed.get(result.chunk.docId) === result.chunk.contentHash);
    },
    documentChunks(orgId, docId, contentHash) {
      return (parts.vector ?? parts.keyword).documentChunks(orgId, docId, contentHash);
    },
    async refresh() {},
    async close() {
      await Promise.all(closeables.map((item) => item.close()));
    },
  };
}

function unique<T extends object>(items: readonly (T | undefined)[]): T[] {
  return [...new Set(items.filter((item): item is T => item !== undefined))];
}

function storeError(error: unknown, operation: string): unknown {
  if (DocqaError.isInstance(error)) return error;
  return new DocqaError("store_unavailable", `the ${operation} failed: ${(error as Error).message}`, { component: "stores", cause: error });
}
