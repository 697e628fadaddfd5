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
 * Written atomically (`snapshot-files.ts`): a crash at any point leaves either the old valid
 * snapshot or none.
 * On reading, a header that does not match the database (another file under the same name, the
 * vectors switched by a reindex, the change log trimmed past it, other settings) or data files
 * whose size or CRC-32 differ are ignored, and the caller rebuilds the graph.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { HnswVectorIndex } from "./hnsw-vector-index.js";
import { type FileSum, fileCrc32, fileCrc32Now, fileMatches, SnapshotFileSet } from "./snapshot-files.js";

/** Version of the snapshot's layout; a header of another version is ignored. */
const snapshotFormat = 1;

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
  private readonly files: SnapshotFileSet;

  /** @param databasePath - the organisation's SQLite file; the snapshot files sit beside it. */
  constructor(databasePath: string) {
    this.files = new SnapshotFileSet(`${databasePath}.hnsw`, ["usearch", "keys"]);
  }

  /**
   * The saved snapshot when its header matches `isCurrent` and both data files have the recorded
   * size and CRC-32; undefined otherwise (none saved, stale, truncated or damaged). Reads the
   * files asynchronously, in 4 MiB steps, so the event loop stays free.
   */
  async read(isCurrent: (coverage: HnswSnapshotCoverage) => boolean): Promise<HnswSnapshot | undefined> {
    const header = (await this.files.readHeader()) as HnswSnapshotHeader | undefined;
    if (!header || header.format !== snapshotFormat || !SnapshotFileSet.isName(header.name)) return undefined;
    if (!isCurrent(coverageOf(header))) return undefined;
    const graphPath = this.files.dataPath(header.name, "usearch");
    const keysPath = this.files.dataPath(header.name, "keys");
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
    const name = this.writeData(graph, keys);
    let sums: { graph: FileSum; keys: FileSum };
    try {
      sums = {
        graph: await fileCrc32(this.files.temporaryPath(name, "usearch")),
        keys: await fileCrc32(this.files.temporaryPath(name, "keys")),
      };
    } catch (error) {
      this.files.removeTemporary(name);
      throw error;
    }
    await this.files.commit(name, headerOf(name, keys.length, removedSinceBuild, coverage, sums));
  }

  /** The same as {@link write}, every step blocking: for closing, when no later turn of the event loop may come. */
  writeNow(graph: HnswVectorIndex, keys: Float64Array, coverage: HnswSnapshotCoverage, removedSinceBuild = 0): void {
    const name = this.writeData(graph, keys);
    let sums: { graph: FileSum; keys: FileSum };
    try {
      sums = {
        graph: fileCrc32Now(this.files.temporaryPath(name, "usearch")),
        keys: fileCrc32Now(this.files.temporaryPath(name, "keys")),
      };
    } catch (error) {
      this.files.removeTemporary(name);
      throw error;
    }
    this.files.commitNow(name, headerOf(name, keys.length, removedSinceBuild, coverage, sums));
  }

  /** Deletes every snapshot file (header first, so that a crash meanwhile leaves no usable snapshot). */
  remove(): void {
    this.files.remove();
  }

  /** Writes the graph and its keys under temporary names; returns the save's name. */
  private writeData(graph: HnswVectorIndex, keys: Float64Array): string {
    const name = this.files.newName();
    try {
      graph.save(this.files.temporaryPath(name, "usearch"));
      const sorted = Float64Array.from(keys).sort();
      writeFileSync(this.files.temporaryPath(name, "keys"), new Uint8Array(sorted.buffer, sorted.byteOffset, sorted.byteLength));
    } catch (error) {
      this.files.removeTemporary(name);
      throw error;
    }
    return name;
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

/** The header's path for an organisation's SQLite file (for tests and tools). */
export function snapshotHeaderPath(databasePath: string): string {
  return `${databasePath}.hnsw.json`;
}

/** Reads a header as stored (for tests and tools); undefined when there is none. */
export function readSnapshotHeader(databasePath: string): Record<string, unknown> | undefined {
  const path = snapshotHeaderPath(databasePath);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : undefined;
}
