/**
 * The registry reads of one organisation of the embedded store: what its SQLite file records
 * about documents (content hashes, records, pages of the document list, derivations), the stored
 * chunks of a version, and the model of the stored vectors. They read the database, not the
 * in-memory indexes, so a store without in-memory indexes answers them too.
 */
import { canRead } from "../acl/evaluate-access.js";
import { normalizeAccessName, normalizePrincipal } from "../acl/principal.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { DocumentPage, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import { type ChunkRow, type DocumentRow, type OrganisationDatabase, toChunkRecord } from "./organisation-database.js";

/** Reads of one organisation's document registry. */
export class OrganisationRegistry {
  constructor(private readonly database: OrganisationDatabase) {}

  /** Ids of derived documents recorded as built from any of `sourceDocIds`. */
  derivedDocuments(sourceDocIds: readonly string[]): string[] {
    const derived = new Set<string>();
    for (const source of sourceDocIds) {
      for (const row of this.database.statements.derivedFrom.all(source) as { derived_doc_id: string }[]) derived.add(row.derived_doc_id);
    }
    return [...derived];
  }

  /** Stored content hashes of the given documents that exist. */
  contentHashes(docIds: readonly string[]): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const docId of docIds) {
      const row = this.database.statements.getDocument.get(docId) as { content_hash: string } | undefined;
      if (row) hashes.set(docId, row.content_hash);
    }
    return hashes;
  }

  /** The records of the given documents that exist; see {@link DocumentRegistry.describeDocuments}. */
  describeDocuments(docIds: readonly string[]): Map<string, DocumentRecord> {
    const records = new Map<string, DocumentRecord>();
    for (const docId of new Set(docIds)) {
      const row = this.database.statements.describeDocument.get(docId) as DocumentRow | undefined;
      if (row) records.set(docId, this.toDocumentRecord(row));
    }
    return records;
  }

  /**
   * One page of documents in id order (SQLite compares TEXT as UTF-8 bytes), filtered in SQL by
   * source, type and owner and by the seven rules in this process; see
   * {@link DocumentRegistry.listDocuments}.
   */
  listDocuments(query: DocumentQuery): DocumentPage {
    const principal = query.principal ? normalizePrincipal(query.principal) : undefined;
    const conditions = ["doc_id > $after", "substr(doc_id, 1, 7) != 'raptor:'"];
    const parameters: Record<string, string> = { after: query.after ?? "" };
    if (query.source !== undefined) {
      conditions.push("source = $source");
      parameters.source = query.source;
    }
    if (query.type !== undefined) {
      conditions.push("type = $type");
      parameters.type = query.type;
    }
    if (query.ownerId !== undefined) {
      conditions.push("owner_id = $owner");
      parameters.owner = normalizeAccessName(query.ownerId);
    }
    const rows = this.database.select<DocumentRow>(
      `SELECT doc_id, content_hash, updated_at, title, source, type, owner_id, acl, text_hash, chunk_count FROM documents WHERE ${conditions.join(" AND ")} ORDER BY doc_id`,
      parameters,
    );
    const documents: DocumentRecord[] = [];
    for (const row of rows) {
      if (principal && !canRead(principal, { ownerId: row.owner_id, acl: row.acl })) continue;
      if (documents.length === query.limit) return { documents, next: documents.at(-1)?.docId ?? null };
      documents.push(this.toDocumentRecord(row));
    }
    return { documents, next: null };
  }

  /** The stored chunks of one version of a document, with embeddings; see {@link ChunkIndex.documentChunks}. */
  documentChunks(docId: string, contentHash: string): ChunkRecord[] {
    const rows = this.database.statements.documentChunks.all(docId, contentHash) as unknown as ChunkRow[];
    return rows.map((row) => ({
      ...toChunkRecord(row),
      embedding: row.embedding
        ? new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength))
        : undefined,
    }));
  }

  /** Number of chunks without an embedding (ingested while no model was available). */
  countWithoutEmbedding(): number {
    return Number((this.database.statements.countWithoutEmbedding.get() as { n: number }).n);
  }

  /**
   * The model of the live vectors: the model, `null` when chunks are stored without vectors, or
   * undefined when no chunk is stored.
   */
  vectorModel(): EmbeddingModelInfo | null | undefined {
    // Read from the database, not the in-memory indexes: a switch made by another connection is
    // followed at once (a search catches up before it runs), and a store without in-memory
    // indexes answers too.
    const stored = this.database.readStoredModel();
    if (stored) return stored;
    return this.database.statements.anyChunk.get() ? null : undefined;
  }

  private toDocumentRecord(row: DocumentRow): DocumentRecord {
    const sources = this.database.statements.sourcesOf.all(row.doc_id) as { source_doc_id: string }[];
    return {
      docId: row.doc_id,
      contentHash: row.content_hash,
      derivedFrom: sources.map((source) => source.source_doc_id),
      title: row.title,
      source: row.source,
      type: row.type,
      ownerId: row.owner_id,
      acl: row.acl,
      textHash: row.text_hash,
      chunkCount: Number(row.chunk_count),
      updatedAt: new Date(Number(row.updated_at)).toISOString(),
    };
  }
}
