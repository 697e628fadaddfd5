/**
 * The file loaders, by format: `loadFile` looks a file's loader up here by extension, and checks
 * its content against the loader's signature. A loader file declares its format, extensions and
 * signature (`FileLoader<"format">`); adding a format adds its loader to this list, and
 * `FileFormat`, `supportedFormats` and `supportedExtensions` follow from it.
 */
import { csvLoader } from "./load-csv.js";
import { docxLoader } from "./load-docx.js";
import { jsonLoader } from "./load-json.js";
import { markdownLoader } from "./load-markdown.js";
import { pdfLoader } from "./load-pdf.js";
import { plainTextLoader } from "./load-plain-text.js";
import type { FileLoader } from "./loaded-file.js";

/** Every loader, in the order formats are listed to users. */
export const fileLoaders = [pdfLoader, docxLoader, plainTextLoader, markdownLoader, jsonLoader, csvLoader] as const;

/** File formats docqa ingests: the formats of {@link fileLoaders}. */
export type FileFormat = (typeof fileLoaders)[number]["format"];

/** The supported formats, as their main file extensions, in the order of {@link fileLoaders}. */
export const supportedFormats: readonly FileFormat[] = fileLoaders.map((loader) => loader.format);

/**
 * Every extension a loader reads (lower case, without the dot): each format's own followed by
 * its aliases (`md`, `markdown`), in the order of {@link fileLoaders}.
 */
export const supportedExtensions: readonly string[] = fileLoaders.flatMap((loader) => [loader.format, ...loader.aliases]);

/** The loader of the extension `extension` (lower case, without the dot), or undefined. */
export function loaderOfExtension(extension: string): FileLoader<FileFormat> | undefined {
  return fileLoaders.find((loader) => loader.format === extension || loader.aliases.includes(extension));
}
