/**
 * DOCX loading with `mammoth` (Word styles to semantic HTML), read with `htmlparser2`: one
 * section per heading (the heading path is the `section`), tables as ` | `-separated rows, list
 * items as `- ` lines. Headers and footers, which mammoth leaves out, are read from the archive
 * and kept as a last section. The archive is inspected first so that a zip bomb is refused
 * before anything is inflated.
 */

import { Parser } from "htmlparser2";
import JSZip from "jszip";
import mammoth from "mammoth";
import { DocqaError } from "../../errors/docqa-error.js";
import { stripExtension } from "./load-pdf.js";
import type { FileInput, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";

/**
 * Loads a DOCX file.
 *
 * @throws {DocqaError} `archive_too_large` when the archive would inflate beyond
 *   `maxArchiveBytes` (default 512 MiB) or by a ratio above `maxCompressionRatio` (default 200);
 *   `corrupt_file` for a truncated or invalid archive; `empty_file` when it holds no text.
 */
export async function loadDocx(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const archive = await openArchive(file, limits);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(file.bytes) })).value;
  } catch (error) {
    throw new DocqaError("corrupt_file", `${file.name} is not a readable DOCX (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
  const sections = htmlToSections(html);
  const headerFooter = await headerFooterText(archive);
  if (headerFooter !== "") sections.push({ text: headerFooter, metadata: { section: "Headers and footers" } });
  const characters = sections.reduce((sum, section) => sum + section.text.length, 0);
  if (characters === 0) throw new DocqaError("empty_file", `${file.name} contains no text`, { component: "ingestion" });
  if (characters > limits.maxExtractedChars) {
    throw new DocqaError(
      "file_too_large",
      `${file.name} has ${characters} characters of text; the limit is ${limits.maxExtractedChars} (MAX_EXTRACTED_CHARS)`,
      {
        component: "ingestion",
      },
    );
  }
  const core = await archive.file("docProps/core.xml")?.async("string");
  const properties = core ? coreProperties(core) : {};
  const title = properties["dc:title"]?.trim() ?? "";
  const created = properties["dcterms:created"]?.trim();
  const createdAt = created && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : undefined;
  return {
    documents: [
      { idSuffix: "", title: title || stripExtension(file.name), metadata: createdAt ? { created_at: createdAt } : {}, sections },
    ],
    warnings: [],
  };
}

async function openArchive(file: FileInput, limits: LoaderLimits): Promise<JSZip> {
  let archive: JSZip;
  try {
    archive = await JSZip.loadAsync(file.bytes);
  } catch (error) {
    throw new DocqaError("corrupt_file", `${file.name} is not a readable DOCX (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
  let uncompressed = 0;
  archive.forEach((_path, entry) => {
    const size = (entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize;
    uncompressed += typeof size === "number" ? size : 0;
  });
  const maxBytes = limits.maxArchiveBytes ?? 512 * 1024 * 1024;
  const maxRatio = limits.maxCompressionRatio ?? 200;
  if (uncompressed > maxBytes || uncompressed > file.bytes.length * maxRatio) {
    throw new DocqaError(
      "archive_too_large",
      `${file.name} would inflate to ${uncompressed} bytes from ${file.bytes.length} (limits: ${maxBytes} bytes, ratio ${maxRatio}); refusing a possible zip bomb`,
      { component: "ingestion" },
    );
  }
  if (!archive.file("word/document.xml")) {
    throw new DocqaError("corrupt_file", `${file.name} is a zip archive but not a Word document (no word/document.xml)`, {
      component: "ingestion",
    });
  }
  return archive;
}

/** Splits mammoth's HTML into sections at headings, rendering paragraphs, lists and tables as text. */
export function htmlToSections(html: string): LoadedSection[] {
  const sections: LoadedSection[] = [];
  const headings: string[] = [];
  let lines: string[] = [];
  let line = "";
  let row: string[] = [];
  let cell = "";
  let tableDepth = 0;
  let headingLevel = 0;
  let headingText = "";
  const flushSection = () => {
    const text = lines
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    if (text !== "") sections.push({ text, metadata: headings.length > 0 ? { section: headings.join(" > ") } : {} });
    lines = [];
  };
  const append = (text: string) => {
    if (headingLevel > 0) headingText += text;
    else if (tableDepth > 0) cell += text;
    else line += text;
  };
  const parser = new Parser(
    {
      onopentag(name) {
        const level = /^h([1-6])$/.exec(name)?.[1];
        if (level) {
          headingLevel = Number(level);
          headingText = "";
        } else if (name === "table") tableDepth++;
        else if (name === "li" && tableDepth === 0) line = "- ";
        else if (name === "br") append("\n");
      },
      ontext(text) {
        append(text);
      },
      onclosetag(name) {
        if (/^h[1-6]$/.test(name)) {
          flushSection();
          headings.splice(headingLevel - 1);
          headings[headingLevel - 1] = headingText.replace(/\s+/g, " ").trim();
          lines.push(headingText.trim());
          headingLevel = 0;
        } else if (name === "td" || name === "th") {
          row.push(cell.replace(/\s+/g, " ").trim());
          cell = "";
        } else if (name === "tr") {
          if (row.some((value) => value !== "")) lines.push(row.join(" | "));
          row = [];
        } else if (name === "table") {
          tableDepth = Math.max(0, tableDepth - 1);
          lines.push("");
        } else if ((name === "p" || name === "li") && tableDepth === 0) {
          const text = line.replace(/[ \t]+/g, " ").trim();
          if (text !== "" && text !== "-") lines.push(text);
          line = "";
        } else if (name === "p" && tableDepth > 0) {
          cell += " ";
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flushSection();
  return sections;
}

async function headerFooterText(archive: JSZip): Promise<string> {
  const parts = archive.file(/^word\/(header|footer)\d*\.xml$/);
  const texts = new Set<string>();
  for (const part of parts.sort((left, right) => left.name.localeCompare(right.name))) {
    for (const paragraph of wordParagraphs(await part.async("string"))) texts.add(paragraph);
  }
  return [...texts].join("\n");
}

/** The text of each WordprocessingML paragraph (`w:p`, its `w:t` runs joined), in document order, trimmed and non-empty. */
function wordParagraphs(xml: string): string[] {
  const paragraphs: string[] = [];
  const open: string[] = [];
  let inText = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "w:p") open.push("");
        else if (name === "w:t") inText = true;
      },
      ontext(text) {
        if (inText && open.length > 0) open[open.length - 1] += text;
      },
      onclosetag(name) {
        if (name === "w:t") inText = false;
        else if (name === "w:p") {
          const text = (open.pop() ?? "").trim();
          if (text !== "") paragraphs.push(text);
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return paragraphs;
}

/** Text of the top-level elements of `docProps/core.xml` (Dublin Core properties), by qualified name. */
function coreProperties(xml: string): Record<string, string> {
  const properties: Record<string, string> = {};
  const path: string[] = [];
  const parser = new Parser(
    {
      onopentag(name) {
        path.push(name);
      },
      ontext(text) {
        const name = path.length === 2 ? path[1] : undefined;
        if (name !== undefined) properties[name] = (properties[name] ?? "") + text;
      },
      onclosetag() {
        path.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return properties;
}
