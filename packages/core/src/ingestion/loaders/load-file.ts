/**
 * Loads any supported file: checks its size and that its content matches its extension, then
 * dispatches to the format's loader (looked up by extension in `file-loaders.ts`), and stamps `filename`, `type` and `created_at`.
 */
import { DocqaError } from "../../errors/docqa-error.js";
import type { FileInput, LoadedFile, LoadFileOptions } from "./loaded-file.js";
import { assertContentMatches, loaderOfName } from "./sniff-file-format.js";

export type { LoadFileOptions } from "./loaded-file.js";

/** Version of the loaders' output; part of a file's content hash, so a loader change re-ingests. */
export const loaderVersion = "6";

/**
 * Loads a file into documents with sections.
 *
 * @throws {DocqaError} one of the file codes: `unsupported_file_type`, `empty_file`,
 *   `file_too_large`, `content_type_mismatch`, `corrupt_file`, `password_protected`,
 *   `no_text_layer`, `invalid_encoding`, `csv_ragged_rows`, `json_too_deep`, `archive_too_large`.
 */
export async function loadFile(file: FileInput, options: LoadFileOptions): Promise<LoadedFile> {
  const loader = loaderOfName(file.name);
  const format = loader.format;
  if (file.bytes.length === 0) throw new DocqaError("empty_file", `${file.name} is empty (0 bytes)`, { component: "ingestion" });
  if (file.bytes.length > options.limits.maxFileBytes) {
    throw new DocqaError(
      "file_too_large",
      `${file.name} has ${file.bytes.length} bytes; the limit is ${options.limits.maxFileBytes} (MAX_UPLOAD_BYTES)`,
      {
        component: "ingestion",
      },
    );
  }
  await assertContentMatches(file.name, loader, file.bytes);
  const loaded = await loader.load(file, options);
  const createdAt = (file.lastModified ?? new Date()).toISOString();
  for (const document of loaded.documents) {
    document.metadata = { filename: file.name, type: format, created_at: createdAt, ...document.metadata };
  }
  return loaded;
}
