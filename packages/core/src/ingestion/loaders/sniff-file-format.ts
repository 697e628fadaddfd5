/**
 * Checks that a file's content matches its extension, from its leading bytes (magic numbers,
 * via the `file-type` package), so a renamed file is rejected with a clear reason instead of
 * producing garbage.
 */
import { fileTypeFromBuffer } from "file-type";
import { DocqaError } from "../../errors/docqa-error.js";
import type { FileFormat } from "./loaded-file.js";
import { supportedFormats } from "./loaded-file.js";

/**
 * The format of `name` from its extension (`.markdown` counts as Markdown, `.ndjson` and `.jsonl`
 * as JSON, `.text` as plain text).
 *
 * @throws {DocqaError} `unsupported_file_type`.
 */
export function formatFromName(name: string): FileFormat {
  const extension = /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase() ?? "";
  const aliases: Record<string, FileFormat> = { markdown: "md", ndjson: "json", jsonl: "json", text: "txt" };
  const format = (aliases[extension] ?? extension) as FileFormat;
  if (!supportedFormats.includes(format)) {
    throw new DocqaError(
      "unsupported_file_type",
      `${name}: unsupported file type${extension ? ` .${extension}` : " (no extension)"}; supported: ${supportedFormats.map((value) => `.${value}`).join(", ")}`,
      { component: "ingestion" },
    );
  }
  return format;
}

/**
 * Verifies the content of a file against the format its extension names.
 *
 * @throws {DocqaError} `content_type_mismatch` when the bytes are of another type.
 */
export async function assertContentMatches(name: string, format: FileFormat, bytes: Uint8Array): Promise<void> {
  const detected = await fileTypeFromBuffer(bytes.subarray(0, 4100));
  const mismatch = (what: string) =>
    new DocqaError("content_type_mismatch", `${name}: the extension says .${format} but the content is ${what}`, {
      component: "ingestion",
    });
  if (format === "pdf") {
    if (detected?.ext !== "pdf") throw mismatch(detected ? `${detected.mime}` : "not a PDF (no %PDF- header)");
    return;
  }
  if (format === "docx") {
    if (detected?.ext !== "docx" && detected?.ext !== "zip")
      throw mismatch(detected ? `${detected.mime}` : "not a DOCX (not a zip archive)");
    return;
  }
  // Text formats: anything file-type recognises is binary (it has no text signatures).
  if (detected) throw mismatch(`${detected.mime} (.${detected.ext})`);
}
