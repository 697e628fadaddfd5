/**
 * What the saved in-memory indexes of the embedded store (the HNSW graph, `hnsw-snapshot.ts`; the
 * BM25 postings, `bm25-snapshot.ts`) share: a set of files beside the organisation's SQLite file,
 * a JSON header naming data files `<base>-<name>.<extension>` with their sizes and CRC-32, written
 * atomically, and when to save again after changes.
 *
 * Atomic write: the data files under temporary names (`….tmp`), synced, renamed; then the header
 * the same way, and the directory synced; older data files are deleted last. A crash at any point
 * leaves the previous header with its files, or no header: either the old valid snapshot or none.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, readFile, rename, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { crc32 } from "node:zlib";

/** Bytes read (or checked) at a time when computing a CRC-32. */
const checksumReadBytes = 4 * 1024 * 1024;

/**
 * Changes of the `changes` log applied to the indexes after which a snapshot is saved again
 * (besides when the indexes are first loaded and when the store closes). Below the 10,000 entries
 * the log keeps, so that the snapshot a crash leaves can always be brought up to date from the log.
 */
export const snapshotEveryChanges = 5_000;

/**
 * Least time between two saves after changes, in milliseconds (ten minutes): writing a snapshot
 * costs the serving thread time (usearch's `save` blocks about 1.2 s per million vectors; the BM25
 * postings are copied in slices), so a bulk ingestion into a large organisation pays it at most
 * once in this interval. A crash in between costs a rebuild only when the change log has moved past
 * the snapshot.
 */
export const snapshotMinimumInterval = 10 * 60_000;

/** The size and CRC-32 (ISO-HDLC, zlib's) of a file or buffer. */
export interface FileSum {
  bytes: number;
  crc32: number;
}

/** When a snapshot is due again: after {@link snapshotEveryChanges} changes, at most once in {@link snapshotMinimumInterval}. */
export class SnapshotSchedule {
  /** The change of the log the last save (or the loaded snapshot) covers. */
  savedChange = 0;
  /** When the last save began (`performance.now()`); -Infinity before the first. */
  private savedAt = Number.NEGATIVE_INFINITY;

  /** Whether a save covering `change` is due now (enough changes since the last, and enough time). */
  due(change: number): boolean {
    return change - this.savedChange >= snapshotEveryChanges && performance.now() - this.savedAt >= snapshotMinimumInterval;
  }

  /** Records a save beginning now, covering `change`. */
  began(change: number): void {
    this.savedChange = change;
    this.savedAt = performance.now();
  }
}

/**
 * The files of one kind of snapshot of one organisation: header `<base>.json`, data files
 * `<base>-<name>.<extension>` for each of `extensions`, `name` random per save.
 */
export class SnapshotFileSet {
  readonly headerPath: string;

  /**
   * @param base - path prefix, e.g. `<org>.sqlite.hnsw`.
   * @param extensions - the data files' extensions, e.g. `["usearch", "keys"]`.
   */
  constructor(
    private readonly base: string,
    private readonly extensions: readonly string[],
  ) {
    this.headerPath = `${base}.json`;
  }

  /** A fresh random name for the data files of a save. */
  newName(): string {
    return randomBytes(8).toString("hex");
  }

  /** Whether `name` is one {@link newName} could have made (a header's name is checked before any path is built from it). */
  static isName(name: unknown): name is string {
    return typeof name === "string" && /^[0-9a-f]+$/.test(name);
  }

  /** The path of data file `extension` of save `name`. */
  dataPath(name: string, extension: string): string {
    return `${this.base}-${name}.${extension}`;
  }

  /** The temporary path data file `extension` of save `name` is written under before {@link commit}. */
  temporaryPath(name: string, extension: string): string {
    return `${this.dataPath(name, extension)}.tmp`;
  }

  /** The header as stored, parsed; undefined when there is none or it is not JSON. */
  async readHeader(): Promise<Record<string, unknown> | undefined> {
    try {
      const header = JSON.parse(await readFile(this.headerPath, "utf8")) as unknown;
      return typeof header === "object" && header !== null ? (header as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Makes save `name` the snapshot: syncs its temporary data files, renames them, then writes
   * `header` the same way and syncs the directory; finally deletes older data files. Asynchronous
   * (libuv's thread pool) except the header's small write. On failure the temporary files are
   * deleted and the previous snapshot stays.
   */
  async commit(name: string, header: object): Promise<void> {
    try {
      for (const extension of this.extensions) await syncFile(this.temporaryPath(name, extension));
      for (const extension of this.extensions) await rename(this.temporaryPath(name, extension), this.dataPath(name, extension));
      const headerTemporary = `${this.headerPath}.${name}.tmp`;
      writeFileSync(headerTemporary, JSON.stringify(header));
      await syncFile(headerTemporary);
      await rename(headerTemporary, this.headerPath);
      await syncFile(dirname(this.headerPath));
    } catch (error) {
      this.removeTemporary(name);
      throw error;
    }
    this.removeUnreferenced(name);
  }

  /** The same as {@link commit}, every step blocking: for closing, when no later turn of the event loop may come. */
  commitNow(name: string, header: object): void {
    try {
      for (const extension of this.extensions) syncFileNow(this.temporaryPath(name, extension));
      for (const extension of this.extensions) renameSync(this.temporaryPath(name, extension), this.dataPath(name, extension));
      const headerTemporary = `${this.headerPath}.${name}.tmp`;
      writeFileSync(headerTemporary, JSON.stringify(header));
      syncFileNow(headerTemporary);
      renameSync(headerTemporary, this.headerPath);
      syncFileNow(dirname(this.headerPath));
    } catch (error) {
      this.removeTemporary(name);
      throw error;
    }
    this.removeUnreferenced(name);
  }

  /** Deletes every file of this snapshot (header first, so that a crash meanwhile leaves no usable snapshot). */
  remove(): void {
    rmSync(this.headerPath, { force: true });
    for (const file of this.ownFiles()) rmSync(file, { force: true });
  }

  /** Deletes the temporary files of save `name`. */
  removeTemporary(name: string): void {
    for (const extension of this.extensions) rmSync(this.temporaryPath(name, extension), { force: true });
    rmSync(`${this.headerPath}.${name}.tmp`, { force: true });
  }

  /** Deletes the data files of older saves (and temporary files left by a crash), keeping those of `current`. */
  private removeUnreferenced(current: string): void {
    for (const file of this.ownFiles()) {
      if (!basename(file).startsWith(basename(`${this.base}-${current}.`))) rmSync(file, { force: true });
    }
  }

  /** The data and temporary files of this snapshot. */
  private ownFiles(): string[] {
    const directory = dirname(this.base);
    const prefix = `${basename(this.base)}-`;
    const headerPrefix = `${basename(this.headerPath)}.`;
    const dataFile = new RegExp(`\\.(${this.extensions.join("|")})(\\.tmp)?$`);
    if (!existsSync(directory)) return [];
    return readdirSync(directory)
      .filter((file) => (file.startsWith(prefix) && dataFile.test(file)) || (file.startsWith(headerPrefix) && file.endsWith(".tmp")))
      .map((file) => join(directory, file));
  }
}

/** Whether the file at `path` has `bytes` bytes and CRC-32 `expected`; false when it cannot be read. */
export async function fileMatches(path: string, bytes: number, expected: number): Promise<boolean> {
  try {
    if ((await stat(path)).size !== bytes) return false;
    const sum = await fileCrc32(path);
    return sum.bytes === bytes && sum.crc32 === expected;
  } catch {
    return false;
  }
}

/** Size and CRC-32 of a file, read asynchronously in 4 MiB steps (the event loop stays free). */
export async function fileCrc32(path: string): Promise<FileSum> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(checksumReadBytes);
    let sum = 0;
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, bytes);
      if (bytesRead === 0) return { bytes, crc32: sum };
      sum = crc32(buffer.subarray(0, bytesRead), sum);
      bytes += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Size and CRC-32 of a file, read at once. */
export function fileCrc32Now(path: string): FileSum {
  const descriptor = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(checksumReadBytes);
    let sum = 0;
    let bytes = 0;
    for (;;) {
      const bytesRead = readSync(descriptor, buffer, 0, buffer.length, bytes);
      if (bytesRead === 0) return { bytes, crc32: sum };
      sum = crc32(buffer.subarray(0, bytesRead), sum);
      bytes += bytesRead;
    }
  } finally {
    closeSync(descriptor);
  }
}

/**
 * CRC-32 of a buffer already in memory, 4 MiB at a time with a turn of the event loop between
 * (zlib's CRC-32 runs at about 1 GB/s, so each step blocks a few milliseconds).
 *
 * @param initial - the CRC-32 of the bytes before `buffer`, to continue a sum over several buffers; default 0.
 */
export async function bufferCrc32(buffer: Uint8Array, initial = 0): Promise<number> {
  let sum = initial;
  for (let start = 0; start < buffer.byteLength; start += checksumReadBytes) {
    sum = crc32(buffer.subarray(start, Math.min(buffer.byteLength, start + checksumReadBytes)), sum);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return sum;
}

/** Flushes a file (or a directory's entries) to the disk, on libuv's thread pool. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a file (or a directory's entries) to the disk, blocking. */
export function syncFileNow(path: string): void {
  const descriptor = openSync(path, "r");
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
