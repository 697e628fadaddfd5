/**
 * Zip archives written byte by byte (PKWARE APPNOTE 6.3.10, section 4.3: local headers, DEFLATE
 * data, central directory, end record), so that an entry can declare any size, as a zip bomb does
 * (a zip library never lies), and the hostile DOCX files of issue 24 built from them: lying sizes on
 * any entry name, many entries, relationships that point several parts at one entry, a main part
 * named `word/main.bin` that declares 4 KiB and inflates to 2 GiB, and an honest document of 250 MB.
 *
 * Large entries are a block repeated many times. Each piece is deflated on its own and ended
 * with a full flush (RFC 1951 stored block, byte-aligned, no reference to earlier data), so the
 * compressed block is computed once and written as many times as the block repeats: a 2 GiB
 * entry costs one 1 MiB deflate and a CRC-32 pass, in memory bounded by the block. Files are
 * streamed to disk ({@link writeCraftedZip}) or, for small archives, built in memory
 * ({@link craftZip}).
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { constants, crc32, deflateRawSync } from "node:zlib";

/** One entry of a crafted archive: `head`, then `body` repeated `repeat` times, then `tail`. */
export interface CraftedEntry {
  /** The entry's file name. */
  name: string;
  head?: string | Uint8Array | undefined;
  body?: string | Uint8Array | undefined;
  /** Times `body` is repeated; default 1. */
  repeat?: number | undefined;
  tail?: string | Uint8Array | undefined;
  /** Uncompressed size written in the local and central headers; default the real size. */
  declaredSize?: number | undefined;
  /** 8 (DEFLATE, default) or 0 (stored). */
  method?: 0 | 8 | undefined;
}

const bytesOf = (value: string | Uint8Array | undefined): Buffer =>
  value === undefined ? Buffer.alloc(0) : typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);

/** Largest value of the 32-bit size and offset fields (no ZIP64 records are written). */
const maxField = 0xffff_ffff;

interface PreparedEntry {
  name: Buffer;
  pieces: { data: Buffer; times: number }[];
  crc: number;
  compressedSize: number;
  size: number;
  declaredSize: number;
  method: 0 | 8;
}

function prepare(entry: CraftedEntry): PreparedEntry {
  const head = bytesOf(entry.head);
  const body = bytesOf(entry.body);
  const tail = bytesOf(entry.tail);
  const repeat = entry.repeat ?? 1;
  const method = entry.method ?? 8;
  let crc = crc32(head);
  for (let index = 0; index < repeat; index++) crc = crc32(body, crc);
  crc = crc32(tail, crc);
  const flushed = { finishFlush: constants.Z_FULL_FLUSH };
  const pieces =
    method === 0
      ? [
          { data: head, times: 1 },
          { data: body, times: repeat },
          { data: tail, times: 1 },
        ]
      : [
          { data: deflateRawSync(head, flushed), times: 1 },
          { data: deflateRawSync(body, flushed), times: repeat },
          { data: deflateRawSync(tail), times: 1 },
        ];
  const size = head.length + body.length * repeat + tail.length;
  const compressedSize = pieces.reduce((sum, piece) => sum + piece.data.length * piece.times, 0);
  if (size > maxField || compressedSize > maxField)
    throw new RangeError(`${entry.name}: entries of 4 GiB or more need ZIP64, not written here`);
  return { name: Buffer.from(entry.name, "utf8"), pieces, crc, compressedSize, size, declaredSize: entry.declaredSize ?? size, method };
}

/** The archive's bytes, chunk by chunk (a repeated block is yielded as the same buffer each time). */
export function* zipChunks(entries: readonly CraftedEntry[]): Generator<Buffer> {
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const prepared = prepare(entry);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(prepared.method, 8);
    local.writeUInt32LE(prepared.crc, 14);
    local.writeUInt32LE(prepared.compressedSize, 18);
    local.writeUInt32LE(prepared.declaredSize, 22);
    local.writeUInt16LE(prepared.name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(prepared.method, 10);
    central.writeUInt32LE(prepared.crc, 16);
    central.writeUInt32LE(prepared.compressedSize, 20);
    central.writeUInt32LE(prepared.declaredSize, 24);
    central.writeUInt16LE(prepared.name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, prepared.name);
    yield local;
    yield prepared.name;
    for (const piece of prepared.pieces) for (let index = 0; index < piece.times; index++) yield piece.data;
    offset += local.length + prepared.name.length + prepared.compressedSize;
    if (offset > maxField) throw new RangeError("archives of 4 GiB or more need ZIP64, not written here");
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directory;
  yield end;
}

/** A small crafted archive, in memory. */
export function craftZip(entries: readonly CraftedEntry[]): Uint8Array {
  return new Uint8Array(Buffer.concat([...zipChunks(entries)]));
}

/** Writes a crafted archive to `path`, streamed (memory bounded by its largest block); resolves with its size in bytes. */
export async function writeCraftedZip(path: string, entries: readonly CraftedEntry[]): Promise<number> {
  const output = createWriteStream(path);
  let written = 0;
  try {
    for (const chunk of zipChunks(entries)) {
      written += chunk.length;
      if (!output.write(chunk)) await once(output, "drain");
    }
  } finally {
    output.end();
    await once(output, "close");
  }
  return written;
}

const wordNamespace = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const relationshipTypes = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** The opening of a WordprocessingML main part, up to the body's first child. */
export const wordDocumentHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${wordNamespace}"><w:body>`;
/** The end of a WordprocessingML main part. */
export const wordDocumentTail = "</w:body></w:document>";

/** A WordprocessingML paragraph of one run of `text` (escaped). */
export function wordParagraph(text: string): string {
  const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return `<w:p><w:r><w:t xml:space="preserve">${escaped}</w:t></w:r></w:p>`;
}

/** Words the generated paragraphs are drawn from. */
const vocabulary = (
  "the of and to in is that for on with as by at from this be are was it an or which policy report " +
  "budget office staff review annual request approval travel expense contract service member council " +
  "section clause period notice payment record holder account access system network server backup"
).split(" ");

/**
 * About `bytes` bytes (UTF-8) of `<w:p>` paragraphs: `distinct` paragraphs of words drawn with a
 * seeded generator (a linear congruential generator, Numerical Recipes' constants), then one
 * fixed paragraph repeated. More distinct paragraphs compress less: the knob that sets a
 * generated file's compression ratio.
 */
export function paragraphBlock(bytes: number, distinct: number, seed = 1): string {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; index < distinct && size < bytes; index++) {
    const words = Array.from({ length: 6 + (next() % 10) }, () => vocabulary[next() % vocabulary.length]);
    const paragraph = wordParagraph(`${words.join(" ")} ${next()}.`);
    parts.push(paragraph);
    size += Buffer.byteLength(paragraph);
  }
  const filler = "<w:p><w:r><w:t>Repeated paragraph.</w:t></w:r></w:p>";
  while (size + filler.length <= bytes) {
    parts.push(filler);
    size += filler.length;
  }
  return parts.join("");
}

/** Options of {@link wordDocumentEntries}. */
export interface WordDocumentOptions {
  /** Name of the main document part, which `[Content_Types].xml` and `_rels/.rels` point at; default `word/document.xml`. */
  mainPart?: string | undefined;
  /** The main part's body: `block` (paragraph XML) repeated `repeat` times (default 1). */
  block: string;
  repeat?: number | undefined;
  /** Uncompressed size the main part's headers declare; default the real size. */
  declaredMainSize?: number | undefined;
  /**
   * Relationships of the main part, by type (`styles`, `numbering`, `footnotes`, `endnotes`,
   * `comments`, ...) to a target part name; written to `word/_rels/<main part>.rels`.
   */
  relationships?: Readonly<Record<string, string>> | undefined;
  /** Entries added after the document's own. */
  extraEntries?: readonly CraftedEntry[] | undefined;
}

/** The entries of a minimal DOCX: content types, package relationships, the main part (and its relationships). */
export function wordDocumentEntries(options: WordDocumentOptions): CraftedEntry[] {
  const mainPart = options.mainPart ?? "word/document.xml";
  const slash = mainPart.lastIndexOf("/");
  const folder = mainPart.slice(0, slash + 1);
  const relationships = Object.entries(options.relationships ?? {});
  const entries: CraftedEntry[] = [
    {
      name: "[Content_Types].xml",
      body:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/${mainPart}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      body:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Id="rId1" Type="${relationshipTypes}/officeDocument" Target="${mainPart}"/></Relationships>`,
    },
    {
      name: mainPart,
      head: wordDocumentHead,
      body: options.block,
      repeat: options.repeat,
      tail: wordDocumentTail,
      declaredSize: options.declaredMainSize,
    },
  ];
  if (relationships.length > 0) {
    entries.push({
      name: `${folder}_rels/${mainPart.slice(slash + 1)}.rels`,
      body:
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        relationships
          .map(([type, target], index) => `<Relationship Id="rId${index + 1}" Type="${relationshipTypes}/${type}" Target="/${target}"/>`)
          .join("") +
        "</Relationships>",
    });
  }
  return [...entries, ...(options.extraEntries ?? [])];
}

/** A mebibyte, in bytes. */
const mebibyte = 1024 * 1024;

/**
 * The first file of issue 24: `_rels/.rels` and the content types name `word/main.bin` as the
 * main document part, whose headers declare 4,096 bytes while it inflates to 2 GiB of `<w:p>`
 * paragraphs (one 52-byte paragraph, in a 1 MiB block written 2,048 times); 6.4 MB on disk. A
 * small `word/document.xml` sits beside it, which the archive check before issue 24 required.
 */
export function mainPartBombEntries(): CraftedEntry[] {
  return wordDocumentEntries({
    mainPart: "word/main.bin",
    block: paragraphBlock(mebibyte, 0),
    repeat: 2048,
    declaredMainSize: 4096,
    extraEntries: [{ name: "word/document.xml", head: wordDocumentHead, body: wordParagraph("A decoy."), tail: wordDocumentTail }],
  });
}

/**
 * The second file of issue 24: an honest DOCX (every size true) whose `word/document.xml`
 * inflates to 250 MiB of paragraphs (a 1 MiB block 250 times), 2.2 MB on disk: a compression ratio of
 * 121, inside the limits documented before issue 24 (256 MiB declared, ratio 200).
 */
export function honestHugeDocumentEntries(): CraftedEntry[] {
  return wordDocumentEntries({ block: paragraphBlock(mebibyte, 220, 7), repeat: 250 });
}
