/**
 * The SQLite database of one organisation of the embedded store (Node's built-in `node:sqlite`),
 * the durable source of truth: its schema, its prepared statements (`organisation-statements.ts`),
 * the checks made on opening (organisation, schema version, analyzer) and write transactions.
 *
 * Durability and atomicity: the file is in WAL mode with `synchronous=FULL` and every write is
 * one `BEGIN IMMEDIATE` transaction, so a crash (kill -9, power loss) leaves the last committed
 * state. Each transaction also appends the affected document ids to the `changes` table, which
 * the in-memory indexes replay (see `index-catch-up.ts`). A reindex keeps the chunks' vectors
 * by the new model in `reindex_vectors` (keyed by chunk and version) until they replace the live
 * ones in one transaction.
 *
 * Deleted text is not kept (issue 27, N8): every connection runs with `secure_delete` on, so
 * SQLite overwrites deleted rows and freed pages with zeros; new files use incremental
 * auto-vacuum, so the pages a deletion frees are given back to the file system; and after a write
 * that deleted rows, the write-ahead log, whose older frames still hold the deleted rows' pages,
 * is checkpointed and truncated to zero bytes ({@link OrganisationDatabase.releaseDeletedContent}).
 * A file written before this (no `secure_delete` recorded in `store_info`) is rebuilt once with
 * `VACUUM` when it is first opened.
 */
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { MetadataCondition } from "../stores/chunk-filter.js";
import { type ChunkRecord, indexedText } from "../stores/chunk-record.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { Analyzer } from "../text/analyzer.js";
import { metadataSql } from "./metadata-sql.js";
import { type OrganisationStatements, prepareStatements } from "./organisation-statements.js";

const schemaVersion = "2";

/** Milliseconds a connection waits for another one's lock (SQLite's `busy_timeout`). */
const busyTimeoutMs = 10_000;

/**
 * The `store_info` key recording that every deletion in the file ran with `secure_delete` on (set
 * when the file is created, or once an older file has been rebuilt by `VACUUM`).
 */
const secureDeleteKey = "secure_delete";

/** The `store_info` key of the file's random identity; see {@link OrganisationDatabase.readStoreId}. */
const storeIdKey = "store_id";

/** The columns schema version 2 added to `documents` (what the registry records about a document). */
const documentInfoColumns = `
  title TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT '',
  owner_id TEXT NOT NULL DEFAULT '',
  acl TEXT NOT NULL DEFAULT '',
  text_hash TEXT NOT NULL DEFAULT '',
  chunk_count INTEGER NOT NULL DEFAULT 0`;

const schema = `
CREATE TABLE IF NOT EXISTS store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY,
  content_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL,${documentInfoColumns}
) STRICT;
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  chunk_id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  title TEXT NOT NULL,
  source TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  acl TEXT NOT NULL,
  metadata TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  terms TEXT NOT NULL,
  embedding BLOB
) STRICT;
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS derivations (
  source_doc_id TEXT NOT NULL,
  derived_doc_id TEXT NOT NULL,
  PRIMARY KEY (source_doc_id, derived_doc_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS derivations_by_derived ON derivations(derived_doc_id);
CREATE TABLE IF NOT EXISTS reindex_vectors (
  chunk_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  embedding BLOB NOT NULL,
  PRIMARY KEY (chunk_id, content_hash)
) STRICT, WITHOUT ROWID;
`;

/** Settings of an {@link OrganisationDatabase}. */
export interface OrganisationDatabaseSettings {
  /** Path of the SQLite file; its directory is created when missing. */
  path: string;
  /** The organisation, recorded in the file and checked on open. */
  orgId: string;
  /** The BM25 analyzer; its name is recorded, and every chunk re-analysed when it changed. */
  analyzer: Analyzer;
  logger: Logger;
  /** The setting that bounds open databases, named in the message when descriptors run out; default `MAX_OPEN_ORGANISATIONS`. */
  openLimitSetting?: string | undefined;
}

/** A row of the `chunks` table. */
export interface ChunkRow {
  id: number;
  chunk_id: string;
  doc_id: string;
  chunk_index: number;
  text: string;
  title: string;
  source: string;
  owner_id: string;
  acl: string;
  metadata: string;
  content_hash: string;
  terms: string;
  embedding: Uint8Array | null;
}

/** A row of the `documents` table. */
export interface DocumentRow {
  doc_id: string;
  content_hash: string;
  /** Milliseconds since the epoch. */
  updated_at: number;
  title: string;
  source: string;
  type: string;
  owner_id: string;
  acl: string;
  text_hash: string;
  chunk_count: number;
}

/** The columns of a chunk row that the in-memory indexes need. */
export type IndexedChunkRow = Pick<ChunkRow, "id" | "doc_id" | "owner_id" | "acl" | "terms" | "embedding">;

/** One organisation's SQLite file, opened, checked and with its statements prepared. */
export class OrganisationDatabase {
  /** The prepared statements, by purpose. */
  readonly statements: OrganisationStatements;
  private readonly database: DatabaseSync;

  /**
   * Opens (or creates) the file, checks that it belongs to `settings.orgId` and has this
   * schema version, and records the organisation, schema version and analyzer.
   *
   * @throws {DocqaError} `store_unavailable` when the process has run out of file descriptors
   *   (EMFILE, ENFILE), the file is locked or cannot be opened, or the first write fails;
   *   `store_corrupt` when the file is not a SQLite database, is damaged, belongs to another
   *   organisation or has another schema version. The busy timeout (10 s) bounds the wait for
   *   another connection's lock (an ingestion worker thread creating the same file).
   */
  constructor(private readonly settings: OrganisationDatabaseSettings) {
    mkdirSync(dirname(settings.path), { recursive: true });
    let database: DatabaseSync | undefined;
    try {
      database = new DatabaseSync(settings.path);
      // The busy timeout first: another connection (an ingestion worker thread) may be creating
      // the same file, and switching a new file to WAL waits for its lock.
      // auto_vacuum before the first table is created (it applies to new files only); secure_delete
      // is a setting of the connection, so every connection sets it.
      database.exec(
        `PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA secure_delete = ON; PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;`,
      );
      database.exec(schema);
      this.database = database;
      this.migrate();
    } catch (error) {
      // Classified before closing: closing frees the descriptors the probe looks for.
      const failure = openFailure(error, settings.path, settings.openLimitSetting ?? "MAX_OPEN_ORGANISATIONS");
      if (database?.isOpen) database.close();
      throw failure;
    }
    this.database = database;
    this.statements = prepareStatements(this.database);
    try {
      this.checkStoreInfo();
    } catch (error) {
      this.database.close();
      throw error;
    }
  }

  /** Whether the database is open (false after {@link close}). */
  get isOpen(): boolean {
    return this.database.isOpen;
  }

  /**
   * Runs `work` in one `BEGIN IMMEDIATE` transaction, committed when it returns and rolled back
   * when it throws.
   *
   * @throws {DocqaError} `store_unavailable` when the transaction cannot start or the write
   *   fails (a `DocqaError` thrown by `work` passes through unchanged).
   */
  transaction(work: () => void): void {
    try {
      this.database.exec("BEGIN IMMEDIATE");
    } catch (error) {
      throw new DocqaError("store_unavailable", `cannot start a write on ${this.settings.path}: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
    try {
      work();
      this.database.exec("COMMIT");
    } catch (error) {
      if (this.database.isTransaction) this.database.exec("ROLLBACK");
      if (DocqaError.isInstance(error)) throw error;
      throw new DocqaError("store_unavailable", `write to ${this.settings.path} failed and was rolled back: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
  }

  /** The embedding model recorded with the vectors, if any. */
  readStoredModel(): EmbeddingModelInfo | undefined {
    const read = (key: string) => (this.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    const id = read("embedding_model");
    const dimension = read("embedding_dimension");
    return id !== undefined && dimension !== undefined ? { id, dimension: Number(dimension) } : undefined;
  }

  /**
   * The generation of the vectors: incremented when a reindex replaces them, so that every process
   * rebuilds its in-memory indexes.
   */
  readGeneration(): number {
    return Number((this.statements.getInfo.get("vectors_generation") as { value: string } | undefined)?.value ?? 0);
  }

  /**
   * The file's random identity (`store_id`, written when the file is created or first opened by
   * this version): a file deleted and created again under the same name has another. Caches kept
   * beside the file (the saved HNSW graph) record it.
   */
  readStoreId(): string | undefined {
    return (this.statements.getInfo.get(storeIdKey) as { value: string } | undefined)?.value;
  }

  /** SQLite's `data_version`: changes when another connection commits. */
  readDataVersion(): number {
    return Number((this.statements.dataVersion.get() as { data_version: number }).data_version);
  }

  /** Row ids whose metadata satisfies every condition (see `metadataSql`). */
  rowsMatching(conditions: readonly MetadataCondition[]): Set<number> {
    const { sql, parameters } = metadataSql(conditions);
    const statement = this.database.prepare(sql);
    return new Set((statement.all(...parameters) as { id: number }[]).map((row) => row.id));
  }

  /** Iterates the rows of a read-only query with named parameters (`$name`, bound from `parameters`' keys without `$`). */
  select<Row>(sql: string, parameters: Record<string, string | number>): Iterable<Row> {
    return this.database.prepare(sql).iterate(parameters) as Iterable<Row>;
  }

  /**
   * Removes what a committed deletion left outside the live rows: gives the freed pages back to
   * the file system (`PRAGMA incremental_vacuum`), then copies the write-ahead log into the file
   * and truncates it to zero bytes (`PRAGMA wal_checkpoint(TRUNCATE)`): its older frames hold
   * the deleted rows' pages as they were before. The checkpoint does not wait for readers (a
   * connection reading an older snapshot, in this thread or another): when one holds it back it
   * returns false, and the caller tries again later. Call it outside a transaction.
   *
   * @returns true when the log was emptied.
   * @throws {DocqaError} `store_unavailable` when SQLite fails otherwise (a disk error).
   */
  releaseDeletedContent(): boolean {
    try {
      this.database.exec("PRAGMA incremental_vacuum");
      return this.checkpointTruncate();
    } catch (error) {
      throw new DocqaError("store_unavailable", `cannot release deleted content of ${this.settings.path}: ${(error as Error).message}`, {
        component: "embedded-store",
        cause: error,
      });
    }
  }

  /** Closes the database, if open, after one more attempt to empty the write-ahead log. */
  close(): void {
    if (!this.database.isOpen) return;
    try {
      this.checkpointTruncate();
    } catch {
      // Closing goes on: SQLite checkpoints again when the last connection closes.
    }
    this.database.close();
  }

  /** `wal_checkpoint(TRUNCATE)` without waiting for readers; true when it completed. */
  private checkpointTruncate(): boolean {
    this.database.exec("PRAGMA busy_timeout = 0");
    try {
      const result = this.database.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
      return Number(result.busy) === 0;
    } finally {
      this.database.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    }
  }

  /**
   * Rebuilds a file written before deletions ran with `secure_delete` (`VACUUM`: the live rows
   * are copied into fresh pages, so nothing deleted earlier survives in free pages or free space
   * inside pages; it also switches the file to incremental auto-vacuum), empties the log and
   * records that it was done. A failure (another connection holds the write lock) is logged and
   * left for the next opening.
   */
  private scrubDeletedContent(): void {
    const started = performance.now();
    try {
      this.database.exec("PRAGMA auto_vacuum = INCREMENTAL; VACUUM");
      this.statements.putInfo.run(secureDeleteKey, "on");
      this.checkpointTruncate();
      this.settings.logger.info("rebuilt the embedded store's file so that no deleted text remains (VACUUM, once)", {
        path: this.settings.path,
        ms: Math.round(performance.now() - started),
      });
    } catch (error) {
      this.settings.logger.warn(
        `could not rebuild the file to remove deleted text; retried when it is next opened: ${(error as Error).message}`,
        {
          path: this.settings.path,
        },
      );
    }
  }

  /**
   * Checks the recorded organisation and schema version, and records them (and the analyzer) on
   * first open; re-analyses every chunk when the analyzer changed.
   */
  private checkStoreInfo(): void {
    const read = (key: string) => (this.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    const storedOrg = read("org_id");
    if (storedOrg !== undefined && storedOrg !== this.settings.orgId) {
      throw new DocqaError(
        "store_corrupt",
        `${this.settings.path} belongs to organisation ${JSON.stringify(storedOrg)}, not ${JSON.stringify(this.settings.orgId)}`,
        { component: "embedded-store" },
      );
    }
    const storedSchema = read("schema_version");
    if (storedSchema !== undefined && storedSchema !== schemaVersion) {
      throw new DocqaError("store_corrupt", `${this.settings.path} has schema version ${storedSchema}; this docqa reads ${schemaVersion}`, {
        component: "embedded-store",
      });
    }
    const storedAnalyzer = read("analyzer");
    // A file written before deletions were secure is rebuilt once; a new one is secure from the start.
    if (storedSchema !== undefined && read(secureDeleteKey) === undefined) this.scrubDeletedContent();
    // Write only when something is missing or changed: a write waits for the write lock, which
    // an ingestion worker may hold for a long transaction.
    const storedId = read(storeIdKey);
    if (storedOrg !== undefined && storedSchema !== undefined && storedAnalyzer === this.settings.analyzer.name && storedId !== undefined)
      return;
    this.transaction(() => {
      if (storedOrg === undefined) this.statements.putInfo.run("org_id", this.settings.orgId);
      // Under the write lock: another connection may have written one meanwhile.
      if (this.readStoreId() === undefined) this.statements.putInfo.run(storeIdKey, randomUUID());
      if (storedSchema === undefined) {
        this.statements.putInfo.run("schema_version", schemaVersion);
        this.statements.putInfo.run(secureDeleteKey, "on");
      }
      if (storedAnalyzer !== undefined && storedAnalyzer !== this.settings.analyzer.name) this.reanalyzeAll();
      if (storedAnalyzer !== this.settings.analyzer.name) this.statements.putInfo.run("analyzer", this.settings.analyzer.name);
    });
  }

  /**
   * Upgrades a file of schema version 1 in place, in one transaction: adds the document columns
   * of version 2 and fills them from each document's chunks (title, source, type, owner and ACL
   * of its first chunk; its chunk count). The text hash stays unknown (`""`), so the first access
   * change of such a document re-embeds it once.
   */
  private migrate(): void {
    const stored = this.database.prepare("SELECT value FROM store_info WHERE key = 'schema_version'").get() as
      | { value: string }
      | undefined;
    if (stored?.value !== "1") return;
    this.database.exec("BEGIN IMMEDIATE");
    try {
      for (const column of documentInfoColumns.split(",")) this.database.exec(`ALTER TABLE documents ADD COLUMN ${column.trim()}`);
      this.database.exec(`
        UPDATE documents SET
          title = COALESCE((SELECT title FROM chunks WHERE chunks.doc_id = documents.doc_id ORDER BY chunk_index LIMIT 1), ''),
          source = COALESCE((SELECT source FROM chunks WHERE chunks.doc_id = documents.doc_id ORDER BY chunk_index LIMIT 1), ''),
          type = COALESCE((SELECT CASE WHEN json_type(metadata, '$.type') = 'text' THEN json_extract(metadata, '$.type') END
                           FROM chunks WHERE chunks.doc_id = documents.doc_id ORDER BY chunk_index LIMIT 1), ''),
          owner_id = COALESCE((SELECT owner_id FROM chunks WHERE chunks.doc_id = documents.doc_id ORDER BY chunk_index LIMIT 1), ''),
          acl = COALESCE((SELECT acl FROM chunks WHERE chunks.doc_id = documents.doc_id ORDER BY chunk_index LIMIT 1), ''),
          chunk_count = (SELECT COUNT(*) FROM chunks WHERE chunks.doc_id = documents.doc_id);
        UPDATE store_info SET value = '${schemaVersion}' WHERE key = 'schema_version';
      `);
      this.database.exec("COMMIT");
    } catch (error) {
      if (this.database.isTransaction) this.database.exec("ROLLBACK");
      throw error;
    }
    this.settings.logger.info("upgraded the embedded store's file to schema version 2", { path: this.settings.path });
  }

  /** Re-analyses every chunk when the analyzer changed since the file was written. */
  private reanalyzeAll(): void {
    this.settings.logger.warn("analyzer changed: re-analysing every chunk", { path: this.settings.path });
    const update = this.database.prepare("UPDATE chunks SET terms = ? WHERE id = ?");
    for (const row of this.database.prepare("SELECT id, title, text FROM chunks").iterate() as Iterable<{
      id: number;
      title: string;
      text: string;
    }>) {
      update.run(this.settings.analyzer.analyze(indexedText(row)).join(" "), row.id);
    }
  }
}

/** SQLite result codes (https://sqlite.org/rescode.html) that mean the file itself is damaged. */
const corruptionCodes = new Set([11 /* SQLITE_CORRUPT */, 26 /* SQLITE_NOTADB */]);

/**
 * The error for a database that could not be opened: `store_unavailable` when the process has no
 * file descriptor left (SQLite reports only `SQLITE_CANTOPEN`, so a descriptor is asked of the
 * system to tell), `store_corrupt` when the file is not a database or is damaged, else
 * `store_unavailable` with SQLite's reason (locked, permissions, disk).
 */
export function openFailure(error: unknown, path: string, limitSetting: string): DocqaError {
  const options = { component: "embedded-store", cause: error };
  const exhausted = descriptorsExhausted(dirname(path));
  if (exhausted) {
    return new DocqaError(
      "store_unavailable",
      `cannot open ${path}: the process has run out of file descriptors (${exhausted}); lower ${limitSetting} (each open organisation holds 3) or raise the limit (ulimit -n)`,
      options,
    );
  }
  const code = (error as { errcode?: unknown }).errcode;
  const message = (error as Error).message;
  if (typeof code === "number" && corruptionCodes.has(code & 0xff)) {
    return new DocqaError("store_corrupt", `cannot open ${path}: ${message}`, options);
  }
  return new DocqaError("store_unavailable", `cannot open ${path}: ${message}`, options);
}

/** `EMFILE` or `ENFILE` when opening a file descriptor fails for want of descriptors, else undefined. */
export function descriptorsExhausted(path: string): "EMFILE" | "ENFILE" | undefined {
  try {
    closeSync(openSync(path, "r"));
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "EMFILE" || code === "ENFILE" ? code : undefined;
  }
}

/** The chunk record of a row. */
export function toChunkRecord(row: Omit<ChunkRow, "terms" | "embedding">): ChunkRecord {
  return {
    id: row.chunk_id,
    docId: row.doc_id,
    chunkIndex: Number(row.chunk_index),
    text: row.text,
    title: row.title,
    source: row.source,
    ownerId: row.owner_id,
    acl: row.acl,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    contentHash: row.content_hash,
  };
}
