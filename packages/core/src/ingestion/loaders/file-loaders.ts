/**
 * The file loaders, by format: `loadFile` looks a file's loader up here by extension, and checks
 * its content against the loader's signature. A loader file declares its format, extensions and
 * signature (`FileLoader`); adding a format adds its loader to this list.
 */
import { csvLoader } from "./load-csv.js";
import { docxLoader } from "./load-docx.js";
import { jsonLoader } from "./load-json.js";
import { markdownLoader } from "./load-markdown.js";
import { pdfLoader } from "./load-pdf.js";
import { plainTextLoader } from "./load-plain-text.js";
import type { FileLoader } from "./loaded-file.js";

/** Every loader, in the order of `supportedFormats`. */
export const fileLoaders: readonly FileLoader[] = [pdfLoader, docxLoader, plainTextLoader, markdownLoader, jsonLoader, csvLoader];

/** The loader of the extension `extension` (lower case, without the dot), or undefined. */
export function loaderOfExtension(extension: string): FileLoader | undefined {
  return fileLoaders.find((loader) => loader.format === extension || loader.aliases.includes(extension));
}
