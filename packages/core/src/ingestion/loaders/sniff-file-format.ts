/**
 * Checks that a file's content matches its extension, from its leading bytes (magic numbers,
 * via the `file-type` package), so a renamed file is rejected with a clear reason instead of
 * producing garbage.
 */
import { fileTypeFromBuffer } from "file-type";
import { DocqaError } from "../../errors/docqa-error.js";
import { type FileFormat, fileLoaders, loaderOfExtension } from "./file-loaders.js";
import type { FileLoader } from "./loaded-file.js";

/**
 * The loader of `name` from its extension: a format's own (`.md`) or one of its aliases
 * (`.markdown` counts as Markdown, `.ndjson` and `.jsonl` as JSON, `.text` as plain text).
 *
 * @throws {DocqaError} `unsupported_file_type`.
 */
export function loaderOfName(name: string): FileLoader<FileFormat> {
  const extension = /\.([^./\\]+)$/.exec(name)?.[1]?.toLowerCase() ?? "";
  const loader = loaderOfExtension(extension);
  if (!loader) {
    throw new DocqaError(
      "unsupported_file_type",
      `${name}: unsupported file type${extension ? ` .${extension}` : " (no extension)"}; supported: ${fileLoaders.map((candidate) => `.${candidate.format}`).join(", ")}`,
      { component: "ingestion" },
    );
  }
  return loader;
}

/**
 * The format of `name` from its extension (see {@link loaderOfName}).
 *
 * @throws {DocqaError} `unsupported_file_type`.
 */
export function formatFromName(name: string): FileFormat {
  return loaderOfName(name).format;
}

/**
 * Verifies the content of a file against the loader its extension names: a binary format's
 * leading bytes must be of its signature; a text format's must be nothing `file-type` recognises.
 *
 * @throws {DocqaError} `content_type_mismatch` when the bytes are of another type.
 */
export async function assertContentMatches(name: string, loader: FileLoader, bytes: Uint8Array): Promise<void> {
  const detected = await fileTypeFromBuffer(bytes.subarray(0, 4100));
  const mismatch = (what: string) =>
    new DocqaError("content_type_mismatch", `${name}: the extension says .${loader.format} but the content is ${what}`, {
      component: "ingestion",
    });
  if (loader.signature) {
    if (!detected || !loader.signature.fileTypes.includes(detected.ext))
      throw mismatch(detected ? `${detected.mime}` : loader.signature.otherwise);
    return;
  }
  // Text formats: anything file-type recognises is binary (it has no text signatures).
  if (detected) throw mismatch(`${detected.mime} (.${detected.ext})`);
}
