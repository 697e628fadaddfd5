/**
 * The saved BM25 postings of one organisation of the embedded store: a cache beside its SQLite
 * file, so that a restart loads the postings instead of splitting and counting every chunk's terms
 * again (about 60 % of a reopen before this file existed: 30 s of 50.7 at a million chunks).
 *
 * Two files per organisation, beside `<org>.sqlite`, written as the HNSW graph's are
 * (`snapshot-files.ts`: temporary names, fsync, rename, header last):
 *
 * - `<org>.sqlite.bm25-<name>.postings`: the postings keyed by row id ({@link Bm25Postings}), as
 *   little-endian typed arrays one after another, each starting at a multiple of 8 bytes: row ids
 *   (float64 × rows), row lengths (uint32 × rows), term starts (uint32 × (terms + 1)), posting
 *   rows (uint32 × postings), frequencies (uint16 or uint32 × postings), then the terms as UTF-8
 *   joined by spaces (the stored terms never hold one: they are the split of `chunks.terms`);
 * - `<org>.sqlite.bm25.json`: the header: the counts of each section, the file's size and CRC-32,
 *   and the state of the database the postings cover ({@link Bm25SnapshotCoverage}).
 *
 * On reading, a header that does not match the database (another file under the same name,
 * another organisation, another analyzer, a change log trimmed past it) or a data file whose size
 * or CRC-32 differs is ignored, and the caller rebuilds the postings from SQLite. The postings of
 * a deleted document are not kept: the index removes the snapshot when it applies a deletion or a
 * replacement, and saves terms with postings only (issue 27: deleted text is in no file).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import type { Bm25Postings } from "./bm25-index.js";
import { bufferCrc32, type FileSum, fileCrc32Now, SnapshotFileSet } from "./snapshot-files.js";

/** Version of the data file's layout; a header of another version is ignored. */
const snapshotFormat = 1;

/** The state of the database saved postings cover; they are used only when every field matches. */
export interface Bm25SnapshotCoverage {
  /** The database's `store_id` (random, written when the file is created): another file under the same name differs. */
  storeId: string;
  /** The organisation. */
  orgId: string;
  /** The analyzer's name (`Analyzer.name`) the stored terms were made with: another one re-analyses every chunk. */
  analyzer: string;
  /**
   * The last entry of the `changes` log whose documents the postings hold as committed (they may
   * hold later ones too): on loading, documents changed after it are read again from the database.
   */
  change: number;
}

/** What the header records. */
interface Bm25SnapshotHeader extends Bm25SnapshotCoverage {
  format: number;
  /** Names the data file: `<base>-<name>.postings`. */
  name: string;
  rows: number;
  terms: number;
  postings: number;
  /** 2 or 4. */
  frequencyBytes: number;
  vocabularyBytes: number;
  dataBytes: number;
  dataCrc32: number;
}

/** Saved postings found valid. */
export interface Bm25Snapshot {
  coverage: Bm25SnapshotCoverage;
  postings: Bm25Postings;
}

/** The BM25 snapshot files of one organisation, by the path of its SQLite file. */
export class Bm25SnapshotFiles {
  private readonly files: SnapshotFileSet;

  /** @param databasePath - the organisation's SQLite file; the snapshot files sit beside it. */
  constructor(databasePath: string) {
    this.files = new SnapshotFileSet(`${databasePath}.bm25`, ["postings"]);
  }

  /**
   * The saved postings when the header matches `isCurrent` and the data file has the recorded
   * size and CRC-32; undefined otherwise (none saved, stale, truncated or damaged). The file is
   * read on libuv's thread pool and checked 4 MiB per turn of the event loop; the typed arrays are
   * views of the buffer read, not copies.
   */
  async read(isCurrent: (coverage: Bm25SnapshotCoverage) => boolean): Promise<Bm25Snapshot | undefined> {
    const header = (await this.files.readHeader()) as Bm25SnapshotHeader | undefined;
    if (!header || header.format !== snapshotFormat || !SnapshotFileSet.isName(header.name)) return undefined;
    if (!isCurrent(coverageOf(header))) return undefined;
    const layout = layoutOf(header.rows, header.terms, header.postings, header.frequencyBytes, header.vocabularyBytes);
    if (!layout || layout.end !== header.dataBytes) return undefined;
    let bytes: Buffer;
    try {
      bytes = await readFile(this.files.dataPath(header.name, "postings"));
    } catch {
      return undefined;
    }
    if (bytes.byteLength !== header.dataBytes || (await bufferCrc32(bytes)) !== header.dataCrc32) return undefined;
    // Typed arrays need aligned offsets: a pooled buffer may start anywhere.
    const buffer = bytes.byteOffset % 8 === 0 ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const base = bytes.byteOffset % 8 === 0 ? bytes.byteOffset : 0;
    const vocabulary = new TextDecoder().decode(new Uint8Array(buffer, base + layout.vocabulary, header.vocabularyBytes));
    const terms = header.terms === 0 ? [] : vocabulary.split(" ");
    if (terms.length !== header.terms) return undefined;
    const postings: Bm25Postings = {
      rowIds: new Float64Array(buffer, base + layout.rowIds, header.rows),
      lengths: new Uint32Array(buffer, base + layout.lengths, header.rows),
      terms,
      termStarts: new Uint32Array(buffer, base + layout.termStarts, header.terms + 1),
      postingRows: new Uint32Array(buffer, base + layout.postingRows, header.postings),
      frequencies:
        header.frequencyBytes === 2
          ? new Uint16Array(buffer, base + layout.frequencies, header.postings)
          : new Uint32Array(buffer, base + layout.frequencies, header.postings),
    };
    return { coverage: coverageOf(header), postings };
  }

  /**
   * Saves `postings` as covering `coverage`: the data file written on libuv's thread pool, its
   * CRC-32 computed 4 MiB per turn of the event loop, then committed atomically. `stillValid` is
   * asked before the commit: false (a deletion since the postings were copied) drops the save.
   * Resolves to false when dropped.
   */
  async write(postings: Bm25Postings, coverage: Bm25SnapshotCoverage, stillValid: () => boolean = () => true): Promise<boolean> {
    const name = this.files.newName();
    const temporary = this.files.temporaryPath(name, "postings");
    const { sections, header } = encode(name, postings, coverage);
    try {
      const handle = await open(temporary, "w");
      try {
        for (const section of sections) {
          for (let done = 0; done < section.byteLength; ) done += (await handle.write(section, done)).bytesWritten;
        }
      } finally {
        await handle.close();
      }
      let sum = 0;
      for (const section of sections) sum = await bufferCrc32(section, sum);
      header.dataCrc32 = sum;
    } catch (error) {
      this.files.removeTemporary(name);
      throw error;
    }
    if (!stillValid()) {
      this.files.removeTemporary(name);
      return false;
    }
    await this.files.commit(name, header);
    return true;
  }

  /** The same as {@link write}, every step blocking: for closing, when no later turn of the event loop may come. */
  writeNow(postings: Bm25Postings, coverage: Bm25SnapshotCoverage): void {
    const name = this.files.newName();
    const temporary = this.files.temporaryPath(name, "postings");
    const { sections, header } = encode(name, postings, coverage);
    let sum: FileSum;
    try {
      const descriptor = openSync(temporary, "w");
      try {
        for (const section of sections) {
          for (let done = 0; done < section.byteLength; ) done += writeSync(descriptor, section, done);
        }
      } finally {
        closeSync(descriptor);
      }
      sum = fileCrc32Now(temporary);
    } catch (error) {
      this.files.removeTemporary(name);
      throw error;
    }
    header.dataCrc32 = sum.crc32;
    this.files.commitNow(name, header);
  }

  /** Deletes every snapshot file (header first, so that a crash meanwhile leaves no usable snapshot). */
  remove(): void {
    this.files.remove();
  }
}

/** Byte offsets of the data file's sections; undefined for counts no file can have. */
function layoutOf(
  rows: number,
  terms: number,
  postings: number,
  frequencyBytes: number,
  vocabularyBytes: number,
):
  | { rowIds: number; lengths: number; termStarts: number; postingRows: number; frequencies: number; vocabulary: number; end: number }
  | undefined {
  const counts = [rows, terms, postings, vocabularyBytes];
  if (!counts.every((count) => Number.isSafeInteger(count) && count >= 0) || (frequencyBytes !== 2 && frequencyBytes !== 4)) {
    return undefined;
  }
  const aligned = (offset: number) => Math.ceil(offset / 8) * 8;
  const rowIds = 0;
  const lengths = rowIds + rows * 8;
  const termStarts = aligned(lengths + rows * 4);
  const postingRows = aligned(termStarts + (terms + 1) * 4);
  const frequencies = aligned(postingRows + postings * 4);
  const vocabulary = aligned(frequencies + postings * frequencyBytes);
  return { rowIds, lengths, termStarts, postingRows, frequencies, vocabulary, end: vocabulary + vocabularyBytes };
}

/** The data file's sections (views of the arrays, zero padding between) and its header without the CRC-32. */
function encode(
  name: string,
  postings: Bm25Postings,
  coverage: Bm25SnapshotCoverage,
): { sections: Uint8Array[]; header: Bm25SnapshotHeader } {
  const vocabulary = new TextEncoder().encode(postings.terms.join(" "));
  const frequencyBytes = postings.frequencies.BYTES_PER_ELEMENT;
  const rows = postings.rowIds.length;
  const layout = layoutOf(rows, postings.terms.length, postings.postingRows.length, frequencyBytes, vocabulary.byteLength);
  if (!layout) throw new RangeError("BM25 postings: counts out of range");
  const bytesOf = (array: Float64Array | Uint32Array | Uint16Array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  const parts: [number, Uint8Array][] = [
    [layout.rowIds, bytesOf(postings.rowIds)],
    [layout.lengths, bytesOf(postings.lengths)],
    [layout.termStarts, bytesOf(postings.termStarts)],
    [layout.postingRows, bytesOf(postings.postingRows)],
    [layout.frequencies, bytesOf(postings.frequencies)],
    [layout.vocabulary, vocabulary],
  ];
  const sections: Uint8Array[] = [];
  let offset = 0;
  for (const [start, bytes] of parts) {
    if (start > offset) sections.push(new Uint8Array(start - offset));
    sections.push(bytes);
    offset = start + bytes.byteLength;
  }
  const header: Bm25SnapshotHeader = {
    format: snapshotFormat,
    name,
    ...coverage,
    rows,
    terms: postings.terms.length,
    postings: postings.postingRows.length,
    frequencyBytes,
    vocabularyBytes: vocabulary.byteLength,
    dataBytes: layout.end,
    dataCrc32: 0,
  };
  return { sections, header };
}

function coverageOf(header: Bm25SnapshotHeader): Bm25SnapshotCoverage {
  return { storeId: header.storeId, orgId: header.orgId, analyzer: header.analyzer, change: header.change };
}

/** The header's path for an organisation's SQLite file (for tests and tools). */
export function bm25SnapshotHeaderPath(databasePath: string): string {
  return `${databasePath}.bm25.json`;
}
