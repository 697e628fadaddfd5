/**
 * What a loader produces from one file: a title, document-level metadata, and sections (PDF
 * pages, Markdown and DOCX heading sections, CSV row groups, JSON records) with their own
 * metadata, in the spirit of LangChain's `Document` (`pageContent` + `metadata`).
 */

/** A file to load. */
export interface FileInput {
  /** File name (with extension), for example `handbook.pdf`. */
  name: string;
  /** The file's bytes. */
  bytes: Uint8Array;
  /** Modification time, used as `created_at` when the file itself records none. */
  lastModified?: Date | undefined;
}

/** One section of a loaded file. */
export interface LoadedSection {
  /** Text of the section. */
  text: string;
  /** Section metadata: `page` (PDF, 1-based), `section` (heading path), `record` (JSON), `rows` (CSV). */
  metadata: Record<string, unknown>;
  /**
   * True when the section is already chunk-sized and must not be split further unless it is
   * longer than `CHUNK_SIZE` (CSV row groups).
   */
  preChunked?: boolean;
}

/** One logical document from a file (most files give one; JSON record arrays give one per record). */
export interface LoadedDocument {
  /** Suffix added to the file's document id (`#<index>` for JSON records), or `""`. */
  idSuffix: string;
  title: string;
  /** Document metadata: `filename`, `type`, `created_at`, and format extras (`pages`, `encoding`). */
  metadata: Record<string, unknown>;
  sections: LoadedSection[];
}

/** A loaded file. */
export interface LoadedFile {
  documents: LoadedDocument[];
  /** Non-fatal observations, for example a dropped incomplete last character. */
  warnings: string[];
}

/** Limits applied by loaders. */
export interface LoaderLimits {
  /** `MAX_UPLOAD_BYTES`: largest file accepted. */
  maxFileBytes: number;
  /** `MAX_EXTRACTED_CHARS`: most characters of text extracted from one file. */
  maxExtractedChars: number;
  /**
   * `MAX_ARCHIVE_BYTES`: inflated bytes read from a DOCX (zip) archive, its parts together, counted
   * as they inflate (a part read twice counts twice); default 14 MiB, derived from the default
   * ingestion worker heap (`archive-limits.ts`).
   */
  maxArchiveBytes?: number | undefined;
  /** `MAX_ARCHIVE_ENTRY_BYTES`: inflated bytes of one part of a DOCX (zip) archive, counted as it inflates; default as `maxArchiveBytes`. */
  maxArchiveEntryBytes?: number | undefined;
  /** `MAX_ARCHIVE_ENTRIES`: most entries of a DOCX archive; default 10,000. */
  maxArchiveEntries?: number | undefined;
  /** `MAX_COMPRESSION_RATIO`: inflated bytes read from a DOCX archive over its file size; default 200. */
  maxCompressionRatio?: number | undefined;
  /** `MAX_JSON_DEPTH`: deepest JSON nesting accepted; default 64. */
  maxJsonDepth?: number | undefined;
  /** `MAX_PDF_PAGES`: most pages of a PDF; default 5,000. */
  maxPdfPages?: number | undefined;
}

/** Options of the JSON loader; see `docs/ingestion.md` for the rule. */
export interface JsonLoaderOptions {
  /** Make each record of a record array its own document (default true); false keeps one document with a section per record. */
  recordsAsDocuments?: boolean;
  /** Keys (anywhere in a record) whose scalar values go to metadata instead of text; default {@link defaultJsonMetadataKeys}. */
  metadataKeys?: RegExp;
}

/** Keys whose scalar values become metadata rather than text: identifiers, links and dates. */
export const defaultJsonMetadataKeys = /^(id|_id|uuid|guid|.*_id|url|uri|href|link|source|created_at|updated_at|date|timestamp)$/i;

/** Options of `loadFile`, passed on to each loader. */
export interface LoadFileOptions {
  limits: LoaderLimits;
  /** `CHUNK_SIZE`, for CSV row groups. */
  chunkSize: number;
  json?: JsonLoaderOptions;
}

/**
 * A file loader as `file-loaders.ts` registers it: the format it reads, the extensions that name
 * it, what its content must look like, and the loader itself. A loader file declares it with its
 * format as the type argument (`FileLoader<"pdf">`), so `FileFormat` is derived from the list of
 * loaders and no loader imports that list.
 */
export interface FileLoader<Format extends string = string> {
  /** The format, also its main extension (lower case, without the dot) and the documents' `type` metadata. */
  format: Format;
  /** Other extensions of the format (lower case, without the dot), for example `markdown` for `md`. */
  aliases: readonly string[];
  /**
   * For a binary format: the `file-type` extensions its leading bytes may be detected as, and what
   * the content is said to be when none is detected. Undefined for a text format: content that
   * `file-type` recognises (it has no text signatures) is refused.
   */
  signature?: { fileTypes: readonly string[]; otherwise: string };
  /**
   * Loads `file` (size and content already checked by `loadFile`).
   *
   * @throws {DocqaError} the file codes of `loadFile`.
   */
  load(file: FileInput, options: LoadFileOptions): Promise<LoadedFile>;
}
