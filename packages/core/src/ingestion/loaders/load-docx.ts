/**
 * DOCX loading with `mammoth` (Word styles to semantic HTML), read with `htmlparser2`: one
 * section per heading (the heading path is the `section`), tables as ` | `-separated rows, list
 * items as `- ` lines. Headers and footers, which mammoth leaves out, are read from the archive
 * and kept as a last section.
 *
 * Zip bombs are refused before anything is inflated, from the archive's central directory read
 * with `yauzl` (entry count, total uncompressed size, compression ratio; ZIP64 sizes included),
 * and every XML part is then inflated once with `yauzl`'s size validation, so an entry that
 * inflates beyond the size it declares is refused as soon as it does. (The earlier check read the
 * sizes through JSZip, whose 32-bit reads turn a size of 2 GiB or more negative: a 2 MB archive
 * declaring one 2 GiB entry passed and was inflated in full.) Images are not read.
 */

import { Parser } from "htmlparser2";
import mammoth from "mammoth";
import yauzl from "yauzl";
import { DocqaError } from "../../errors/docqa-error.js";
import { stripExtension } from "./load-pdf.js";
import type { FileInput, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";

/** Defaults of `MAX_ARCHIVE_ENTRIES`, `MAX_ARCHIVE_BYTES` and `MAX_COMPRESSION_RATIO`. */
const archiveDefaults = { entries: 10_000, bytes: 256 * 1024 * 1024, ratio: 200 };

/** Parts read besides what mammoth reads: headers, footers and the core properties. */
const extraPart = /^(word\/(header|footer)\d*\.xml|docProps\/core\.xml)$/;

/**
 * Loads a DOCX file.
 *
 * @throws {DocqaError} `archive_too_large` when the archive has more entries than
 *   `maxArchiveEntries`, would inflate beyond `maxArchiveBytes` or by a ratio above
 *   `maxCompressionRatio` (checked before inflating), or has a part that inflates beyond its
 *   declared size; `corrupt_file` for a truncated or invalid archive; `empty_file` when it holds
 *   no text.
 */
export async function loadDocx(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const buffer = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const parts = await inspectArchive(file.name, buffer, limits);
  let html: string;
  try {
    const skipImages = mammoth.images.imgElement(async () => ({ src: "" }));
    html = (await mammoth.convertToHtml({ buffer }, { convertImage: skipImages })).value;
  } catch (error) {
    throw new DocqaError("corrupt_file", `${file.name} is not a readable DOCX (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
  const sections = htmlToSections(html);
  const headerFooter = headerFooterText(parts);
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
  const core = parts.get("docProps/core.xml");
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

/**
 * Checks the archive's central directory against the limits, then inflates each XML part once,
 * validating its size, and returns the text of the headers, footers and core properties.
 */
async function inspectArchive(name: string, buffer: Buffer, limits: LoaderLimits): Promise<Map<string, string>> {
  const corrupt = (error: unknown) =>
    new DocqaError("corrupt_file", `${name} is not a readable DOCX (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  const tooLarge = (message: string, cause?: unknown) =>
    new DocqaError("archive_too_large", `${name} ${message}; refusing a possible zip bomb`, { component: "ingestion", cause });
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, { autoClose: false, validateEntrySizes: true, strictFileNames: false });
  } catch (error) {
    throw corrupt(error);
  }
  try {
    const maxEntries = limits.maxArchiveEntries ?? archiveDefaults.entries;
    if (zip.entryCount > maxEntries) throw tooLarge(`has ${zip.entryCount} entries (limit ${maxEntries}, MAX_ARCHIVE_ENTRIES)`);
    const entries: yauzl.Entry[] = [];
    let uncompressed = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        entries.push(entry);
        uncompressed += entry.uncompressedSize;
      }
    } catch (error) {
      throw corrupt(error);
    }
    const maxBytes = limits.maxArchiveBytes ?? archiveDefaults.bytes;
    const maxRatio = limits.maxCompressionRatio ?? archiveDefaults.ratio;
    if (uncompressed > maxBytes || uncompressed > buffer.byteLength * maxRatio) {
      throw tooLarge(
        `would inflate to ${uncompressed} bytes from ${buffer.byteLength} (limits: ${maxBytes} bytes, MAX_ARCHIVE_BYTES; ratio ${maxRatio}, MAX_COMPRESSION_RATIO)`,
      );
    }
    if (!entries.some((entry) => entry.fileName === "word/document.xml")) {
      throw new DocqaError("corrupt_file", `${name} is a zip archive but not a Word document (no word/document.xml)`, {
        component: "ingestion",
      });
    }
    const parts = new Map<string, string>();
    for (const entry of entries) {
      if (!/\.(xml|rels)$/i.test(entry.fileName)) continue;
      const keep = extraPart.test(entry.fileName);
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of await zip.openReadStreamPromise(entry)) if (keep) chunks.push(chunk as Buffer);
      } catch (error) {
        if (/too many bytes/i.test((error as Error).message))
          throw tooLarge(`has a part (${entry.fileName}) that inflates beyond the ${entry.uncompressedSize} bytes it declares`, error);
        throw corrupt(error);
      }
      if (keep) parts.set(entry.fileName, Buffer.concat(chunks).toString("utf8"));
    }
    return parts;
  } finally {
    zip.close();
  }
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

/** The distinct paragraphs of the headers and footers, in part-name order. */
function headerFooterText(parts: ReadonlyMap<string, string>): string {
  const texts = new Set<string>();
  const names = [...parts.keys()]
    .filter((partName) => /^word\/(header|footer)\d*\.xml$/.test(partName))
    .sort((left, right) => left.localeCompare(right));
  for (const partName of names) for (const paragraph of wordParagraphs(parts.get(partName) as string)) texts.add(paragraph);
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
