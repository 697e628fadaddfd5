import { describe, expect, it } from "vitest";
import { docqaErrorOf } from "../../testing/docqa-error-of.js";
import {
  type CraftedEntry,
  craftZip,
  paragraphBlock,
  wordDocumentEntries,
  wordDocumentHead,
  wordDocumentTail,
  wordParagraph,
} from "../../testing/hostile-archives.js";
import { loadDocx } from "./load-docx.js";

const limits = { maxFileBytes: 100_000_000, maxExtractedChars: 1_000_000 };
const mebibyte = 1024 * 1024;
const hello = wordParagraph("Hello from a crafted archive.");
const helloDocument = () => wordDocumentEntries({ block: hello });
/** `entries` with the entry `name` declaring `declaredSize` bytes. */
const declaring = (entries: CraftedEntry[], name: string, declaredSize: number) =>
  entries.map((entry) => (entry.name === name ? { ...entry, declaredSize } : entry));

describe("loadDocx: every part read through the bounded archive", () => {
  it("reads a well-formed crafted archive (the generator writes valid zips)", async () => {
    const loaded = await loadDocx({ name: "hello.docx", bytes: craftZip(helloDocument()) }, limits);
    expect(loaded.documents[0]?.sections).toEqual([{ text: "Hello from a crafted archive.", metadata: {} }]);
  });

  it("follows the relationships to a main part of any name, and reads it like any other", async () => {
    const entries = wordDocumentEntries({ mainPart: "word/main.bin", block: hello });
    const loaded = await loadDocx({ name: "renamed.docx", bytes: craftZip(entries) }, limits);
    expect(loaded.documents[0]?.sections[0]?.text).toBe("Hello from a crafted archive.");
  });

  it("refuses issue 24's main part named word/main.bin that declares 4 KiB and inflates far more, at its declared size", async () => {
    // The file at 1/32 of its size: 64 MiB of paragraphs, about 200 KB on disk.
    const bomb = craftZip(
      wordDocumentEntries({ mainPart: "word/main.bin", block: paragraphBlock(mebibyte, 0), repeat: 64, declaredMainSize: 4096 }),
    );
    expect(bomb.length).toBeLessThan(300_000);
    const error = await docqaErrorOf(loadDocx({ name: "bomb.docx", bytes: bomb }, limits));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      "bomb.docx has a part (word/main.bin) that inflates beyond the 4096 bytes it declares; refusing a possible zip bomb",
    );
  });

  it.each([
    "[Content_Types].xml",
    "_rels/.rels",
    "word/document.xml",
    "word/_rels/document.xml.rels",
    "word/styles.xml",
    "word/footer1.xml",
  ])("refuses a lying size on %s, a part mammoth or the loader reads", async (name) => {
    const entries = wordDocumentEntries({
      block: hello,
      relationships: { styles: "word/styles.xml" },
      extraEntries: [
        {
          name: "word/styles.xml",
          body: '<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>',
        },
        {
          name: "word/footer1.xml",
          body: `<w:ftr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">${hello}</w:ftr>`,
        },
      ],
    });
    const lying = craftZip(declaring(entries, name, 20));
    const error = await docqaErrorOf(loadDocx({ name: "lying.docx", bytes: lying }, limits));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      `lying.docx has a part (${name}) that inflates beyond the 20 bytes it declares; refusing a possible zip bomb`,
    );
  });

  it("never inflates an entry nobody reads: an image that declares 10 bytes and would inflate to 64 MiB", async () => {
    const image: CraftedEntry = { name: "word/media/image1.png", body: new Uint8Array(mebibyte), repeat: 64, declaredSize: 10 };
    const loaded = await loadDocx({ name: "pictured.docx", bytes: craftZip([...helloDocument(), image]) }, limits);
    expect(loaded.documents[0]?.sections[0]?.text).toBe("Hello from a crafted archive.");
  });

  it("refuses a part declaring more than MAX_ARCHIVE_ENTRY_BYTES before inflating it", async () => {
    const entries = wordDocumentEntries({ block: paragraphBlock(mebibyte, 50), repeat: 3 });
    const error = await docqaErrorOf(
      loadDocx({ name: "long.docx", bytes: craftZip(entries) }, { ...limits, maxArchiveEntryBytes: mebibyte }),
    );
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toMatch(
      /^long\.docx has a part \(word\/document\.xml\) declaring 31\d{5} inflated bytes \(limit 1048576, MAX_ARCHIVE_ENTRY_BYTES\); refusing a possible zip bomb$/,
    );
  });

  it("counts a part each time the parser reads it: relationships pointing every part at the main document", async () => {
    // mammoth reads the main part once as the document, then again as styles, numbering,
    // footnotes, endnotes and comments: six reads of about 400 KB.
    const self = "word/document.xml";
    const nested = wordDocumentEntries({
      block: paragraphBlock(400_000, 20),
      relationships: { styles: self, numbering: self, footnotes: self, endnotes: self, comments: self },
    });
    const tight = { ...limits, maxArchiveBytes: 2_000_000, maxCompressionRatio: 10_000 };
    const error = await docqaErrorOf(loadDocx({ name: "nested.docx", bytes: craftZip(nested) }, tight));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      "nested.docx inflates beyond 2000000 bytes, its parts read together (MAX_ARCHIVE_BYTES); refusing a possible zip bomb",
    );
    // The same document read once fits.
    const single = wordDocumentEntries({ block: paragraphBlock(400_000, 20) });
    const loaded = await loadDocx({ name: "single.docx", bytes: craftZip(single) }, tight);
    expect(loaded.documents[0]?.sections[0]?.text).toMatch(/^\S/);
  });

  it("refuses parts that inflate beyond MAX_COMPRESSION_RATIO times the file, counted as they inflate", async () => {
    // 1 MiB of one repeated paragraph deflates about 337 times.
    const dense = craftZip(wordDocumentEntries({ block: paragraphBlock(mebibyte, 0) }));
    const error = await docqaErrorOf(loadDocx({ name: "dense.docx", bytes: dense }, { ...limits, maxCompressionRatio: 50 }));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      `dense.docx inflates beyond 50 times its ${dense.length} bytes (MAX_COMPRESSION_RATIO); refusing a possible zip bomb`,
    );
    const loaded = await loadDocx({ name: "dense.docx", bytes: dense }, { ...limits, maxCompressionRatio: 1000 });
    expect(loaded.documents[0]?.sections[0]?.text).toMatch(/^Repeated paragraph\.\n/);
  });

  it("refuses an archive with more entries than MAX_ARCHIVE_ENTRIES, from its end record", async () => {
    const crowded = craftZip([
      ...helloDocument(),
      ...Array.from({ length: 20 }, (_, index) => ({ name: `word/part${index}.xml`, body: "<x/>" })),
    ]);
    const error = await docqaErrorOf(loadDocx({ name: "crowded.docx", bytes: crowded }, { ...limits, maxArchiveEntries: 10 }));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe("crowded.docx has 23 entries (limit 10, MAX_ARCHIVE_ENTRIES); refusing a possible zip bomb");
  });

  it("refuses an archive naming one entry twice", async () => {
    const twice = craftZip([...helloDocument(), { name: "word/document.xml", head: wordDocumentHead, tail: wordDocumentTail }]);
    const error = await docqaErrorOf(loadDocx({ name: "twice.docx", bytes: twice }, limits));
    expect(error.code).toBe("corrupt_file");
    expect(error.publicMessage).toBe("twice.docx is not a readable DOCX (two entries are named word/document.xml)");
  });

  it("reports a truncated archive, and one without a main document, as corrupt_file", async () => {
    const whole = craftZip(helloDocument());
    const cut = await docqaErrorOf(loadDocx({ name: "cut.docx", bytes: whole.subarray(0, whole.length - 30) }, limits));
    expect(cut.code).toBe("corrupt_file");
    const headless = craftZip(helloDocument().filter((entry) => entry.name !== "word/document.xml"));
    const missing = await docqaErrorOf(loadDocx({ name: "headless.docx", bytes: headless }, limits));
    expect(missing.code).toBe("corrupt_file");
    expect(missing.publicMessage).toMatch(/^headless\.docx is not a readable DOCX \(Could not find main document part/);
  });
});
