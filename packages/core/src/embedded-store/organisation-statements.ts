/**
 * The prepared statements of one organisation's SQLite database in the embedded store: every
 * statement it runs more than once, prepared when the file is opened, by purpose.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** The prepared statements of an `OrganisationDatabase`. */
export type OrganisationStatements = ReturnType<typeof prepareStatements>;

/** Prepares every statement the embedded store runs more than once. */
export function prepareStatements(database: DatabaseSync) {
  return {
    getInfo: database.prepare("SELECT value FROM store_info WHERE key = ?"),
    putInfo: database.prepare("INSERT INTO store_info (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
    getDocument: database.prepare("SELECT content_hash FROM documents WHERE doc_id = ?"),
    describeDocument: database.prepare(
      "SELECT doc_id, content_hash, updated_at, title, source, type, owner_id, acl, text_hash, chunk_count FROM documents WHERE doc_id = ?",
    ),
    putDocument: database.prepare(
      `INSERT INTO documents (doc_id, content_hash, updated_at, title, source, type, owner_id, acl, text_hash, chunk_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(doc_id) DO UPDATE SET content_hash = excluded.content_hash, updated_at = excluded.updated_at,
         title = excluded.title, source = excluded.source, type = excluded.type, owner_id = excluded.owner_id,
         acl = excluded.acl, text_hash = excluded.text_hash, chunk_count = excluded.chunk_count`,
    ),
    documentChunks: database.prepare(
      "SELECT id, chunk_id, doc_id, chunk_index, text, title, source, owner_id, acl, metadata, content_hash, embedding FROM chunks WHERE doc_id = ? AND content_hash = ? ORDER BY chunk_index",
    ),
    sourcesOf: database.prepare("SELECT source_doc_id FROM derivations WHERE derived_doc_id = ? ORDER BY source_doc_id"),
    deleteDocument: database.prepare("DELETE FROM documents WHERE doc_id = ?"),
    deleteChunks: database.prepare("DELETE FROM chunks WHERE doc_id = ?"),
    insertChunk: database.prepare(
      "INSERT INTO chunks (chunk_id, doc_id, chunk_index, text, title, source, owner_id, acl, metadata, content_hash, terms, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    chunksAfter: database.prepare("SELECT id, doc_id, owner_id, acl, terms, embedding FROM chunks WHERE id > ? ORDER BY id LIMIT ?"),
    /** The rows without their terms: a reload whose BM25 postings come from their snapshot (`bm25-snapshot.ts`). */
    chunksAfterWithoutTerms: database.prepare("SELECT id, doc_id, owner_id, acl, embedding FROM chunks WHERE id > ? ORDER BY id LIMIT ?"),
    termsOfRow: database.prepare("SELECT terms FROM chunks WHERE id = ?"),
    rowOfChunk: database.prepare("SELECT id, doc_id FROM chunks WHERE chunk_id = ?"),
    chunkById: database.prepare(
      "SELECT id, chunk_id, doc_id, chunk_index, text, title, source, owner_id, acl, metadata, content_hash FROM chunks WHERE id = ?",
    ),
    logChange: database.prepare("INSERT INTO changes (doc_id) VALUES (?)"),
    putDerivation: database.prepare("INSERT OR IGNORE INTO derivations (source_doc_id, derived_doc_id) VALUES (?, ?)"),
    deleteDerivationsOf: database.prepare("DELETE FROM derivations WHERE derived_doc_id = ?"),
    derivedFrom: database.prepare("SELECT derived_doc_id FROM derivations WHERE source_doc_id = ?"),
    changesSince: database.prepare("SELECT seq, doc_id FROM changes WHERE seq > ? ORDER BY seq"),
    lastChange: database.prepare("SELECT COALESCE(MAX(seq), 0) AS seq, COALESCE(MIN(seq), 0) AS first FROM changes"),
    trimChanges: database.prepare("DELETE FROM changes WHERE seq <= ?"),
    dataVersion: database.prepare("PRAGMA data_version"),
    countWithoutEmbedding: database.prepare("SELECT COUNT(*) AS n FROM chunks WHERE embedding IS NULL"),
    anyChunk: database.prepare("SELECT 1 AS found FROM chunks LIMIT 1"),
    deleteInfo: database.prepare("DELETE FROM store_info WHERE key = ?"),
    reindexPending: database.prepare(
      "SELECT c.id, c.chunk_id, c.doc_id, c.chunk_index, c.text, c.title, c.source, c.owner_id, c.acl, c.metadata, c.content_hash FROM chunks c WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM reindex_vectors r WHERE r.chunk_id = c.chunk_id AND r.content_hash = c.content_hash) ORDER BY c.id LIMIT ?",
    ),
    reindexMissing: database.prepare(
      "SELECT COUNT(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM reindex_vectors r WHERE r.chunk_id = c.chunk_id AND r.content_hash = c.content_hash)",
    ),
    reindexPut: database.prepare("INSERT OR REPLACE INTO reindex_vectors (chunk_id, content_hash, embedding) VALUES (?, ?, ?)"),
    reindexApply: database.prepare(
      "UPDATE chunks SET embedding = (SELECT r.embedding FROM reindex_vectors r WHERE r.chunk_id = chunks.chunk_id AND r.content_hash = chunks.content_hash)",
    ),
    reindexClear: database.prepare("DELETE FROM reindex_vectors"),
  } satisfies Record<string, StatementSync>;
}
