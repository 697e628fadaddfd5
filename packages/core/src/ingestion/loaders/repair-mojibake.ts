/**
 * Mojibake repair for decoded text files: UTF-8 text that was once decoded as Windows-1252 or
 * Latin-1 and saved again ("paid Â£850,000", "1986â€“1990") reads as it was written ("paid
 * £850,000", "1986–1990"), so that questions, BM25 terms and answers match it. The detection and
 * the repair are ftfy's `fix_encoding` (Robyn Speer's heuristic, ported to TypeScript as
 * `ftfy-js`), which changes a sequence only when its bytes decode as UTF-8 and the result is less
 * "weird" by ftfy's character-class badness measure; text in any script that is not mojibake is
 * left as it is (checked on every text file of ../shared/data/documents, the multilingual UDHR
 * among them: only the Norwich City article changes).
 */
import { fix_encoding } from "ftfy-js";

/**
 * Longest piece of text handed to `fix_encoding` at once, in UTF-16 code units. Its cost grows
 * with the square of the mojibake sequences in one call (measured: 60 KB of dense mojibake on one
 * line 1.2 s, 120 KB 4.6 s), so text is repaired line by line and a longer line in pieces cut at
 * spaces; a mojibake sequence holds no ASCII space, so no cut splits one.
 */
export const maximumRepairSegment = 2_000;

/** A line or piece of one; every character ASCII (no mojibake possible). */
const asciiOnly = /^[\u0000-\u007f]*$/;

/**
 * `text` with mojibake repaired, and how many of its lines changed (0 when none did; the text is
 * then returned as given). Linear in the length of the text for a bounded segment
 * ({@link maximumRepairSegment}).
 */
export function repairMojibake(text: string): { text: string; repairedLines: number } {
  if (asciiOnly.test(text)) return { text, repairedLines: 0 };
  let repairedLines = 0;
  const lines = text.split("\n").map((line) => {
    if (asciiOnly.test(line)) return line;
    const repaired = segmentsOf(line)
      .map((segment) => (asciiOnly.test(segment) ? segment : fix_encoding(segment)))
      .join("");
    if (repaired !== line) repairedLines += 1;
    return repaired;
  });
  return repairedLines === 0 ? { text, repairedLines } : { text: lines.join("\n"), repairedLines };
}

/** `line` in consecutive pieces of at most {@link maximumRepairSegment} code units, cut after a space where one is (joined, they are `line`). */
function segmentsOf(line: string): string[] {
  if (line.length <= maximumRepairSegment) return [line];
  const segments: string[] = [];
  let start = 0;
  while (start < line.length) {
    let end = Math.min(start + maximumRepairSegment, line.length);
    if (end < line.length) {
      const space = line.lastIndexOf(" ", end - 1);
      if (space > start) end = space + 1;
    }
    segments.push(line.slice(start, end));
    start = end;
  }
  return segments;
}
