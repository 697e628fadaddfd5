/**
 * The real documents of `../shared/data/documents` as `/upsert` document inputs, for end-to-end
 * tests and benchmarks that compare deployments on the same data.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { DocumentInput } from "../ingestion/document-input.js";
import type { FileFormat } from "../ingestion/loaders/file-loaders.js";
import { loadFile } from "../ingestion/loaders/load-file.js";
import { sharedDataPath } from "./shared-data.js";

/** Options of {@link sharedDocumentInputs}. */
export interface SharedDocumentInputOptions {
  /** Format folders to read; default Markdown, text and DOCX. */
  formats?: readonly FileFormat[];
  /** Files larger than this are left out, in bytes; default 400,000. */
  maxFileBytes?: number;
  /** Metadata added to every document; default `{ acl: "|user:_all_|" }`. */
  metadata?: Record<string, unknown>;
}

/**
 * Loads the shared documents with docqa's loaders, one input per loaded document, keyed by file
 * name (plus the record suffix of JSON records). Deliberately broken files are left out: those
 * that fail to load, and those the shared data names `malformed-*` (truncated copies of other
 * files, which may still load and would duplicate their originals' text).
 *
 * @throws {Error} when `../shared/data/documents` is absent.
 */
export async function sharedDocumentInputs(options: SharedDocumentInputOptions = {}): Promise<Record<string, DocumentInput>> {
  const root = sharedDataPath("documents");
  if (!root) throw new Error("../shared/data/documents is absent (set DOCQA_SHARED_DATA)");
  const maxFileBytes = options.maxFileBytes ?? 400_000;
  const documents: Record<string, DocumentInput> = {};
  for (const format of options.formats ?? ["md", "txt", "docx"]) {
    for (const name of readdirSync(join(root, format)).sort()) {
      const path = join(root, format, name);
      if (name.startsWith("malformed-") || statSync(path).size > maxFileBytes) continue;
      try {
        const loaded = await loadFile(
          { name, bytes: readFileSync(path) },
          { limits: { maxFileBytes, maxExtractedChars: 5 * maxFileBytes }, chunkSize: 1000 },
        );
        for (const document of loaded.documents) {
          const content = document.sections.map((section) => section.text).join("\n\n");
          if (content.trim() === "") continue;
          documents[`${name}${document.idSuffix}`] = {
            title: document.title,
            content,
            metadata: { acl: "|user:_all_|", type: format, filename: name, ...options.metadata },
          };
        }
      } catch {
        // The shared data holds broken files on purpose; their errors are tested elsewhere.
      }
    }
  }
  return documents;
}
