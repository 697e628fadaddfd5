import type { Principal } from "../acl/principal.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { type ChunkRecord, chunkId, type DocumentVersion, type ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentInfo } from "../stores/document-registry.js";
import type { DocumentStores, StagedStoreParts } from "../stores/document-stores.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";

/** What a contract factory returns. */
export interface ContractSubject {
  /** The stores under test. Organisations are fresh per test (random ids), so one server may serve all tests. */
  stores: DocumentStores;
  /** For staged stores: the parts, so the suite can inject failures. */
  stagedParts?: StagedStoreParts | undefined;
  /** Releases the subject (close connections, drop collections). */
  close(): Promise<void>;
}

/** Options of {@link describeDocumentStoresContract}. */
export interface ContractOptions {
  /** Per-test timeout in milliseconds; default 60,000 (servers index asynchronously). */
  timeoutMs?: number;
  /** Run the 10,000-chunk batch test; default true. */
  largeBatch?: boolean;
  /**
   * Whether the stores hold vectors; default true. Keyword-only deployments (a full-text server
   * with `VECTOR_STORE=none`) set false, which skips the vector-only tests.
   */
  vector?: boolean;
}

/** The embedding model of contract chunks: hashed bag of words, 64 dimensions. */
export const contractEmbeddingModel: EmbeddingModelInfo = { id: "docqa-deterministic-hash-64", dimension: 64 };

const embeddings = new DeterministicEmbeddings({ dimension: contractEmbeddingModel.dimension });
/** A principal who may read only what is shared with everyone. */
export const stranger: Principal = { userName: "stranger@example.org", roles: [], groups: [] };
/** A principal with a role and a group. */
export const reader: Principal = { userName: "reader@example.org", roles: ["staff"], groups: ["readers"] };

/** Options of {@link contractDocument}. */
export interface ContractDocumentOptions {
  acl?: string;
  owner?: string;
  version?: string;
  metadata?: Record<string, unknown>;
  derivedFrom?: readonly string[];
  title?: string;
  /** The registry's description (default: read from the first chunk). */
  info?: DocumentInfo;
}

/** A document version with one chunk per text, embedded with the deterministic model. */
export async function contractDocument(
  docId: string,
  texts: readonly string[],
  options: ContractDocumentOptions = {},
): Promise<DocumentVersion> {
  const contentHash = `${docId}:${options.version ?? "v1"}`;
  const vectors = await embeddings.embedDocuments([...texts]);
  const chunks: ChunkRecord[] = texts.map((text, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: options.title ?? `Title of ${docId}`,
    source: "contract",
    ownerId: options.owner ?? "owner@example.org",
    acl: options.acl ?? "|user:_all_|",
    metadata: { doc_id: docId, chunk_index: chunkIndex, type: "txt", ...options.metadata },
    contentHash,
    embedding: Float32Array.from(vectors[chunkIndex] as number[]),
  }));
  return { docId, contentHash, chunks, derivedFrom: options.derivedFrom, info: options.info };
}

/** The deterministic embedding of a query. */
export async function queryVector(text: string): Promise<Float32Array> {
  return Float32Array.from(await embeddings.embedQuery(text));
}

/** Runs both retrievers, keeping only committed versions, as the service does. */
export async function searchBoth(stores: DocumentStores, orgId: string, query: string, topK: number, filter: ChunkFilter) {
  const keyword = await stores.visible(orgId, await stores.keyword.searchByText(orgId, query, { topK, filter }));
  const vector = stores.vector
    ? await stores.visible(
        orgId,
        await stores.vector.searchByVector(orgId, await queryVector(query), contractEmbeddingModel, { topK, filter }),
      )
    : undefined;
  return { keyword, vector };
}

/** The sorted distinct document ids of results. */
export const docIdsOf = (results: readonly ScoredChunk[] | undefined) =>
  [...new Set((results ?? []).map((result) => result.chunk.docId))].sort();

/** What a group of contract cases reads: the subject (set before the first case runs), options and write helpers. */
export interface ContractContext {
  /** The subject under test; read it inside a case, not when registering it. */
  readonly subject: ContractSubject;
  /** Per-test timeout in milliseconds. */
  timeout: number;
  options: ContractOptions;
  /** A fresh organisation id, `contract-<label>-<uuid>`. */
  organisation(label?: string): string;
  /** Writes documents (and deletes `deleteDocIds`) with the contract's embedding model. */
  write(orgId: string, documents: DocumentVersion[], deleteDocIds?: string[]): Promise<void>;
}
