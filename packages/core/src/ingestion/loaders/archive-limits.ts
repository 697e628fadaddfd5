/**
 * The limits of zip-based files (DOCX today; any later OOXML or ODF format reads its parts through
 * the same `bounded-zip.ts`), and where their defaults come from: the heap of an ingestion worker
 * thread (`INGESTION_WORKER_HEAP_MB`, piscina's `resourceLimits.maxOldGenerationSizeMb`) and the
 * peak heap the DOCX parser needs per byte of XML, measured by `bench/docx-parser-memory.ts`
 * (`BENCH_ONLY=docx-memory npm run bench`).
 *
 * The derivation: mammoth parses every XML part it reads into an `@xmldom/xmldom` DOM, then into
 * its own element tree, then into its document model, and keeps the parts it has read until the
 * conversion ends, so its peak heap grows with the bytes of XML handed to it. The worst documents
 * measured are those with the most elements per byte (empty paragraphs `<w:p/>`, unrecognised
 * elements): their parse needs {@link docxParseHeapPerXmlByte} bytes of heap per byte of XML,
 * against about 30 for paragraphs of ordinary text. The parse may take {@link docxParseHeapShare}
 * of the worker's heap (the rest is the worker's own state, the file's text, and room for the
 * garbage collector), so the most XML a DOCX may hand to its parser is `heap × share ÷
 * heapPerByte`: 14 MiB for the default heap of 4,096 MiB. Anything within that parses in the
 * worker, whatever its shape (the benchmark loads 14 MiB of the worst shape under the default
 * heap); a heap set lower lowers the default with it.
 */
import type { LoaderLimits } from "./loaded-file.js";

/** Mebibyte, in bytes. */
const mebibyte = 1024 * 1024;

/**
 * Default of `INGESTION_WORKER_HEAP_MB`: 4,096 MiB of V8 old-generation heap per ingestion
 * worker thread. It is about what V8 gives a worker by itself on a 64-bit server with 16 GB or
 * more (4,144 MiB measured with Node 24 on a 24 GB machine), so that no format parses less than
 * it did before the limit was set explicitly.
 */
export const defaultWorkerHeapMegabytes = 4096;

/**
 * Peak V8 heap of loading a DOCX (mammoth's conversion and the section split), in bytes per byte
 * of XML handed to the parser, for the worst documents measured, rounded up: 139 to 143 for empty
 * paragraphs and for unrecognised elements (2 MiB of XML, three runs of
 * `bench/docx-parser-memory.ts`: the smallest `maxOldGenerationSizeMb` under which a worker
 * completes the load, found by bisection to 3 %, less the 30 MiB a worker needs for a one-paragraph
 * document). Other shapes measured lower: table cells 121 to 125, line breaks 111, one-character
 * paragraphs 103, paragraphs of ordinary text 30.5 to 32, Word's paragraph attributes 21.5.
 */
export const docxParseHeapPerXmlByte = 145;

/** Share of a worker's heap a DOCX parse may take; the rest is the worker's own state and headroom for the garbage collector. */
export const docxParseHeapShare = 0.5;

/**
 * The default `MAX_ARCHIVE_BYTES` and `MAX_ARCHIVE_ENTRY_BYTES` for a worker heap of
 * `heapMegabytes`: `heap × docxParseHeapShare ÷ docxParseHeapPerXmlByte`, rounded down to whole
 * MiB (at least 1 MiB). 14 MiB (14,680,064 bytes) for the default heap of 4,096 MiB.
 */
export function archiveBytesForHeap(heapMegabytes: number): number {
  return Math.max(1, Math.floor((heapMegabytes * docxParseHeapShare) / docxParseHeapPerXmlByte)) * mebibyte;
}

/** Default of `MAX_ARCHIVE_ENTRIES`: entries of a zip-based file, read from its central directory. */
export const defaultArchiveEntries = 10_000;

/**
 * Default of `MAX_COMPRESSION_RATIO`: inflated bytes read from a zip-based file over the file's
 * size. Word's own files inflate by 3 to 20 times; 200 leaves room for documents of repetitive
 * markup while a zip bomb (ratios of 1,000 and more) stops early.
 */
export const defaultCompressionRatio = 200;

/** The limits applied to one zip-based file while its entries are inflated. */
export interface ArchiveLimits {
  /** `MAX_ARCHIVE_ENTRIES`: entries in the central directory, checked before anything is inflated. */
  maxEntries: number;
  /**
   * `MAX_ARCHIVE_ENTRY_BYTES`: inflated bytes of one entry, counted as it inflates (its declared
   * size is checked first, but only the real bytes are trusted).
   */
  maxEntryBytes: number;
  /**
   * `MAX_ARCHIVE_BYTES`: inflated bytes read from the archive, all entries together, counted as
   * they inflate; an entry read twice counts twice (a parser handed one part under two
   * relationships parses it twice).
   */
  maxArchiveBytes: number;
  /** `MAX_COMPRESSION_RATIO`: inflated bytes read so far over the file's size. */
  maxCompressionRatio: number;
}

/** The archive limits for the default worker heap: see the module documentation. */
export const defaultArchiveLimits: ArchiveLimits = {
  maxEntries: defaultArchiveEntries,
  maxEntryBytes: archiveBytesForHeap(defaultWorkerHeapMegabytes),
  maxArchiveBytes: archiveBytesForHeap(defaultWorkerHeapMegabytes),
  maxCompressionRatio: defaultCompressionRatio,
};

/** The archive limits of a loader's `limits`, each unset one at its default (`MAX_ARCHIVE_ENTRY_BYTES` defaults to `MAX_ARCHIVE_BYTES`). */
export function archiveLimitsOf(limits: LoaderLimits): ArchiveLimits {
  return {
    maxEntries: limits.maxArchiveEntries ?? defaultArchiveLimits.maxEntries,
    maxEntryBytes: limits.maxArchiveEntryBytes ?? limits.maxArchiveBytes ?? defaultArchiveLimits.maxEntryBytes,
    maxArchiveBytes: limits.maxArchiveBytes ?? defaultArchiveLimits.maxArchiveBytes,
    maxCompressionRatio: limits.maxCompressionRatio ?? defaultArchiveLimits.maxCompressionRatio,
  };
}
