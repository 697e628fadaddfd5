/**
 * The saved HNSW graph of one organisation of the embedded store: a cache beside its SQLite file,
 * so that a restart loads the graph instead of rebuilding it (13 minutes at a million vectors).
 *
 * Three files per organisation, beside `<org>.sqlite`:
 *
 * - `<org>.sqlite.hnsw-<name>.usearch`: the graph and its vectors (usearch's format), keyed by
 *   the chunks' SQLite row ids;
 * - `<org>.sqlite.hnsw-<name>.keys`: the row ids the graph holds, ascending, as float64;
 * - `<org>.sqlite.hnsw.json`: the header, naming the two files with their sizes and CRC-32, and
 *   the state of the database the graph covers ({@link HnswSnapshotCoverage}).
 *
 * Written atomically: both data files under temporary names, synced, renamed; then the header the
 * same way, and the directory synced; older data files are deleted last. A crash at any point
 * leaves the previous header with its files, or no header: either the old valid snapshot or none.
 * On reading, a header that does not match the database (another file under the same name, the
 * vectors switched by a reindex, the change log trimmed past it, other settings) or data files
 * whose size or CRC-32 differ are ignored, and the caller rebuilds the graph.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { open, readFile, rename, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { crc32 } from "node:zlib";
import type { HnswVectorIndex } from "./hnsw-vector-index.js";

/** Version of the snapshot's layout; a header of another version is ignored. */
const snapshotFormat = 1;
/** Bytes read at a time when checking a data file's CRC-32. */
const checksumReadBytes = 4 * 1024 * 1024;

/** The state of the database a saved graph covers; a snapshot is used only when every field matches. */
export interface HnswSnapshotCoverage {
  /** The database's `store_id` (random, written when the file is created): another file under the same name differs. */
  storeId: string;
  /** The organisation. */
  orgId: string;
  /** The vectors' generation (`vectors_generation`, incremented by a reindex switch). */
  generation: number;
  /** The embedding model of the vectors. */
  modelId: string;
  /** Dimension of the vectors. */
  dimension: number;
  /** HNSW graph degree M the graph was built with. */
  connectivity: number;
  /**
   * The last entry of the `changes` log whose documents the graph holds as committed (it may hold
   * later ones too): on loading, documents changed after it are taken again from the database.
   */
  change: number;
}

/** What the header records. */
interface HnswSnapshotHeader extends HnswSnapshotCoverage {
  format: number;
  /** Names the data files: `<base>-<name>.usearch` and `<base>-<name>.keys`. */
  name: string;
  /** Keys (vectors) in the graph. */
  vectors: number;
  /** Vectors removed from the graph (or replaced) since it was built from scratch; see {@link HnswSnapshot.removedSinceBuild}. */
  removedSinceBuild: number;
  graphBytes: number;
  graphCrc32: number;
  keysBytes: number;
  keysCrc32: number;
}

/** A snapshot found valid: the graph's file and the keys it holds. */
export interface HnswSnapshot {
  coverage: HnswSnapshotCoverage;
  /** Path of the graph's file, for {@link HnswVectorIndex.load}. */
  graphPath: string;
  /** The row ids in the graph, ascending. */
  keys: Float64Array;
  /**
   * Vectors removed from the graph (or replaced) since it was built from scratch: a removed vector
   * stays in an HNSW graph as a node that searches pass through, so past a share of the graph a
   * rebuild is due.
   */
  removedSinceBuild: number;
}

/** The snapshot files of one organisation, by the path of its SQLite file. */
export class HnswSnapshotFiles {
  private readonly base: string;
  private readonly headerPath: string;

  /** @param databasePath - the organisation's SQLite file; the snapshot files sit beside it. */
  constructor(databasePath: string) {
    this.base = `${databasePath}.hnsw`;
    this.headerPath = `${this.base}.json`;
  }

  /**
   * The saved snapshot when its header matches `isCurrent` and both data files have the recorded
   * size and CRC-32; undefined otherwise (none saved, stale, truncated or damaged). Reads the
   * files asynchronously, in 4 MiB steps, so the event loop stays free.
   */
  async read(isCurrent: (coverage: HnswSnapshotCoverage) => boolean): Promise<HnswSnapshot | undefined> {
    let header: HnswSnapshotHeader;
    try {
      header = JSON.parse(await readFile(this.headerPath, "utf8")) as HnswSnapshotHeader;
    } catch {
      return undefined;
    }
    if (header.format !== snapshotFormat || typeof header.name !== "string" || !/^[0-9a-f]+$/.test(header.name)) return undefined;
    if (!isCurrent(coverageOf(header))) return undefined;
    const graphPath = this.graphPath(header.name);
    const keysPath = this.keysPath(header.name);
    if (!(await fileMatches(graphPath, header.graphBytes, header.graphCrc32))) return undefined;
    if (!(await fileMatches(keysPath, header.keysBytes, header.keysCrc32))) return undefined;
    const bytes = await readFile(keysPath);
    if (bytes.byteLength !== header.vectors * Float64Array.BYTES_PER_ELEMENT) return undefined;
    const keys = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return { coverage: coverageOf(header), graphPath, keys, removedSinceBuild: Number(header.removedSinceBuild) || 0 };
  }

  /**
   * Saves `graph`, which holds exactly `keys` (row ids, any order), as covering `coverage`. The
   * graph is written in one blocking call (usearch's `save`, about the file's size in memory
   * copies); checking, syncing and renaming then run asynchronously.
   */
  async write(graph: HnswVectorIndex, keys: Float64Array, coverage: HnswSnapshotCoverage, removedSinceBuild = 0): Promise<void> {
    const { name, graphTemporary, keysTemporary } = this.writeData(graph, keys);
    try {
      const sums = { graph: await fileCrc32(graphTemporary), keys: await fileCrc32(keysTemporary) };
      const header = headerOf(name, keys.length, removedSinceBuild, coverage, sums);
      await syncFile(graphTemporary);
      await syncFile(keysTemporary);
      await rename(graphTemporary, this.graphPath(name));
      await rename(keysTemporary, this.keysPath(name));
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

  /** The same as {@link write}, every step blocking: for closing, when no later turn of the event loop may come. */
  writeNow(graph: HnswVectorIndex, keys: Float64Array, coverage: HnswSnapshotCoverage, removedSinceBuild = 0): void {
    const { name, graphTemporary, keysTemporary } = this.writeData(graph, keys);
    try {
      const sums = { graph: fileCrc32Now(graphTemporary), keys: fileCrc32Now(keysTemporary) };
      const header = headerOf(name, keys.length, removedSinceBuild, coverage, sums);
      syncFileNow(graphTemporary);
      syncFileNow(keysTemporary);
      renameSync(graphTemporary, this.graphPath(name));
      renameSync(keysTemporary, this.keysPath(name));
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

  /** Deletes every snapshot file (header first, so that a crash meanwhile leaves no usable snapshot). */
  remove(): void {
    rmSync(this.headerPath, { force: true });
    for (const file of this.ownFiles()) rmSync(file, { force: true });
  }

  private writeData(graph: HnswVectorIndex, keys: Float64Array): { name: string; graphTemporary: string; keysTemporary: string } {
    const name = randomBytes(8).toString("hex");
    const graphTemporary = `${this.graphPath(name)}.tmp`;
    const keysTemporary = `${this.keysPath(name)}.tmp`;
    try {
      graph.save(graphTemporary);
      const sorted = Float64Array.from(keys).sort();
      writeFileSync(keysTemporary, new Uint8Array(sorted.buffer, sorted.byteOffset, sorted.byteLength));
    } catch (error) {
      this.removeTemporary(name);
      throw error;
    }
    return { name, graphTemporary, keysTemporary };
  }

  private graphPath(name: string): string {
    return `${this.base}-${name}.usearch`;
  }

  private keysPath(name: string): string {
    return `${this.base}-${name}.keys`;
  }

  private removeTemporary(name: string): void {
    for (const path of [`${this.graphPath(name)}.tmp`, `${this.keysPath(name)}.tmp`, `${this.headerPath}.${name}.tmp`]) {
      rmSync(path, { force: true });
    }
  }

  /** Deletes the data files of older snapshots (and temporary files left by a crash), keeping those of `current`. */
  private removeUnreferenced(current: string): void {
    for (const file of this.ownFiles()) {
      if (!basename(file).startsWith(basename(`${this.base}-${current}.`))) rmSync(file, { force: true });
    }
  }

  /** The data and temporary files of this organisation's snapshots. */
  private ownFiles(): string[] {
    const directory = dirname(this.base);
    const prefix = `${basename(this.base)}-`;
    const headerPrefix = `${basename(this.headerPath)}.`;
    if (!existsSync(directory)) return [];
    return readdirSync(directory)
      .filter(
        (file) =>
          (file.startsWith(prefix) && /\.(usearch|keys)(\.tmp)?$/.test(file)) || (file.startsWith(headerPrefix) && file.endsWith(".tmp")),
      )
      .map((file) => join(directory, file));
  }
}

function coverageOf(header: HnswSnapshotHeader): HnswSnapshotCoverage {
  return {
    storeId: header.storeId,
    orgId: header.orgId,
    generation: header.generation,
    modelId: header.modelId,
    dimension: header.dimension,
    connectivity: header.connectivity,
    change: header.change,
  };
}

function headerOf(
  name: string,
  vectors: number,
  removedSinceBuild: number,
  coverage: HnswSnapshotCoverage,
  sums: { graph: FileSum; keys: FileSum },
): HnswSnapshotHeader {
  return {
    format: snapshotFormat,
    name,
    ...coverage,
    vectors,
    removedSinceBuild,
    graphBytes: sums.graph.bytes,
    graphCrc32: sums.graph.crc32,
    keysBytes: sums.keys.bytes,
    keysCrc32: sums.keys.crc32,
  };
}

interface FileSum {
  bytes: number;
  crc32: number;
}

/** Whether the file at `path` has `bytes` bytes and CRC-32 `expected`. */
async function fileMatches(path: string, bytes: number, expected: number): Promise<boolean> {
  try {
    if ((await stat(path)).size !== bytes) return false;
    const sum = await fileCrc32(path);
    return sum.bytes === bytes && sum.crc32 === expected;
  } catch {
    return false;
  }
}

/** Size and CRC-32 of a file, read asynchronously in 4 MiB steps. */
async function fileCrc32(path: string): Promise<FileSum> {
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
function fileCrc32Now(path: string): FileSum {
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

/** Flushes a file (or a directory's entries) to the disk, on libuv's thread pool. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function syncFileNow(path: string): void {
  const descriptor = openSync(path, "r");
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The header's path for an organisation's SQLite file (for tests and tools). */
export function snapshotHeaderPath(databasePath: string): string {
  return `${databasePath}.hnsw.json`;
}

/** Reads a header as stored (for tests and tools); undefined when there is none. */
export function readSnapshotHeader(databasePath: string): Record<string, unknown> | undefined {
  const path = snapshotHeaderPath(databasePath);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : undefined;
}
