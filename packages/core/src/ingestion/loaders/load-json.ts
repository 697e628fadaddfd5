/**
 * JSON and NDJSON loading. The rule (documented in `docs/ingestion.md`):
 *
 * 1. The record list is the top-level array, or else the largest array property of the
 *    top-level object; the object's other scalar properties become document metadata.
 *    `.json` files with one JSON value per line (NDJSON) are records too.
 * 2. Records that are objects are rendered as `key: value` lines (nested keys dotted; arrays of
 *    short scalars joined with `, `, arrays with an item over 40 characters one item per line,
 *    strings over 200 characters on the lines under `key:`),
 *    except scalar values whose key looks like an identifier, link or
 *    date ({@link defaultJsonMetadataKeys}), which go to the record's metadata.
 * 3. Each record becomes its own document (`<file>#<index>`, titled by its `title` or `name`, else
 *    by its position counted from 1: `sonnets, record 18`; the id's `#<index>` counts from 0 and is
 *    not shown, since a reader or a model takes it for a number the record states),
 *    or with `recordsAsDocuments: false` a section of one document. Lists of strings (lines of a
 *    poem, a list of terms) stay one document, one line per item.
 * 4. A JSON value without such a list becomes one document with its rendered lines.
 */
import { DocqaError } from "../../errors/docqa-error.js";
import { jsonDepth } from "../json-depth.js";
import { stripExtension } from "./load-pdf.js";
import { decodeChecked } from "./load-plain-text.js";
import {
  defaultJsonMetadataKeys,
  type FileInput,
  type FileLoader,
  type JsonLoaderOptions,
  type LoadedDocument,
  type LoadedFile,
  type LoaderLimits,
} from "./loaded-file.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Loads a `.json` file.
 *
 * @throws {DocqaError} `empty_file`, `invalid_encoding`, `file_too_large`; `corrupt_file` for
 *   invalid JSON; `json_too_deep` beyond `maxJsonDepth` (default 64) levels.
 */
export async function loadJson(file: FileInput, limits: LoaderLimits, options: JsonLoaderOptions = {}): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const value = parse(text, file.name);
  const maxDepth = limits.maxJsonDepth ?? 64;
  const depth = jsonDepth(value);
  if (depth > maxDepth) {
    throw new DocqaError("json_too_deep", `${file.name} is nested ${depth} levels deep; the limit is ${maxDepth} (MAX_JSON_DEPTH)`, {
      component: "ingestion",
    });
  }
  const metadataKeys = options.metadataKeys ?? defaultJsonMetadataKeys;
  const baseTitle = stripExtension(file.name);
  const { records, context } = recordList(value);
  const fileMetadata = { encoding, ...context };

  if (records === undefined || records.every((record) => typeof record !== "object" || record === null)) {
    const lines = records
      ? records.map((record) => scalarText(record)).filter((line) => line !== "")
      : render(value, metadataKeys, "").lines;
    if (lines.length === 0) throw new DocqaError("empty_file", `${file.name} contains no text`, { component: "ingestion" });
    return {
      documents: [{ idSuffix: "", title: baseTitle, metadata: fileMetadata, sections: [{ text: lines.join("\n"), metadata: {} }] }],
      warnings,
    };
  }

  const rendered = records.map((record, index) => {
    const { lines, metadata } = render(record, metadataKeys, "");
    const named = typeof record === "object" && record !== null && !Array.isArray(record) ? (record.title ?? record.name) : undefined;
    return { index, lines, metadata, name: typeof named === "string" ? named : undefined };
  });
  if (options.recordsAsDocuments ?? true) {
    const documents: LoadedDocument[] = rendered
      .filter((record) => record.lines.length > 0)
      .map((record) => ({
        idSuffix: `#${record.index}`,
        title: record.name ? `${record.name} (${baseTitle})` : `${baseTitle}, record ${record.index + 1}`,
        metadata: { ...fileMetadata, ...record.metadata, record: record.index },
        sections: [{ text: record.lines.join("\n"), metadata: { record: record.index } }],
      }));
    if (documents.length === 0) throw new DocqaError("empty_file", `${file.name} contains no text`, { component: "ingestion" });
    return { documents, warnings };
  }
  return {
    documents: [
      {
        idSuffix: "",
        title: baseTitle,
        metadata: fileMetadata,
        sections: rendered
          .filter((record) => record.lines.length > 0)
          .map((record) => ({ text: record.lines.join("\n"), metadata: { record: record.index, ...record.metadata } })),
      },
    ],
    warnings,
  };
}

function parse(text: string, name: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    if (lines.length > 1) {
      try {
        return lines.map((line) => JSON.parse(line) as Json);
      } catch {
        // not NDJSON either
      }
    }
    throw new DocqaError("corrupt_file", `${name} is not valid JSON (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
}

function recordList(value: Json): { records: Json[] | undefined; context: Record<string, Json> } {
  if (Array.isArray(value)) return { records: value, context: {} };
  if (typeof value !== "object" || value === null) return { records: undefined, context: {} };
  let best: [string, Json[]] | undefined;
  for (const [key, child] of Object.entries(value)) {
    if (Array.isArray(child) && child.length > (best?.[1].length ?? 1)) best = [key, child];
  }
  if (!best) return { records: undefined, context: {} };
  const context: Record<string, Json> = { records_key: best[0] };
  for (const [key, child] of Object.entries(value)) {
    if (key !== best[0] && (typeof child !== "object" || child === null)) context[key] = child;
  }
  return { records: best[1], context };
}

function scalarText(value: Json): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value ?? "").trim();
}

/**
 * Longest string value rendered on its key's line (`key: value`), in characters; a longer one is
 * prose and goes on the lines under `key:`. 200 characters is about two sentences.
 */
const proseLength = 200;

/** Renders a JSON value as `key: value` lines, moving identifier-like scalars to metadata. */
function render(value: Json, metadataKeys: RegExp, prefix: string): { lines: string[]; metadata: Record<string, Json> } {
  const lines: string[] = [];
  const metadata: Record<string, Json> = {};
  const stack: [string, Json][] = [[prefix, value]];
  while (stack.length > 0) {
    const [path, current] = stack.pop() as [string, Json];
    const key = path.split(".").at(-1) ?? "";
    if (current === null || typeof current !== "object") {
      if (current === null || current === "") continue;
      if (key !== "" && metadataKeys.test(key)) metadata[path] = current;
      else if (path === "") lines.push(String(current));
      // Prose (an article's text, a description) goes under its key, so that its sentences read as prose.
      else if (typeof current === "string" && current.length > proseLength) lines.push(`${path}:\n${current}`);
      else lines.push(`${path}: ${String(current)}`);
      continue;
    }
    if (Array.isArray(current) && current.every((item) => item === null || typeof item !== "object")) {
      const items = current.filter((item) => item !== null && item !== "").map(String);
      if (items.length === 0) continue;
      // Short items (tags, names) stay on one line; long ones (lines of a poem, paragraphs) get a line each.
      const short = items.every((item) => item.length <= 40);
      if (path === "") lines.push(items.join("\n"));
      else lines.push(short ? `${path}: ${items.join(", ")}` : `${path}:\n${items.join("\n")}`);
      continue;
    }
    const entries = Array.isArray(current) ? current.map((item, index): [string, Json] => [String(index), item]) : Object.entries(current);
    for (const [childKey, child] of entries.reverse()) stack.push([path === "" ? childKey : `${path}.${childKey}`, child]);
  }
  return { lines, metadata };
}

/** The `.json` loader, registered in `file-loaders.ts`. */
export const jsonLoader: FileLoader<"json"> = {
  format: "json",
  aliases: ["ndjson", "jsonl"],
  load: (file, options) => loadJson(file, options.limits, options.json),
};
