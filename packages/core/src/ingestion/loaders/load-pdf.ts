/**
 * PDF loading with pdf.js (through `unpdf`'s serverless build): one section per page, with its
 * 1-based `page` number, and one per row of each table found on the page (`pdf-tables.ts`), as
 * CSV rows are (`Name: value; …`, with `page`, `row` and the table's caption as `section`); the
 * title from the PDF's Info dictionary when it has one.
 */
import { getDocumentProxy, getMeta } from "unpdf";
import { DocqaError } from "../../errors/docqa-error.js";
import type { FileInput, FileLoader, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";
import { findPdfTables, type PdfTable, type PositionedText } from "./pdf-tables.js";
import { columnNames, renderRow } from "./table-rows.js";

/** A page's running text and its tables. */
interface PageContent {
  text: string;
  tables: PdfTable[];
}

/** Default of `MAX_PDF_PAGES`. */
const defaultMaxPdfPages = 5000;

/**
 * Loads a PDF.
 *
 * @throws {DocqaError} `password_protected` when a user password is needed (a PDF with only
 *   an owner password, "copy protection", opens normally); `corrupt_file` when pdf.js cannot
 *   parse it; `no_text_layer` when no page has text (scanned images; OCR is not performed);
 *   `too_many_pages` beyond `maxPdfPages` (checked before any page is read);
 *   `file_too_large` beyond `maxExtractedChars`.
 */
export async function loadPdf(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const pages: PageContent[] = [];
  let info: Record<string, unknown> = {};
  try {
    const pdf = await getDocumentProxy(new Uint8Array(file.bytes), { verbosity: 0 });
    try {
      const maxPages = limits.maxPdfPages ?? defaultMaxPdfPages;
      if (pdf.numPages > maxPages) {
        throw new DocqaError("too_many_pages", `${file.name} has ${pdf.numPages} pages; the limit is ${maxPages} (MAX_PDF_PAGES)`, {
          component: "ingestion",
        });
      }
      for (let number = 1; number <= pdf.numPages; number++) pages.push(await readPage(pdf, number));
      info = ((await getMeta(pdf)).info ?? {}) as Record<string, unknown>;
    } finally {
      await pdf.loadingTask.destroy();
    }
  } catch (error) {
    if (DocqaError.isInstance(error)) throw error;
    const name = (error as Error).name;
    if (name === "PasswordException") {
      throw new DocqaError("password_protected", `${file.name} is password-protected: remove the password and upload it again`, {
        component: "ingestion",
        cause: error,
      });
    }
    throw new DocqaError("corrupt_file", `${file.name} is not a readable PDF (${(error as Error).message})`, {
      component: "ingestion",
      cause: error,
    });
  }
  const sections: LoadedSection[] = [];
  let characters = 0;
  let emptyPages = 0;
  pages.forEach(({ text, tables }, index) => {
    const cleaned = text.replace(/\u0000/g, "").trim();
    if (cleaned === "" && tables.length === 0) emptyPages++;
    if (cleaned !== "") {
      characters += cleaned.length;
      sections.push({ text: cleaned, metadata: { page: index + 1 } });
    }
    for (const table of tables) {
      const names = columnNames(table.header);
      table.rows.forEach((row, rowIndex) => {
        const rendered = renderRow(names, row);
        if (rendered === "") return;
        characters += rendered.length;
        const metadata = { page: index + 1, row: rowIndex + 2, ...(table.caption ? { section: table.caption } : {}) };
        sections.push({ text: rendered, metadata, preChunked: true });
      });
    }
  });
  if (sections.length === 0) {
    throw new DocqaError("no_text_layer", `${file.name} has no text layer (${pages.length} page(s) of images): OCR is not supported`, {
      component: "ingestion",
    });
  }
  if (characters > limits.maxExtractedChars) {
    throw new DocqaError(
      "file_too_large",
      `${file.name} has ${characters} characters of text; the limit is ${limits.maxExtractedChars} (MAX_EXTRACTED_CHARS)`,
      {
        component: "ingestion",
      },
    );
  }
  // Info titles are often a tool's placeholder or a file name; only a title with words is used.
  const infoTitle = typeof info.Title === "string" ? info.Title.trim() : "";
  const title = /\s/.test(infoTitle) && !/\.\w{2,4}$/.test(infoTitle) ? infoTitle : undefined;
  const created = typeof info.CreationDate === "string" ? parsePdfDate(info.CreationDate) : undefined;
  const warnings = emptyPages > 0 ? [`${file.name}: ${emptyPages} of ${pages.length} pages have no text`] : [];
  return {
    documents: [
      {
        idSuffix: "",
        title: title ?? stripExtension(file.name),
        metadata: { pages: pages.length, ...(created ? { created_at: created } : {}) },
        sections,
      },
    ],
    warnings,
  };
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/**
 * A page's text as pdf.js's `extractText` gives it (each piece, and a line break where pdf.js
 * marks the end of a line), without the pieces of the tables found on it, and those tables.
 */
async function readPage(pdf: PdfDocument, number: number): Promise<PageContent> {
  const page = await pdf.getPage(number);
  const content = await page.getTextContent();
  const items = content.items.flatMap((item) =>
    "str" in item && item.str != null
      ? [{ str: item.str, hasEOL: item.hasEOL, transform: item.transform as number[], width: item.width, height: item.height }]
      : [],
  );
  const positioned: PositionedText[] = items.map((item) => ({
    text: item.str,
    x: item.transform[4] ?? 0,
    y: item.transform[5] ?? 0,
    width: item.width,
    height: item.height,
  }));
  const tables = findPdfTables(positioned);
  const inTables = new Set(tables.flatMap((table) => [...table.pieces]));
  let text = "";
  let previous: PositionedText | undefined;
  items.forEach((item, index) => {
    if (!inTables.has(index)) {
      const piece = positioned[index] as PositionedText;
      if (previous && piece.text.trim() !== "" && !/\s/.test(text.at(-1) ?? " ") && wordBreakBetween(previous, piece)) text += " ";
      text += item.str;
      if (piece.text.trim() !== "") previous = piece;
    }
    if (item.hasEOL) {
      text += "\n";
      previous = undefined;
    }
  });
  return { text, tables };
}

/**
 * Horizontal gap between two pieces of text on one line, as a share of the taller one's height,
 * above which they are two words: pdfminer.six's `LAParams.word_margin` default (0.1), the margin
 * its layout analysis inserts a space at. pdf.js's `extractText` joins pieces as they come, and a
 * piece set apart without a space character ("2.5" in a large figure, then "kilograms") ran into
 * its neighbour ("2.5kilograms").
 */
export const wordGapShare = 0.1;

/**
 * Whether a space belongs between `previous` and `next`, two pieces read in that order with no line
 * end between them: `next` starts more than {@link wordGapShare} of a line height after `previous`
 * ends, or on another line (its baseline more than a line height away, or moved and starting back to
 * the left of where `previous` ends: a large figure's caption under it). A subscript or
 * superscript ("CO₂", a footnote mark) sits less than a line away, after its base, and joins.
 */
export function wordBreakBetween(previous: PositionedText, next: PositionedText): boolean {
  const height = Math.max(previous.height, next.height);
  if (!(height > 0)) return false;
  const margin = wordGapShare * height;
  const gap = next.x - (previous.x + previous.width);
  const lineChange = Math.abs(next.y - previous.y);
  // Another line: a baseline more than a line away, or a lower or higher one starting back to the left.
  if (lineChange > height || (lineChange > margin && gap < -margin)) return true;
  return gap > margin;
}

/** Parses a PDF date (`D:YYYYMMDDHHmmSS+HH'mm'`, PDF 32000-1 §7.9.4) to ISO 8601, or undefined. */
export function parsePdfDate(value: string): string | undefined {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value);
  if (!match) return undefined;
  const [, year, month = "01", day = "01", hour = "00", minute = "00", second = "00", zone] = match;
  let offset = "Z";
  if (zone && zone.toUpperCase() !== "Z") offset = `${zone.slice(0, 3)}:${zone.replace(/'/g, "").slice(3, 5) || "00"}`;
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The file name without its extension. */
export function stripExtension(name: string): string {
  return name.replace(/\.[^./\\]+$/, "");
}

/** The `.pdf` loader, registered in `file-loaders.ts`. */
export const pdfLoader: FileLoader<"pdf"> = {
  format: "pdf",
  aliases: [],
  signature: { fileTypes: ["pdf"], otherwise: "not a PDF (no %PDF- header)" },
  load: (file, options) => loadPdf(file, options.limits),
};
