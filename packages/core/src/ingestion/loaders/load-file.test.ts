import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { DocqaError } from "../../errors/docqa-error.js";
import { loaderOfExtension, supportedExtensions, supportedFormats } from "./file-loaders.js";
import { htmlToSections } from "./load-docx.js";
import { loadFile } from "./load-file.js";
import { parsePdfDate } from "./load-pdf.js";
import { loaderOfName } from "./sniff-file-format.js";

const options = { limits: { maxFileBytes: 10_000_000, maxExtractedChars: 1_000_000 }, chunkSize: 120 };
const bytes = (text: string) => new TextEncoder().encode(text);

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return DocqaError.isInstance(error) ? error.code : `not a DocqaError: ${(error as Error).message}`;
  }
}

describe("loadFile", () => {
  it("stamps filename, type and created_at on every document", async () => {
    const loaded = await loadFile(
      { name: "notes.txt", bytes: bytes("Hello there."), lastModified: new Date("2024-02-03T04:05:06Z") },
      options,
    );
    expect(loaded.documents).toEqual([
      {
        idSuffix: "",
        title: "notes",
        metadata: { filename: "notes.txt", type: "txt", created_at: "2024-02-03T04:05:06.000Z", encoding: "utf-8" },
        sections: [{ text: "Hello there.", metadata: {} }],
      },
    ]);
  });

  it("splits plain text at form feeds into numbered pages", async () => {
    const loaded = await loadFile({ name: "report.txt", bytes: bytes("Page one.\fPage two.\f\fPage four.") }, options);
    expect(loaded.documents[0]?.sections).toEqual([
      { text: "Page one.", metadata: { page: 1 } },
      { text: "Page two.", metadata: { page: 2 } },
      { text: "Page four.", metadata: { page: 4 } },
    ]);
  });

  it("decodes UTF-16 with a BOM, Latin-1 with a warning, and keeps a truncated UTF-8 file minus its last character", async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...[..."Grüße"].flatMap((character) => [character.charCodeAt(0), 0])]);
    expect((await loadFile({ name: "a.txt", bytes: utf16 }, options)).documents[0]?.sections[0]?.text).toBe("Grüße");
    const latin1 = new Uint8Array([
      ...bytes("Die B"),
      0xe4,
      ...bytes("ren k"),
      0xf6,
      ...bytes("nnen m"),
      0xfc,
      ...bytes("de sein, sagt der F"),
      0xfc,
      ...bytes("rst."),
    ]);
    const decoded = await loadFile({ name: "b.md", bytes: latin1 }, options);
    expect(decoded.documents[0]?.sections[0]?.text).toBe("Die Bären können müde sein, sagt der Fürst.");
    expect(decoded.warnings[0]).toMatch(/^b\.md is not UTF-8; decoded as windows-1252/);
    const truncated = bytes("Voilà un café").subarray(0, -1);
    const kept = await loadFile({ name: "c.txt", bytes: truncated }, options);
    expect(kept.documents[0]?.sections[0]?.text).toBe("Voilà un caf");
    expect(kept.warnings).toEqual(["c.txt ends inside a UTF-8 character (truncated file); the incomplete character was dropped"]);
  });

  it.each([
    ["unsupported extension", { name: "slides.pptx", bytes: bytes("x") }, "unsupported_file_type"],
    ["empty file", { name: "empty.md", bytes: new Uint8Array() }, "empty_file"],
    ["whitespace only", { name: "blank.txt", bytes: bytes(" \n\t ") }, "empty_file"],
    ["too large", { name: "big.txt", bytes: new Uint8Array(10_000_001).fill(65) }, "file_too_large"],
    ["a PDF named .txt", { name: "lie.txt", bytes: bytes("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n") }, "content_type_mismatch"],
    ["text named .pdf", { name: "lie.pdf", bytes: bytes("just text") }, "content_type_mismatch"],
    ["text named .docx", { name: "lie.docx", bytes: bytes("just text") }, "content_type_mismatch"],
    [
      "a PNG named .csv",
      { name: "lie.csv", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]) },
      "content_type_mismatch",
    ],
    ["truncated PDF", { name: "cut.pdf", bytes: bytes("%PDF-1.7\n1 0 obj\n<< /Type /Catalog") }, "corrupt_file"],
    [
      "undecodable bytes",
      { name: "bin.txt", bytes: new Uint8Array([0x61, 0x80, 0x00, 0x81, 0x02, 0xc3, 0x28, 0x03, 0x9f, 0x00]) },
      "invalid_encoding",
    ],
    ["ragged CSV rows", { name: "ragged.csv", bytes: bytes("a,b,c\n1,2,3\n4,5\n6,7,8,9\n") }, "csv_ragged_rows"],
    ["CSV with an unterminated quote", { name: "quote.csv", bytes: bytes('a,b\n1,"open\n2,3\n') }, "corrupt_file"],
    ["invalid JSON", { name: "bad.json", bytes: bytes('{"a": [1, 2') }, "corrupt_file"],
    ["deeply nested JSON", { name: "deep.json", bytes: bytes(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`) }, "json_too_deep"],
  ])("rejects %s", async (_case, file, code) => {
    expect(await codeOf(loadFile(file, options))).toBe(code);
  });

  it("rejects a DOCX whose document part would inflate beyond the archive limits, before inflating it", async () => {
    const zip = new JSZip();
    zip.file("word/document.xml", new Uint8Array(20_000_000));
    const bomb = await zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
    expect(bomb.length).toBeLessThan(100_000);
    expect(await codeOf(loadFile({ name: "bomb.docx", bytes: bomb }, options))).toBe("archive_too_large");
  });

  it("rejects a zip that is not a Word document", async () => {
    const zip = new JSZip();
    zip.file("hello.txt", "hello");
    const archive = await zip.generateAsync({ type: "uint8array" });
    expect(await codeOf(loadFile({ name: "other.docx", bytes: archive }, options))).toBe("corrupt_file");
  });
});

describe("JSON", () => {
  it("makes each record of the largest array a document, with identifiers as metadata and the rest as text", async () => {
    const json = {
      source: "https://example.org",
      description: "Tools",
      items: [
        { id: "t-1", name: "Trowel", price: 12.5, tags: ["garden", "hand"], size: { length: 30 } },
        { id: "t-2", name: "Rake", price: 20 },
      ],
    };
    const loaded = await loadFile({ name: "tools.json", bytes: bytes(JSON.stringify(json)) }, options);
    expect(loaded.documents.map((document) => [document.idSuffix, document.title])).toEqual([
      ["#0", "Trowel (tools)"],
      ["#1", "Rake (tools)"],
    ]);
    expect(loaded.documents[0]?.sections[0]?.text).toBe("name: Trowel\nprice: 12.5\ntags: garden, hand\nsize.length: 30");
    expect(loaded.documents[0]?.metadata).toMatchObject({
      id: "t-1",
      record: 0,
      records_key: "items",
      description: "Tools",
      source: "https://example.org",
      type: "json",
    });
  });

  it("titles a record without a title or name by its position counted from 1, not by its id's index", async () => {
    const poems = {
      poems: [
        { lines: ["First line"], number: 7 },
        { lines: ["Second line"], number: 8 },
      ],
    };
    const loaded = await loadFile({ name: "poems.json", bytes: bytes(JSON.stringify(poems)) }, options);
    expect(loaded.documents.map((document) => [document.idSuffix, document.title])).toEqual([
      ["#0", "poems, record 1"],
      ["#1", "poems, record 2"],
    ]);
  });

  it("puts a string over 200 characters under its key, so that its sentences read as prose", async () => {
    const article = `${"The steam engine turned heat into work. ".repeat(5)}It changed industry.`;
    const loaded = await loadFile(
      { name: "articles.jsonl", bytes: bytes(`${JSON.stringify({ title: "Steam engine", text: article, note: "short" })}\n`) },
      options,
    );
    expect(article.length).toBeGreaterThan(200);
    expect(loaded.documents[0]?.sections[0]?.text).toBe(`title: Steam engine\ntext:\n${article}\nnote: short`);
    const edge = "x".repeat(200);
    const inline = await loadFile({ name: "edge.json", bytes: bytes(JSON.stringify([{ text: edge }])) }, options);
    expect(inline.documents[0]?.sections[0]?.text).toBe(`text: ${edge}`);
  });

  it("keeps a list of strings as one document and reads NDJSON", async () => {
    const list = await loadFile(
      { name: "lines.json", bytes: bytes(JSON.stringify({ title: "Poem", lines: ["one line", "two line", "red line"] })) },
      options,
    );
    expect(list.documents).toHaveLength(1);
    expect(list.documents[0]?.sections[0]?.text).toBe("one line\ntwo line\nred line");
    const ndjson = await loadFile(
      { name: "events.ndjson", bytes: bytes('{"event": "start", "by": "ann"}\n{"event": "stop", "by": "bob"}\n') },
      options,
    );
    expect(ndjson.documents.map((document) => document.sections[0]?.text)).toEqual(["event: start\nby: ann", "event: stop\nby: bob"]);
  });

  it("keeps records as sections of one document when recordsAsDocuments is false", async () => {
    const loaded = await loadFile(
      { name: "r.json", bytes: bytes('[{"name": "a"}, {"name": "b"}]') },
      { ...options, json: { recordsAsDocuments: false } },
    );
    expect(loaded.documents).toHaveLength(1);
    expect(loaded.documents[0]?.sections).toEqual([
      { text: "name: a", metadata: { record: 0 } },
      { text: "name: b", metadata: { record: 1 } },
    ]);
  });
});

describe("DOCX HTML", () => {
  it("turns headings into sections and renders lists and tables as text", () => {
    const html =
      "<p>Preface.</p><h1>Policy</h1><p>All staff.</p><h2>Scope</h2><ul><li>Employees</li><li>Contractors</li></ul><table><tr><td><p>Role</p></td><td><p>Days</p></td></tr><tr><td><p>Staff</p></td><td><p>25</p></td></tr></table>";
    expect(htmlToSections(html)).toEqual([
      { text: "Preface.", metadata: {} },
      { text: "Policy\nAll staff.", metadata: { section: "Policy" } },
      { text: "Scope\n- Employees\n- Contractors\nRole | Days\nStaff | 25", metadata: { section: "Policy > Scope" } },
    ]);
  });
});

describe("DOCX tables", () => {
  it("gives each data row of a table with a header row a section of its own, under the header's names", () => {
    const html =
      "<h1>Rates</h1><p>Rates by region.</p><table><tr><th><p>Region</p></th><th><p>Rate</p></th></tr><tr><td><p>North</p></td><td><p>4 %</p></td></tr><tr><td><p>South</p></td><td></td></tr></table><p>Rates change yearly.</p>";
    expect(htmlToSections(html)).toEqual([
      { text: "Rates\nRates by region.", metadata: { section: "Rates" } },
      { text: "Region: North; Rate: 4 %", metadata: { section: "Rates", row: 2 }, preChunked: true },
      { text: "Region: South", metadata: { section: "Rates", row: 3 }, preChunked: true },
      { text: "Rates change yearly.", metadata: { section: "Rates" } },
    ]);
  });

  it("reads a first row of three or more filled, distinct, non-numeric cells as the header; keeps other tables as lines", () => {
    const cells = (values: string[]) => `<tr>${values.map((value) => `<td><p>${value}</p></td>`).join("")}</tr>`;
    const table = (...rows: string[][]) => `<table>${rows.map(cells).join("")}</table>`;
    expect(htmlToSections(table(["Name", "Team", "Room"], ["Ann", "Finance", "4.12"]))).toEqual([
      { text: "Name: Ann; Team: Finance; Room: 4.12", metadata: { row: 2 }, preChunked: true },
    ]);
    // Numbers in the first row: data, not a header.
    expect(htmlToSections(table(["2023", "12", "40"], ["2024", "15", "42"]))).toEqual([
      { text: "2023 | 12 | 40\n2024 | 15 | 42", metadata: {} },
    ]);
  });
});

describe("parsePdfDate", () => {
  it("parses PDF dates with and without time zones", () => {
    expect(parsePdfDate("D:20230615120000+02'00'")).toBe("2023-06-15T10:00:00.000Z");
    expect(parsePdfDate("D:20230615")).toBe("2023-06-15T00:00:00.000Z");
    expect(parsePdfDate("yesterday")).toBeUndefined();
  });
});

describe("file loaders", () => {
  it("lists the formats and every extension of the registered loaders, each extension naming one loader", () => {
    expect(supportedFormats).toEqual(["pdf", "docx", "txt", "md", "json", "csv"]);
    expect(supportedExtensions).toEqual(["pdf", "docx", "txt", "text", "md", "markdown", "json", "ndjson", "jsonl", "csv"]);
    expect(new Set(supportedExtensions).size).toBe(supportedExtensions.length);
    expect(supportedExtensions.map((extension) => loaderOfExtension(extension)?.format)).toEqual([
      "pdf",
      "docx",
      "txt",
      "txt",
      "md",
      "md",
      "json",
      "json",
      "json",
      "csv",
    ]);
  });

  it("finds a loader by its format's extension or an alias, in any case, and refuses another extension", () => {
    const names = ["a.md", "b.MARKDOWN", "c.jsonl", "d.ndjson", "e.text", "f.docx"];
    expect(names.map((name) => loaderOfName(name).format)).toEqual(["md", "md", "json", "json", "txt", "docx"]);
    expect(loaderOfExtension("doc")).toBeUndefined();
    expect(() => loaderOfName("g.doc")).toThrow(/unsupported file type \.doc; supported: \.pdf, \.docx, \.txt, \.md, \.json, \.csv/);
  });
});
