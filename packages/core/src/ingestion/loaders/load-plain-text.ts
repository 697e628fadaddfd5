/**
 * Plain-text loading: decoded text, one section per form-feed-separated page (`page` from 1)
 * when the file has form feeds, else one section.
 */
import { DocqaError } from "../../errors/docqa-error.js";
import { decodeText } from "./decode-text.js";
import { stripExtension } from "./load-pdf.js";
import type { FileInput, FileLoader, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";
import { repairMojibake } from "./repair-mojibake.js";

/**
 * Loads a `.txt` file.
 *
 * @throws {DocqaError} `empty_file`, `invalid_encoding`, `file_too_large`.
 */
export async function loadPlainText(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const pages = text.split("\f");
  const sections: LoadedSection[] =
    pages.length > 1
      ? pages.flatMap((page, index) => (page.trim() === "" ? [] : [{ text: page.trim(), metadata: { page: index + 1 } }]))
      : [{ text: text.trim(), metadata: {} }];
  return { documents: [{ idSuffix: "", title: stripExtension(file.name), metadata: { encoding }, sections }], warnings };
}

/**
 * Decodes a text file, applies the empty and size checks shared by the text formats, and repairs
 * mojibake (`repairMojibake`, with a warning naming how many lines changed).
 */
export function decodeChecked(file: FileInput, limits: LoaderLimits): { text: string; encoding: string; warnings: string[] } {
  const decoded = decodeText(file.bytes, file.name);
  const text = decoded.text.replace(/\r\n?/g, "\n").replaceAll("\u0000", "");
  if (text.trim() === "") throw new DocqaError("empty_file", `${file.name} is empty`, { component: "ingestion" });
  if (text.length > limits.maxExtractedChars) {
    throw new DocqaError(
      "file_too_large",
      `${file.name} has ${text.length} characters of text; the limit is ${limits.maxExtractedChars} (MAX_EXTRACTED_CHARS)`,
      {
        component: "ingestion",
      },
    );
  }
  const repaired = repairMojibake(text);
  if (repaired.repairedLines === 0) return { ...decoded, text };
  return {
    ...decoded,
    text: repaired.text,
    warnings: [
      ...decoded.warnings,
      `${file.name}: mojibake repaired on ${repaired.repairedLines} line${repaired.repairedLines === 1 ? "" : "s"} (UTF-8 text that had been decoded as Windows-1252 or Latin-1)`,
    ],
  };
}

/** The `.txt` loader, registered in `file-loaders.ts`. */
export const plainTextLoader: FileLoader<"txt"> = {
  format: "txt",
  aliases: ["text"],
  load: (file, options) => loadPlainText(file, options.limits),
};
