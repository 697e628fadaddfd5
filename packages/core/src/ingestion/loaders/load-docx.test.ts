import { crc32, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { docqaErrorOf } from "../../testing/docqa-error-of.js";
import { loadDocx } from "./load-docx.js";

const limits = { maxFileBytes: 100_000_000, maxExtractedChars: 1_000_000 };
const text = (value: string) => new TextEncoder().encode(value);

interface CraftedEntry {
  name: string;
  /** The entry's real (uncompressed) content. */
  content: Uint8Array;
  /** The uncompressed size written in the headers; default the real one. A zip library never lies; a zip bomb may. */
  declaredSize?: number;
}

/**
 * A zip archive written byte by byte (APPNOTE 6.3.10: local headers, DEFLATE data, central
 * directory, end record), so that headers can declare any size, as a hostile archive does.
 */
function craftZip(entries: readonly CraftedEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const data = deflateRawSync(entry.content);
    const crc = crc32(entry.content);
    const size = entry.declaredSize ?? entry.content.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // DEFLATE
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const documentXml = text(
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello from a crafted archive.</w:t></w:r></w:p></w:body></w:document>',
);
const contentTypes = text(
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
);
const relationships = text(
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
);
const wordParts: CraftedEntry[] = [
  { name: "[Content_Types].xml", content: contentTypes },
  { name: "_rels/.rels", content: relationships },
  { name: "word/document.xml", content: documentXml },
];

describe("loadDocx: archive limits, checked before inflating", () => {
  it("reads a well-formed crafted archive (the helper writes valid zips)", async () => {
    const loaded = await loadDocx({ name: "hello.docx", bytes: craftZip(wordParts) }, limits);
    expect(loaded.documents[0]?.sections).toEqual([{ text: "Hello from a crafted archive.", metadata: {} }]);
  });

  it("refuses an entry declaring 2 GiB (read as a negative size by JSZip, which let such a bomb through)", async () => {
    const bomb = craftZip([...wordParts, { name: "word/media/padding.bin", content: new Uint8Array(1000), declaredSize: 2 ** 31 }]);
    const error = await docqaErrorOf(loadDocx({ name: "bomb.docx", bytes: bomb }, limits));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      `bomb.docx would inflate to ${2 ** 31 + contentTypes.length + relationships.length + documentXml.length} bytes from ${bomb.length} (limits: 268435456 bytes, MAX_ARCHIVE_BYTES; ratio 200, MAX_COMPRESSION_RATIO); refusing a possible zip bomb`,
    );
  });

  it("refuses an archive above MAX_COMPRESSION_RATIO even when its total is below MAX_ARCHIVE_BYTES", async () => {
    const dense = craftZip([...wordParts, { name: "word/media/zeros.bin", content: new Uint8Array(5_000_000) }]);
    expect(dense.length).toBeLessThan(10_000);
    const error = await docqaErrorOf(loadDocx({ name: "dense.docx", bytes: dense }, limits));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toContain("ratio 200, MAX_COMPRESSION_RATIO");
    // With a higher ratio allowed, the same archive is read (its media are never inflated for text).
    const loaded = await loadDocx({ name: "dense.docx", bytes: dense }, { ...limits, maxCompressionRatio: 10_000 });
    expect(loaded.documents[0]?.sections[0]?.text).toBe("Hello from a crafted archive.");
  });

  it("refuses an archive with more entries than MAX_ARCHIVE_ENTRIES, from its end record", async () => {
    const crowded = craftZip([
      ...wordParts,
      ...Array.from({ length: 20 }, (_, index) => ({ name: `word/part${index}.xml`, content: text("<x/>") })),
    ]);
    const error = await docqaErrorOf(loadDocx({ name: "crowded.docx", bytes: crowded }, { ...limits, maxArchiveEntries: 10 }));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe("crowded.docx has 23 entries (limit 10, MAX_ARCHIVE_ENTRIES); refusing a possible zip bomb");
  });

  it("refuses a part that inflates beyond the size it declares, as soon as it does", async () => {
    const lying = craftZip([
      { name: "[Content_Types].xml", content: contentTypes },
      { name: "word/document.xml", content: new Uint8Array(3_000_000).fill(0x20), declaredSize: 100 },
    ]);
    const error = await docqaErrorOf(loadDocx({ name: "lying.docx", bytes: lying }, { ...limits, maxCompressionRatio: 10_000 }));
    expect(error.code).toBe("archive_too_large");
    expect(error.publicMessage).toBe(
      "lying.docx has a part (word/document.xml) that inflates beyond the 100 bytes it declares; refusing a possible zip bomb",
    );
  });

  it("reports a truncated archive as corrupt_file", async () => {
    const whole = craftZip(wordParts);
    const error = await docqaErrorOf(loadDocx({ name: "cut.docx", bytes: whole.subarray(0, whole.length - 30) }, limits));
    expect(error.code).toBe("corrupt_file");
  });
});
