/**
 * Reading a zip-based file (DOCX; later any OOXML or ODF format) within {@link ArchiveLimits}:
 * the central directory is read with `yauzl` (entry count checked first), and each entry is
 * inflated only when a parser asks for it, through a stream that counts the real inflated bytes
 * against the per-entry and per-archive limits and the compression ratio, and stops the moment one
 * is passed, whatever the entry's name or the size it declares (declared sizes are checked too,
 * to refuse early, and `yauzl` stops an entry that inflates past its declared size). A parser is
 * handed only entries that passed, as buffers; it never sees the raw archive, so a parser whose
 * own zip reader inflates first and checks later (mammoth's JSZip) cannot be reached by a bomb.
 * Entries nobody asks for (images, which the loaders never decode) are never inflated.
 */
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { DocqaError } from "../../errors/docqa-error.js";
import type { ArchiveLimits } from "./archive-limits.js";

/** A zip-based file opened within limits; see the module documentation. */
export interface BoundedZip {
  /** The file names of the archive's entries (directories left out), in central-directory order. */
  readonly names: readonly string[];
  /** Whether the archive has an entry named `name`. */
  has(name: string): boolean;
  /**
   * Inflates entry `name` within the limits and resolves with its bytes. Every call inflates
   * and counts again, so a part read twice counts twice against `maxArchiveBytes`.
   *
   * @throws {DocqaError} `archive_too_large` when the entry, or the archive's bytes read so far,
   *   pass a limit (then every later read throws it too); `corrupt_file` when the entry is missing
   *   or cannot be inflated (unsupported method, encryption, bad data).
   */
  read(name: string): Promise<Buffer>;
  /** Inflated bytes read so far, all entries together. */
  readonly inflatedBytes: number;
  /** Releases the archive; reads after it fail. */
  close(): void;
}

/**
 * Opens the zip-based file `name` from its bytes.
 *
 * @param kind - what the file should be, for messages (`"DOCX"`).
 * @throws {DocqaError} `archive_too_large` when it has more than `limits.maxEntries` entries;
 *   `corrupt_file` when it is not a readable zip archive or names one entry twice.
 */
export async function openBoundedZip(name: string, bytes: Uint8Array, limits: ArchiveLimits, kind: string): Promise<BoundedZip> {
  const corrupt = (reason: string, cause?: unknown) =>
    new DocqaError("corrupt_file", `${name} is not a readable ${kind} (${reason})`, { component: "ingestion", cause });
  const tooLarge = (reason: string, cause?: unknown) =>
    new DocqaError("archive_too_large", `${name} ${reason}; refusing a possible zip bomb`, { component: "ingestion", cause });
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, { autoClose: false, validateEntrySizes: true, strictFileNames: false });
  } catch (error) {
    throw corrupt((error as Error).message, error);
  }
  const entries = new Map<string, yauzl.Entry>();
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw tooLarge(`has ${zip.entryCount} entries (limit ${limits.maxEntries}, MAX_ARCHIVE_ENTRIES)`);
    }
    try {
      for await (const entry of zip.eachEntry()) {
        if (entry.fileName.endsWith("/")) continue;
        if (entries.has(entry.fileName)) throw corrupt(`two entries are named ${entry.fileName}`);
        entries.set(entry.fileName, entry);
      }
    } catch (error) {
      throw DocqaError.isInstance(error) ? error : corrupt((error as Error).message, error);
    }
  } catch (error) {
    zip.close();
    throw error;
  }

  const maxRatioBytes = limits.maxCompressionRatio * buffer.byteLength;
  let inflatedBytes = 0;
  /** The first limit passed: every read after it fails the same way, without inflating. */
  let refused: DocqaError | undefined;
  let closed = false;
  const refuse = (error: DocqaError): DocqaError => {
    refused ??= error;
    return error;
  };

  return {
    names: [...entries.keys()],
    has: (entryName) => entries.has(entryName),
    get inflatedBytes() {
      return inflatedBytes;
    },
    async read(entryName) {
      if (refused) throw refused;
      if (closed)
        throw new DocqaError("internal_error", `${name}: read ${entryName} after the archive was closed`, { component: "ingestion" });
      const entry = entries.get(entryName);
      if (!entry) throw corrupt(`it has no part ${entryName}`);
      if (entry.uncompressedSize > limits.maxEntryBytes) {
        throw refuse(
          tooLarge(
            `has a part (${entryName}) declaring ${entry.uncompressedSize} inflated bytes (limit ${limits.maxEntryBytes}, MAX_ARCHIVE_ENTRY_BYTES)`,
          ),
        );
      }
      let stream: Readable;
      try {
        stream = await zip.openReadStreamPromise(entry);
      } catch (error) {
        throw corrupt(`${entryName}: ${(error as Error).message}`, error);
      }
      const chunks: Buffer[] = [];
      let entryBytes = 0;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          // Another read passed a limit meanwhile: this one stops too.
          if (refused) throw refused;
          entryBytes += chunk.length;
          inflatedBytes += chunk.length;
          if (entryBytes > limits.maxEntryBytes) {
            throw refuse(
              tooLarge(`has a part (${entryName}) that inflates beyond ${limits.maxEntryBytes} bytes (MAX_ARCHIVE_ENTRY_BYTES)`),
            );
          }
          if (inflatedBytes > limits.maxArchiveBytes) {
            throw refuse(tooLarge(`inflates beyond ${limits.maxArchiveBytes} bytes, its parts read together (MAX_ARCHIVE_BYTES)`));
          }
          if (inflatedBytes > maxRatioBytes) {
            throw refuse(
              tooLarge(`inflates beyond ${limits.maxCompressionRatio} times its ${buffer.byteLength} bytes (MAX_COMPRESSION_RATIO)`),
            );
          }
          chunks.push(chunk);
        }
      } catch (error) {
        stream.destroy();
        if (DocqaError.isInstance(error)) throw error;
        // yauzl's size validation: the entry inflates past the size it declares.
        if (/too many bytes/i.test((error as Error).message)) {
          throw refuse(tooLarge(`has a part (${entryName}) that inflates beyond the ${entry.uncompressedSize} bytes it declares`, error));
        }
        throw corrupt(`${entryName}: ${(error as Error).message}`, error);
      }
      return Buffer.concat(chunks, entryBytes);
    },
    close() {
      if (closed) return;
      closed = true;
      zip.close();
    },
  };
}
