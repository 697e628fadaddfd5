/**
 * A content-addressed cache of chunk embeddings: SHA-256 of (model namespace, text) to the
 * vector, in a SQLite file beside the indexes (`DATA_DIR/embedding-cache.sqlite`). Re-ingestion
 * already skips documents whose content hash is unchanged; this cache also spares the chunks a
 * changed document shares with its previous version, documents uploaded again under another id
 * or to another organisation, and re-indexing with other chunking settings that leave chunks
 * intact. Bounded by `EMBED_CACHE_MAX_ENTRIES`: the least recently used vectors are dropped
 * first.
 *
 * Each call opens the file, works in one transaction and closes it, so any thread or process
 * holding the path can use the cache; SQLite's write-ahead log lets them read and write
 * concurrently.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Where the cache lives and what it holds. */
export interface EmbeddingCacheSettings {
  /** The SQLite file. */
  path: string;
  /**
   * Identity of the vectors (model id and weights precision, for example
   * `Xenova/bge-small-en-v1.5@q8`), part of every key so that two models never share entries.
   */
  namespace: string;
  /** Vectors kept at most (`EMBED_CACHE_MAX_ENTRIES`). */
  maxEntries: number;
}

/** An open cache; see {@link openEmbeddingCache}. */
export interface EmbeddingCache {
  /** The cached vectors of `texts`, by index into `texts`; cache hits are marked as recently used. */
  lookup(texts: readonly string[]): Map<number, Float32Array>;
  /** Stores vectors, then drops the least recently used entries beyond the bound. */
  store(entries: readonly { text: string; vector: Float32Array }[]): void;
  close(): void;
}

/** SQLite host parameters per statement, under SQLite's default limit of 32,766. */
const keysPerStatement = 500;

/**
 * Opens (creating when needed) the cache file.
 *
 * @throws {Error} when the file cannot be created or opened (callers embed without the cache).
 */
export function openEmbeddingCache(settings: EmbeddingCacheSettings): EmbeddingCache {
  mkdirSync(dirname(settings.path), { recursive: true });
  const database = new DatabaseSync(settings.path);
  database.exec("PRAGMA busy_timeout = 5000");
  database.exec("PRAGMA journal_mode = WAL");
  database.exec("PRAGMA synchronous = NORMAL");
  database.exec(
    "CREATE TABLE IF NOT EXISTS embeddings (key BLOB PRIMARY KEY, vector BLOB NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;" +
      "CREATE INDEX IF NOT EXISTS embeddings_used ON embeddings (used)",
  );
  const keyOf = (text: string) => createHash("sha256").update(settings.namespace).update("\u0000").update(text).digest();
  const transaction = <T>(work: () => T): T => {
    database.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      database.exec("COMMIT");
      return result;
    } catch (error) {
      database.exec("ROLLBACK");
      throw error;
    }
  };
  return {
    lookup(texts) {
      const found = new Map<number, Float32Array>();
      if (texts.length === 0) return found;
      const positions = new Map<string, number[]>();
      const keys: Buffer[] = [];
      texts.forEach((text, index) => {
        const key = keyOf(text);
        const hex = key.toString("hex");
        const list = positions.get(hex);
        if (list) list.push(index);
        else {
          positions.set(hex, [index]);
          keys.push(key);
        }
      });
      const now = Date.now();
      transaction(() => {
        for (let start = 0; start < keys.length; start += keysPerStatement) {
          const slice = keys.slice(start, start + keysPerStatement);
          const marks = slice.map(() => "?").join(",");
          const rows = database.prepare(`SELECT key, vector FROM embeddings WHERE key IN (${marks})`).all(...slice) as {
            key: Uint8Array;
            vector: Uint8Array;
          }[];
          for (const row of rows) {
            const bytes = row.vector;
            const vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
            for (const index of positions.get(Buffer.from(row.key).toString("hex")) ?? []) found.set(index, vector.slice());
          }
          if (rows.length > 0) database.prepare(`UPDATE embeddings SET used = ? WHERE key IN (${marks})`).run(now, ...slice);
        }
      });
      return found;
    },
    store(entries) {
      if (entries.length === 0) return;
      const now = Date.now();
      transaction(() => {
        const insert = database.prepare("INSERT OR REPLACE INTO embeddings (key, vector, used) VALUES (?, ?, ?)");
        for (const { text, vector } of entries) {
          insert.run(keyOf(text), new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), now);
        }
        const { count } = database.prepare("SELECT count(*) AS count FROM embeddings").get() as { count: number };
        if (count > settings.maxEntries) {
          database
            .prepare("DELETE FROM embeddings WHERE key IN (SELECT key FROM embeddings ORDER BY used LIMIT ?)")
            .run(count - settings.maxEntries);
        }
      });
    },
    close() {
      database.close();
    },
  };
}
