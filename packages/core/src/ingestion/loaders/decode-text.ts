/**
 * Text decoding for TXT, Markdown, CSV and JSON files: UTF-8 (the expected case), UTF-16 with a
 * byte-order mark, and legacy single-byte encodings recognised by `chardet` (for example a
 * Latin-1 file from an old editor). Anything else is rejected rather than guessed.
 */
import chardet from "chardet";
import { DocqaError } from "../../errors/docqa-error.js";

/** Decoded text and how it was decoded. */
export interface DecodedText {
  text: string;
  /** WHATWG encoding label used, for example `utf-8` or `windows-1252`. */
  encoding: string;
  warnings: string[];
}

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

/** Minimum `chardet` confidence (0 to 100) to accept a legacy encoding. */
const minimumConfidence = 50;

/**
 * Decodes file bytes.
 *
 * 1. A UTF-8 or UTF-16 byte-order mark decides.
 * 2. Strict UTF-8. If the only fault is an incomplete character at the very end (a truncated
 *    file), the text before it is kept, with a warning.
 * 3. `chardet`'s best guess when it is UTF-16 or a legacy single-byte encoding with confidence
 *    of at least 50, and the result contains no control characters other than whitespace.
 *
 * @throws {DocqaError} `invalid_encoding` otherwise.
 */
export function decodeText(bytes: Uint8Array, filename: string): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return utf8(bytes.subarray(3), filename);
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder("utf-16le").decode(bytes.subarray(2)), encoding: "utf-16le", warnings: [] };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder("utf-16be").decode(bytes.subarray(2)), encoding: "utf-16be", warnings: [] };
  return utf8(bytes, filename);
}

function utf8(bytes: Uint8Array, filename: string): DecodedText {
  const strict = new TextDecoder("utf-8", { fatal: true });
  try {
    return { text: strict.decode(bytes), encoding: "utf-8", warnings: [] };
  } catch {
    // A file cut inside a multi-byte character: keep everything before it.
    for (let cut = 1; cut <= 3 && cut < bytes.length; cut++) {
      try {
        const text = strict.decode(bytes.subarray(0, bytes.length - cut));
        return {
          text,
          encoding: "utf-8",
          warnings: [`${filename} ends inside a UTF-8 character (truncated file); the incomplete character was dropped`],
        };
      } catch {
        // try a shorter prefix
      }
    }
  }
  const guess = chardet.analyse(bytes).find((candidate) => candidate.confidence >= minimumConfidence);
  const label = guess ? (guess.name.startsWith("UTF-16") ? guess.name.toLowerCase() : legacyEncodings[guess.name]) : undefined;
  if (guess && label) {
    const text = new TextDecoder(label).decode(bytes);
    if (!/[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffd]/.test(text)) {
      return {
        text,
        encoding: label,
        warnings: [`${filename} is not UTF-8; decoded as ${label} (detected ${guess.name}, confidence ${guess.confidence})`],
      };
    }
  }
  throw new DocqaError("invalid_encoding", `${filename} is not valid UTF-8 and its encoding could not be recognised: save it as UTF-8`, {
    component: "ingestion",
  });
}
