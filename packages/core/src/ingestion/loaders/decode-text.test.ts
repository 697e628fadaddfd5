import { describe, expect, it } from "vitest";
import { decodeText } from "./decode-text.js";

const sample = "Grüße, world 😀 — plain text.";

/** `text` as UTF-16 or UTF-32 code units in the given byte order, without a byte-order mark. */
function encode(text: string, form: "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be"): number[] {
  const bytes: number[] = [];
  const littleEndian = form.endsWith("le");
  if (form.startsWith("utf-16")) {
    for (let index = 0; index < text.length; index++) {
      const unit = text.charCodeAt(index);
      bytes.push(...(littleEndian ? [unit & 0xff, unit >> 8] : [unit >> 8, unit & 0xff]));
    }
    return bytes;
  }
  for (const character of text) {
    const codePoint = character.codePointAt(0) as number;
    const big = [0, (codePoint >> 16) & 0xff, (codePoint >> 8) & 0xff, codePoint & 0xff];
    bytes.push(...(littleEndian ? big.reverse() : big));
  }
  return bytes;
}

const decode = (bytes: number[]) => decodeText(Uint8Array.from(bytes), "f.txt");

describe("decodeText", () => {
  it.each([
    ["utf-8", [0xef, 0xbb, 0xbf, ...new TextEncoder().encode(sample)]],
    ["utf-16le", [0xff, 0xfe, ...encode(sample, "utf-16le")]],
    ["utf-16be", [0xfe, 0xff, ...encode(sample, "utf-16be")]],
    ["utf-32le", [0xff, 0xfe, 0x00, 0x00, ...encode(sample, "utf-32le")]],
    ["utf-32be", [0x00, 0x00, 0xfe, 0xff, ...encode(sample, "utf-32be")]],
  ])("decodes %s after its byte-order mark", (encoding, bytes) => {
    expect(decode(bytes)).toEqual({ text: sample, encoding, warnings: [] });
  });

  it("reads FF FE 00 00 as UTF-16LE starting with U+0000 when the rest is not UTF-32", () => {
    expect(decode([0xff, 0xfe, 0x00, 0x00, ...encode("AB", "utf-16le")])).toEqual({ text: "\u0000AB", encoding: "utf-16le", warnings: [] });
  });

  it.each(["utf-16le", "utf-16be", "utf-32le", "utf-32be"] as const)("detects %s without a byte-order mark, with a warning", (encoding) => {
    expect(decode(encode(sample, encoding))).toEqual({
      text: sample,
      encoding,
      warnings: [`f.txt has no byte-order mark; decoded as ${encoding} (detected from the positions of its zero bytes)`],
    });
  });

  it("keeps UTF-16 with an odd byte count minus its incomplete last code unit, with a warning, instead of calling it UTF-8", () => {
    expect(decode(encode("Hello world, plain.", "utf-16be").slice(0, -1))).toEqual({
      text: "Hello world, plain",
      encoding: "utf-16be",
      warnings: [
        "f.txt has no byte-order mark; decoded as utf-16be (detected from the positions of its zero bytes)",
        "f.txt ends inside a UTF-16BE code unit (37 bytes, not a multiple of 2: a truncated file); the incomplete last byte was dropped",
      ],
    });
    expect(decode([0xff, 0xfe, ...encode("Grüße", "utf-16le"), 0x21])).toEqual({
      text: "Grüße",
      encoding: "utf-16le",
      warnings: [
        "f.txt ends inside a UTF-16LE code unit (13 bytes, not a multiple of 2: a truncated file); the incomplete last byte was dropped",
      ],
    });
  });

  it("drops half a surrogate pair or an incomplete UTF-32 unit at the end, with a warning", () => {
    expect(decode([0xfe, 0xff, ...encode("ab😀", "utf-16be").slice(0, -2)])).toEqual({
      text: "ab",
      encoding: "utf-16be",
      warnings: ["f.txt ends inside a UTF-16BE character (truncated file); the incomplete character was dropped"],
    });
    expect(decode([0x00, 0x00, 0xfe, 0xff, ...encode("ab", "utf-32be"), 0x00, 0x00])).toEqual({
      text: "ab",
      encoding: "utf-32be",
      warnings: [
        "f.txt ends inside a UTF-32BE code unit (14 bytes, not a multiple of 4: a truncated file); the incomplete last bytes were dropped",
      ],
    });
  });

  it("rejects text that violates the encoding its byte-order mark names", () => {
    expect(() => decode([0xfe, 0xff, 0xd8, 0x00, 0x00, 0x41, 0x00, 0x42])).toThrow(
      expect.objectContaining({
        code: "invalid_encoding",
        message: expect.stringContaining("starts with a UTF-16BE byte-order mark but is not valid UTF-16BE"),
      }),
    );
    expect(() => decode([0x00, 0x00, 0xfe, 0xff, 0x00, 0x11, 0x00, 0x00])).toThrow(
      expect.objectContaining({
        code: "invalid_encoding",
        message: expect.stringContaining("the code unit 0x00110000 at byte 0 is not a Unicode character"),
      }),
    );
  });

  it("keeps UTF-8 padded with zero bytes as UTF-8", () => {
    expect(decode([...new TextEncoder().encode("abc"), 0, 0, 0, 0])).toEqual({
      text: "abc\u0000\u0000\u0000\u0000",
      encoding: "utf-8",
      warnings: [],
    });
  });

  it("reads UTF-8 damaged in a few places with each invalid sequence replaced, and says where", () => {
    // A CSV export whose accented letter lost a byte ("Rodr\xcc_guez"): one stray byte among valid rows.
    const rows = Array.from({ length: 40 }, (_, index) => `Film ${index},Director ${index},Café ${index}`);
    const damaged = [
      ...new TextEncoder().encode(`title,director,place\n${rows.slice(0, 20).join("\n")}\nMoneyball,Rodr`),
      0xcc,
      ...new TextEncoder().encode(`_guez,Oakland\n${rows.slice(20).join("\n")}\n`),
    ];
    const decoded = decodeText(new Uint8Array(damaged), "films.csv");
    expect(decoded.encoding).toBe("utf-8");
    expect(decoded.text).toContain("Moneyball,Rodr\ufffd_guez,Oakland");
    expect(decoded.text).toContain("Café 39");
    expect(decoded.warnings).toEqual(["films.csv is UTF-8 with 1 invalid byte sequence (line 22); each was replaced with U+FFFD"]);
  });

  it("still rejects bytes with many invalid sequences or control characters, and does not count a replacement character the file holds", () => {
    const noisy = new TextEncoder().encode(`a\u0001b${"x".repeat(300)}`);
    expect(() => decode([0x80, ...noisy, ...noisy])).toThrow(expect.objectContaining({ code: "invalid_encoding" }));
    const mostlyInvalid = Array.from({ length: 200 }, (_, index) => (index % 10 === 0 ? 0xff : 0x61));
    expect(() => decode(mostlyInvalid)).toThrow(expect.objectContaining({ code: "invalid_encoding" }));
    const held = [0xff, ...new TextEncoder().encode(`${"x".repeat(300)} \ufffd `)];
    expect(decodeText(new Uint8Array(held), "f.txt").warnings[0]).toContain("with 1 invalid byte sequence");
  });
});
