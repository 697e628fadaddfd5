import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DocqaError } from "../../errors/docqa-error.js";
import { isContinuousIntegration, sharedDataPath } from "../../testing/shared-data.js";
import { loadPdf } from "./load-pdf.js";

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
