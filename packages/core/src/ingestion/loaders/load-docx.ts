/**
 * DOCX loading with `mammoth` (Word styles to semantic HTML), read with `htmlparser2`: one
 * section per heading (the heading path is the `section`), list items as `- ` lines, and each data
 * row of a table a section of its own under its header, as CSV and Markdown rows are
 * (`Role: Staff; Days: 25`, see `tableSections`). Headers and footers, which mammoth leaves out, are read from the archive
 * and kept as a last section.
 *
 * The archive is opened with `bounded-zip.ts` and mammoth reads its parts through it (mammoth's
 * `file` input, an object with `exists` and `read`, instead of the archive's bytes): each part
 * mammoth follows a relationship to, whatever its name, is inflated only when mammoth asks for it,
 * through a stream that counts its real bytes against `MAX_ARCHIVE_ENTRY_BYTES`,
 * `MAX_ARCHIVE_BYTES` and `MAX_COMPRESSION_RATIO`, and handed over as a buffer once it passed.
 * mammoth's own zip reader (JSZip, which inflates an entry in full before comparing it with its
 * declared size) never sees the file. The defaults are derived from the ingestion worker's heap
 * (`archive-limits.ts`), so whatever passes parses within it. Images are never read.
 */

import { Parser } from "htmlparser2";
import mammoth from "mammoth";
import { DocqaError } from "../../errors/docqa-error.js";
import { archiveLimitsOf } from "./archive-limits.js";
import { type BoundedZip, openBoundedZip } from "./bounded-zip.js";
import { stripExtension } from "./load-pdf.js";
import type { FileInput, FileLoader, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";
import { columnNames, renderRow } from "./table-rows.js";

/** Parts read besides what mammoth reads: headers, footers and the core properties. */
const extraPart = /^(word\/(header|footer)\d*\.xml|docProps\/core\.xml)$/;

/**
 * Loads a DOCX file.
 *
 * @throws {DocqaError} `archive_too_large` when the archive has more entries than
 *   `maxArchiveEntries` (checked before inflating), or when a part mammoth or this loader reads
 *   inflates beyond `maxArchiveEntryBytes`, beyond the size it declares, or takes the bytes read
 *   beyond `maxArchiveBytes` or `maxCompressionRatio` times the file's size (counted as it
 *   inflates); `corrupt_file` for a truncated or invalid archive, or one without a readable main
 *   document; `empty_file` when it holds no text; `file_too_large` for more text than
 *   `maxExtractedChars`.
 */
export async function loadDocx(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const archive = await openBoundedZip(file.name, file.bytes, archiveLimitsOf(limits), "DOCX");
  try {
    const html = await convertToHtml(file.name, archive);
    const parts = new Map<string, string>();
    for (const partName of archive.names) {
      if (extraPart.test(partName)) parts.set(partName, (await archive.read(partName)).toString("utf8"));
    }
    return documentOf(file, html, parts, limits);
  } finally {
    archive.close();
  }
}

/**
 * mammoth's `file` input (`lib/unzip.js`, `openZip`): the object mammoth reads a document's parts
 * through, which it otherwise builds around JSZip. Not in mammoth's type declarations; mammoth
 * 1.x accepts it beside `path`, `buffer` and `arrayBuffer`.
 */
interface MammothArchive {
  exists(partName: string): boolean;
  read(partName: string, encoding?: string): Promise<Uint8Array | string>;
}

const convertWithMammoth = mammoth.convertToHtml as unknown as (
  input: { file: MammothArchive },
  options: Parameters<typeof mammoth.convertToHtml>[1],
) => Promise<{ value: string }>;

/** mammoth's HTML of the document, its parts read from `archive` (images skipped: never read). */
async function convertToHtml(name: string, archive: BoundedZip): Promise<string> {
  const file: MammothArchive = {
    exists: (partName) => archive.has(partName),
    read: async (partName, encoding) => {
      const bytes = await archive.read(partName);
      if (encoding === "base64") return bytes.toString("base64");
      return encoding ? new TextDecoder(encoding).decode(bytes) : bytes;
    },
  };
  try {
    const skipImages = mammoth.images.imgElement(async () => ({ src: "" }));
    return (await convertWithMammoth({ file }, { convertImage: skipImages })).value;
  } catch (error) {
    if (DocqaError.isInstance(error)) throw error;
    throw new DocqaError("corrupt_file", `${name} is not a readable DOCX (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
}

/** The loaded file from mammoth's HTML and the header, footer and core-property parts. */
function documentOf(file: FileInput, html: string, parts: ReadonlyMap<string, string>, limits: LoaderLimits): LoadedFile {
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

/** Splits mammoth's HTML into sections at headings, rendering paragraphs, lists and tables as text. */
export function htmlToSections(html: string): LoadedSection[] {
  const sections: LoadedSection[] = [];
  const headings: string[] = [];
  let lines: string[] = [];
  let line = "";
  let row: string[] = [];
  let rowHeaders = 0;
  let cell = "";
  let tableDepth = 0;
  /** Rows of the outermost open table, and whether each was all header cells (`th`). */
  let tableRows: { cells: string[]; header: boolean }[] = [];
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
          if (name === "th") rowHeaders++;
          cell = "";
        } else if (name === "tr") {
          if (row.some((value) => value !== "")) tableRows.push({ cells: row, header: rowHeaders === row.length });
          row = [];
          rowHeaders = 0;
        } else if (name === "table") {
          tableDepth = Math.max(0, tableDepth - 1);
          if (tableDepth === 0) {
            const { text, rows } = tableSections(tableRows);
            tableRows = [];
            lines.push(...text);
            if (rows.length > 0) {
              const metadata = headings.length > 0 ? { section: headings.join(" > ") } : {};
              flushSection();
              for (const rendered of rows)
                sections.push({ text: rendered.text, metadata: { ...metadata, row: rendered.row }, preChunked: true });
            }
            lines.push("");
          }
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

/** A table's text: lines kept in its section, or rows that become sections of their own. */
interface TableText {
  /** Lines of the section the table is in (a table with no header row: `cell | cell`). */
  text: string[];
  /** One per data row: `Name: value; Name: value` and its row number (the header is row 1). */
  rows: { text: string; row: number }[];
}

/**
 * A DOCX table as text. A table whose first row is a header (Word's "repeat as header row", which
 * mammoth marks with `th`) or, with three or more columns, whose first row's cells are all filled
 * and none is a number, gives one row per section under the header's names, as a CSV file does.
 * Other tables (layout tables, two-column label/value tables, one-row tables) stay in their section
 * as `cell | cell` lines, where a two-column row reads as a label and its value.
 */
export function tableSections(rows: readonly { cells: string[]; header: boolean }[]): TableText {
  const [first, ...data] = rows;
  if (!first) return { text: [], rows: [] };
  const columns = first.cells.length;
  const headerLike =
    first.header ||
    (columns >= 3 &&
      first.cells.every((value) => value !== "" && !/^[-+]?[\d.,%\s]+$/.test(value)) &&
      new Set(first.cells).size === columns);
  if (!headerLike || data.length === 0) return { text: rows.map((row) => row.cells.join(" | ")), rows: [] };
  const names = columnNames(first.cells);
  return {
    text: [],
    rows: data.flatMap((row, index) => {
      const text = renderRow(names, row.cells);
      return text === "" ? [] : [{ text, row: index + 2 }];
    }),
  };
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

/** The `.docx` loader, registered in `file-loaders.ts`. */
export const docxLoader: FileLoader<"docx"> = {
  format: "docx",
  aliases: [],
  signature: { fileTypes: ["docx", "zip"], otherwise: "not a DOCX (not a zip archive)" },
  load: (file, options) => loadDocx(file, options.limits),
};
