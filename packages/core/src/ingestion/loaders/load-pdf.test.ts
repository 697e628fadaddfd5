import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DocqaError } from "../../errors/docqa-error.js";
import { isContinuousIntegration, sharedDataPath } from "../../testing/shared-data.js";
import { loadPdf, wordBreakBetween } from "./load-pdf.js";

const twoPages = sharedDataPath("documents", "pdf", "course-modules-list-2p.pdf");
const limits = { maxFileBytes: 100_000_000, maxExtractedChars: 1_000_000 };

describe.skipIf(!twoPages && !isContinuousIntegration())("loadPdf: MAX_PDF_PAGES (needs ../shared/data)", () => {
  it("refuses a PDF with more pages than maxPdfPages before reading any page, and reads one within it", async () => {
    const file = { name: "course.pdf", bytes: new Uint8Array(readFileSync(twoPages as string)) };
    let error: unknown;
    try {
      await loadPdf(file, { ...limits, maxPdfPages: 1 });
    } catch (caught) {
      error = caught;
    }
    expect(DocqaError.isInstance(error)).toBe(true);
    expect((error as DocqaError).code).toBe("too_many_pages");
    expect((error as DocqaError).publicMessage).toBe("course.pdf has 2 pages; the limit is 1 (MAX_PDF_PAGES)");
    const loaded = await loadPdf(file, { ...limits, maxPdfPages: 2 });
    expect(loaded.documents[0]?.metadata.pages).toBe(2);
  });
});

const withTable = sharedDataPath("documents", "pdf", "data-in-brief-2019-tables-1p.pdf");

describe.skipIf(!withTable && !isContinuousIntegration())("loadPdf: tables (needs ../shared/data)", () => {
  it("writes each row of a table on the page as a section of its own under the table's caption, and leaves the table out of the page's text", async () => {
    const loaded = await loadPdf({ name: "paper.pdf", bytes: new Uint8Array(readFileSync(withTable as string)) }, limits);
    const sections = loaded.documents[0]?.sections ?? [];
    const rows = sections.filter((section) => section.metadata.row !== undefined);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.preChunked).toBe(true);
      expect(row.metadata.page).toBe(1);
      expect(String(row.metadata.section)).toMatch(/^Table 1\b/);
      // `Name: value; Name: value`, under the header's names, as CSV rows are written.
      expect(row.text).toMatch(/^[^:;]+: [^;]+(; [^:;]+: [^;]+)+$/);
    }
    const page = sections.find((section) => section.metadata.row === undefined);
    expect(page?.text).not.toContain(rows[0]?.text.split("; ")[1]?.split(": ")[1]);
    expect(loaded.warnings).toEqual([]);
  });
});

describe("wordBreakBetween", () => {
  const piece = (text: string, x: number, y: number, width: number, height: number) => ({ text, x, y, width, height });

  it("separates a piece set apart on its line, and joins pieces of one word", () => {
    expect(wordBreakBetween(piece("Calculator", 10, 100, 60, 10), piece("2022", 75, 100, 24, 10))).toBe(true);
    expect(wordBreakBetween(piece("Calcu", 10, 100, 30, 10), piece("lator", 40.5, 100, 30, 10))).toBe(false);
  });

  it("separates a caption placed under a large figure, starting back to its left", () => {
    // A 45-point "2.5" and, 20 points lower and starting left of its end, "kilograms".
    expect(wordBreakBetween(piece("2.5", 95, 579, 71, 45), piece("kilograms", 69, 559, 125, 14))).toBe(true);
  });

  it("joins a subscript or superscript to its base", () => {
    expect(wordBreakBetween(piece("CO", 10, 100, 14, 10), piece("2", 24, 97, 4, 6))).toBe(false);
    expect(wordBreakBetween(piece("Roberts", 10, 100, 40, 10), piece("43", 50, 104, 8, 6))).toBe(false);
  });

  it("separates pieces on lines more than a line height apart, and never pieces without a height", () => {
    expect(wordBreakBetween(piece("end", 200, 100, 20, 10), piece("Next", 10, 80, 24, 10))).toBe(true);
    expect(wordBreakBetween(piece("a", 0, 0, 0, 0), piece("b", 50, 0, 0, 0))).toBe(false);
  });
});
