/**
 * Text decoding for TXT, Markdown, CSV and JSON files: UTF-8 (the expected case), UTF-16 and
 * UTF-32 (with or without a byte-order mark), and legacy single-byte encodings recognised by
 * `chardet` (for example a Latin-1 file from an old editor). Anything else is rejected rather
 * than guessed. The rules are documented in `docs/ingestion.md` ("Text encodings").
 */
import chardet from "chardet";
import { DocqaError } from "../../errors/docqa-error.js";

/** Decoded text and how it was decoded. */
export interface DecodedText {
  text: string;
  /**
   * Encoding used: a WHATWG label (`utf-8`, `utf-16le`, `utf-16be`, `windows-1252`, ...), or
   * `utf-32le` / `utf-32be`, which WHATWG does not define.
   */
  encoding: string;
  /** Non-fatal observations: a missing byte-order mark, a truncated last character, a legacy encoding. */
  warnings: string[];
}

type UnicodeEncoding = "utf-8" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";

/**
 * Byte-order marks, longest first: UTF-32LE's (`FF FE 00 00`) starts with UTF-16LE's (`FF FE`).
 * Source: The Unicode Standard, section 23.8 (Specials, "Byte Order Mark"), table 23-6.
 */
const byteOrderMarks: readonly { encoding: UnicodeEncoding; bytes: readonly number[] }[] = [
  { encoding: "utf-32le", bytes: [0xff, 0xfe, 0x00, 0x00] },
  { encoding: "utf-32be", bytes: [0x00, 0x00, 0xfe, 0xff] },
  { encoding: "utf-8", bytes: [0xef, 0xbb, 0xbf] },
  { encoding: "utf-16le", bytes: [0xff, 0xfe] },
  { encoding: "utf-16be", bytes: [0xfe, 0xff] },
];

const legacyEncodings: Record<string, string> = {
  "ISO-8859-1": "windows-1252",
  "windows-1252": "windows-1252",
  "ISO-8859-2": "iso-8859-2",
  "windows-1250": "windows-1250",
  "ISO-8859-9": "windows-1254",
  "windows-1251": "windows-1251",
  "ISO-8859-5": "iso-8859-5",
  "KOI8-R": "koi8-r",
  "ISO-8859-7": "iso-8859-7",
  "ISO-8859-15": "iso-8859-15",
};

/** Minimum `chardet` confidence (0 to 100) to accept a detected encoding. */
const minimumConfidence = 50;

/** Control characters that plain text does not contain (whitespace controls excepted). */
const controlCharacters = /[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffd]/;

/** A decoding fault that rules an encoding out. */
class NotThisEncoding extends Error {}

/**
 * Decodes file bytes.
 *
 * 1. A byte-order mark decides: UTF-8, UTF-32LE, UTF-32BE, UTF-16LE, UTF-16BE (UTF-32LE is tried
 *    before UTF-16LE, whose mark it starts with; if the rest is not valid UTF-32 it is UTF-16LE
 *    starting with U+0000).
 * 2. Without a mark, bytes with zeros are checked for UTF-32 (`chardet`) and UTF-16 (zero bytes
 *    concentrated at even or odd offsets, as ASCII characters give); a match is decoded with a
 *    warning.
 * 3. Strict UTF-8.
 * 4. `chardet`'s best guess when it is a legacy single-byte encoding with confidence of at least
 *    50, and the result contains no control characters other than whitespace.
 * 5. UTF-8 damaged in a few places: each invalid sequence replaced by U+FFFD, with a warning,
 *    when they are at most {@link maximumInvalidUtf8Share} of the characters and the text holds
 *    no control characters (a CSV export with a few garbled names keeps its other rows).
 *
 * A file cut inside its last character (an odd byte count in UTF-16, a length not a multiple of
 * four in UTF-32, half a surrogate pair, an incomplete UTF-8 sequence) keeps the text before it,
 * with a warning. UTF-8 with a few invalid sequences is read with replacement characters (step 5);
 * any other invalid sequence rejects the file.
 *
 * @throws {DocqaError} `invalid_encoding` when no rule applies or the encoding a mark names is
 *   violated inside the text.
 */
export function decodeText(bytes: Uint8Array, filename: string): DecodedText {
  const mark = byteOrderMarks.find((candidate) => candidate.bytes.every((byte, index) => bytes[index] === byte));
  if (mark) {
    const body = bytes.subarray(mark.bytes.length);
    try {
      return decodeUnicode(body, mark.encoding, filename, [], bytes.length);
    } catch (error) {
      if (!(error instanceof NotThisEncoding)) throw error;
      if (mark.encoding === "utf-32le") {
        try {
          return decodeUnicode(bytes.subarray(2), "utf-16le", filename, [], bytes.length);
        } catch (fallbackError) {
          if (!(fallbackError instanceof NotThisEncoding)) throw fallbackError;
        }
      }
      throw invalid(filename, `starts with a ${mark.encoding.toUpperCase()} byte-order mark but ${error.message}`);
    }
  }
  if (bytes.includes(0)) {
    const unmarked = unmarkedWideEncoding(bytes);
    if (unmarked) {
      try {
        const decoded = decodeUnicode(bytes, unmarked, filename, [
          `${filename} has no byte-order mark; decoded as ${unmarked} (detected from the positions of its zero bytes)`,
        ]);
        if (!controlCharacters.test(decoded.text.replaceAll("\u0000", ""))) return decoded;
      } catch (error) {
        if (!(error instanceof NotThisEncoding)) throw error;
      }
    }
  }
  try {
    return decodeUnicode(bytes, "utf-8", filename, []);
  } catch (error) {
    if (!(error instanceof NotThisEncoding)) throw error;
  }
  const guess = chardet.analyse(bytes).find((candidate) => candidate.confidence >= minimumConfidence);
  const label = guess ? legacyEncodings[guess.name] : undefined;
  if (guess && label) {
    const text = new TextDecoder(label).decode(bytes);
    if (!controlCharacters.test(text)) {
      return {
        text,
        encoding: label,
        warnings: [`${filename} is not UTF-8; decoded as ${label} (detected ${guess.name}, confidence ${guess.confidence})`],
      };
    }
  }
  const damaged = damagedUtf8(bytes, filename);
  if (damaged) return damaged;
  throw invalid(filename, "is not valid UTF-8 and its encoding could not be recognised");
}

/**
 * Most invalid UTF-8 sequences, as a share of the decoded characters, in text still read as UTF-8
 * with each replaced by U+FFFD (step 5 of {@link decodeText}). Text damaged in a few places (an
 * export that garbled some accented names) stays far below it; binary data read as UTF-8 is
 * invalid at most of its bytes above 0x7F and full of control characters. 1 % is a round bound
 * between the two, chosen by hand, not fitted.
 */
export const maximumInvalidUtf8Share = 0.01;

/** The replacement character's UTF-8 bytes, to tell one the file holds from one the decoder wrote. */
const replacementCharacterBytes = /\xef\xbf\xbd/g;

/**
 * `bytes` read as UTF-8 with each invalid sequence replaced by U+FFFD (the WHATWG decoder's
 * replacement mode), when they are few ({@link maximumInvalidUtf8Share}) and the text holds no
 * control characters; undefined otherwise. Warns with the count and the first lines affected.
 */
function damagedUtf8(bytes: Uint8Array, filename: string): DecodedText | undefined {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const written = [...new TextDecoder("latin1").decode(bytes).matchAll(replacementCharacterBytes)].length;
  const replaced = [...text.matchAll(/\ufffd/g)].length - written;
  if (replaced <= 0 || replaced > maximumInvalidUtf8Share * text.length) return undefined;
  if (controlCharacters.test(text.replaceAll("\ufffd", ""))) return undefined;
  const affected = text.split("\n").flatMap((line, index) => (line.includes("\ufffd") ? [index + 1] : []));
  const lines = affected.slice(0, 5);
  return {
    text,
    encoding: "utf-8",
    warnings: [
      `${filename} is UTF-8 with ${replaced} invalid byte sequence${replaced === 1 ? "" : "s"} (line${lines.length === 1 ? "" : "s"} ${lines.join(", ")}${lines.length < affected.length ? ", …" : ""}); each was replaced with U+FFFD`,
    ],
  };
}

function invalid(filename: string, reason: string): DocqaError {
  return new DocqaError("invalid_encoding", `${filename} ${reason}: save it as UTF-8`, {
    component: "ingestion",
  });
}

/** Bytes per code unit. */
const unitBytes: Record<UnicodeEncoding, number> = { "utf-8": 1, "utf-16le": 2, "utf-16be": 2, "utf-32le": 4, "utf-32be": 4 };

/**
 * Decodes `bytes` (without byte-order mark) strictly. An incomplete last character is dropped
 * with a warning, which gives the file's length, `fileBytes` (a mark's length is a multiple of
 * the code unit's).
 *
 * @throws {NotThisEncoding} on any other invalid sequence.
 */
function decodeUnicode(
  bytes: Uint8Array,
  encoding: UnicodeEncoding,
  filename: string,
  warnings: string[],
  fileBytes = bytes.length,
): DecodedText {
  const unit = unitBytes[encoding];
  const whole = bytes.length - (bytes.length % unit);
  const truncated: string[] = [];
  if (whole < bytes.length) {
    truncated.push(
      `${filename} ends inside a ${encoding.toUpperCase()} code unit (${fileBytes} bytes, not a multiple of ${unit}: a truncated file); the incomplete last ${bytes.length - whole === 1 ? "byte was" : "bytes were"} dropped`,
    );
  }
  const body = bytes.subarray(0, whole);
  if (encoding === "utf-32le" || encoding === "utf-32be") {
    return { text: decodeUtf32(body, encoding === "utf-32le"), encoding, warnings: [...warnings, ...truncated] };
  }
  const strict = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  try {
    return { text: strict.decode(body), encoding, warnings: [...warnings, ...truncated] };
  } catch {
    // A file cut inside a multi-byte character (UTF-8: up to 3 of 4 bytes) or a surrogate pair
    // (UTF-16: the high surrogate): keep everything before it.
    const longestCut = unit === 1 ? 3 : 2;
    for (let cut = unit; cut <= longestCut && cut < body.length; cut += unit) {
      try {
        const text = strict.decode(body.subarray(0, body.length - cut));
        return {
          text,
          encoding,
          warnings: [
            ...warnings,
            `${filename} ends inside a ${encoding.toUpperCase()} character (truncated file); the incomplete character was dropped`,
          ],
        };
      } catch {
        // try a shorter prefix
      }
    }
  }
  throw new NotThisEncoding(`is not valid ${encoding.toUpperCase()}`);
}

/**
 * Decodes UTF-32 code units (`TextDecoder` has no UTF-32). Source: The Unicode Standard,
 * section 3.9, D90 (UTF-32 encoding form: one code unit per scalar value).
 *
 * @throws {NotThisEncoding} for a unit that is not a Unicode scalar value (above U+10FFFF or a surrogate).
 */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  const batch: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 4) {
    const codePoint = view.getUint32(offset, littleEndian);
    if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      throw new NotThisEncoding(
        `is not valid UTF-32 (the code unit 0x${codePoint.toString(16).padStart(8, "0")} at byte ${offset} is not a Unicode character)`,
      );
    }
    batch.push(codePoint);
    if (batch.length === 8192) {
      parts.push(String.fromCodePoint(...batch));
      batch.length = 0;
    }
  }
  parts.push(String.fromCodePoint(...batch));
  return parts.join("");
}

/**
 * UTF-32 or UTF-16 without a byte-order mark: UTF-32 when `chardet` says so with confidence of
 * at least 50; UTF-16 when, in the first 64 KiB, at least a tenth of the bytes at even (big-endian)
 * or odd (little-endian) offsets are zero, and ten times fewer of the others are (the high bytes
 * of ASCII and Latin-1 characters are zero).
 */
function unmarkedWideEncoding(bytes: Uint8Array): UnicodeEncoding | undefined {
  const sample = bytes.subarray(0, 65_536);
  const utf32 = chardet
    .analyse(sample)
    .find((candidate) => candidate.name.startsWith("UTF-32") && candidate.confidence >= minimumConfidence);
  if (utf32) return utf32.name === "UTF-32LE" ? "utf-32le" : "utf-32be";
  const pairs = Math.floor(sample.length / 2);
  if (pairs === 0) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < pairs * 2; index += 2) {
    if (sample[index] === 0) evenZeros++;
    if (sample[index + 1] === 0) oddZeros++;
  }
  if (evenZeros >= pairs / 10 && oddZeros * 10 <= evenZeros) return "utf-16be";
  if (oddZeros >= pairs / 10 && evenZeros * 10 <= oddZeros) return "utf-16le";
  return undefined;
}
