/**
 * Loading of plain-text and Markdown files into a Document: text decoding and a title.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { DocqaError } from "../errors/docqa-error.js";
import type { DocumentInput } from "./document-input.js";

/**
 * Decodes file bytes as text: UTF-8 (a BOM is removed), or UTF-16 LE/BE when the file starts
 * with the matching byte-order mark.
 *
 * @throws {DocqaError} `invalid_request` when the bytes are not valid UTF-8 and carry no UTF-16 BOM.
 */
export function decodeText(bytes: Uint8Array, name: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (error) {
    throw new DocqaError("invalid_request", `${name} is not valid UTF-8 text`, { component: "ingestion", cause: error });
  }
}

/**
 * Reads a `.txt` or `.md` file as a Document. The title is the first Markdown level-1 heading,
 * else the file name without extension; `metadata` holds `filename`, `type` and `created_at`
 * (the file's modification time, ISO 8601).
 *
 * @throws {DocqaError} `invalid_request` for an empty or whitespace-only file, or undecodable text.
 */
export async function loadTextFile(path: string): Promise<DocumentInput> {
  const [bytes, info] = await Promise.all([readFile(path), stat(path)]);
  const filename = basename(path);
  const content = decodeText(bytes, filename);
  if (content.trim() === "") throw new DocqaError("invalid_request", `${filename} is empty`, { component: "ingestion" });
  const extension = extname(path).slice(1).toLowerCase();
  const heading = extension === "md" ? /^#\s+(.+?)\s*#*\s*$/m.exec(content)?.[1] : undefined;
  return {
    title: heading ?? basename(path, extname(path)),
    content,
    metadata: { filename, type: extension, created_at: info.mtime.toISOString() },
  };
}
