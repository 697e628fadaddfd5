/**
 * Sentence splitting for the extractive answerer. Text is first cut into blocks (paragraphs,
 * Markdown headings, list items, table rows; hard-wrapped lines of a paragraph are joined), then
 * each block is segmented with the platform's Unicode sentence segmentation
 * (`Intl.Segmenter`, UAX #29), with titles, abbreviations and initials kept inside their sentence.
 */

import { htmlToText } from "./html-to-text.js";
import { isKnownWord } from "./word-frequency.js";

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
// Headings, list items, quotes, table rows, and `key: value` lines (rendered JSON records, front matter).
const structuralLine = /^\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\||[\w.-]{1,40}:\s)/;
const keyOnlyLine = /^\s*[\w.-]{1,40}:\s*$/;
const markerPrefix = /^\s*(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/;

/**
 * Removes markup that is not prose: HTML through {@link htmlToText} (comments, `script` and
 * `style` dropped; tags of known elements removed, block ones leaving a line break; entities
 * decoded), then template directives such as `{{#include ...}}`, Markdown images, and link
 * targets (the link text is kept).
 */
export function stripMarkup(text: string): string {
  return htmlToText(text)
    .replace(/\{\{[\s\S]*?\}\}/g, " ")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2");
}

/**
 * Splits `text` into blocks: paragraphs and list items with their wrapped lines joined, one block
 * per heading, table row or key alone on its line (`text:`), and one per line of a fenced code block. Markup is
 * stripped first; fence lines themselves are dropped.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) blocks.push(joinWrappedLines(current));
    current = [];
  };
  let inCode = false;
  for (const line of stripMarkup(text).split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      inCode = !inCode;
      continue;
    }
    if (line.trim() === "") {
      flush();
      continue;
    }
    if (inCode) {
      blocks.push(line.trim());
      continue;
    }
    // A key alone on a line that starts a block labels the lines under it (a rendered JSON
    // record's prose field, `text:`): it is not their first word. Within a paragraph it is a wrapped line.
    if (current.length === 0 && keyOnlyLine.test(line)) {
      flush();
      blocks.push(line.trim());
      continue;
    }
    if (structuralLine.test(line)) {
      flush();
      const text = line.replace(markerPrefix, "").trim();
      // Headings, table rows and `key: value` lines stand alone; list items and quotes continue on wrapped lines.
      if (/^\s*(#{1,6}\s|\||[\w.-]{1,40}:\s)/.test(line)) blocks.push(text);
      else current.push(text);
      continue;
    }
    current.push(line.trim());
  }
  flush();
  return blocks.filter((block) => block !== "");
}

/**
 * Joins a paragraph's wrapped lines with spaces, mending a word that a line break hyphenated (PDF
 * text keeps the typesetter's breaks: "ef-" / "ficient"). A hyphen at a line's end, after a
 * letter, goes when the word it splits, joined, is a word of general English (SUBTLEX-US,
 * {@link isKnownWord}: "efficient"); otherwise the hyphen is the word's own and the halves join
 * without a space ("well-known", "Lucene-BM25").
 */
export function joinWrappedLines(lines: readonly string[]): string {
  let text = "";
  for (const line of lines) {
    const broken = /(\p{L}+)-$/u.exec(text);
    if (text === "") text = line;
    else if (!broken || line === "") text = `${text} ${line}`;
    else {
      const next = /^\p{Ll}+/u.exec(line)?.[0];
      const mended = next !== undefined && isKnownWord(`${broken[1]}${next}`);
      text = mended ? `${text.slice(0, -1)}${line}` : `${text}${line}`;
    }
  }
  return text;
}

/**
 * Titles and abbreviations that, followed by a period, almost never end an English sentence:
 * personal and military titles, saints and mounts, and reference abbreviations. The fixed-list
 * part of Punkt's abbreviation handling (Kiss and Strunk 2006, "Unsupervised Multilingual Sentence
 * Boundary Detection"), which UAX #29 lacks: `Intl.Segmenter` breaks after "St." in "St.
 * Augustine". Words that often end a sentence too ("Inc.", "Co.", "etc.", "U.S.") are left out.
 */
const nonFinalAbbreviations = new Set(
  "mr mrs ms dr prof st mt ft jr sr fr rev hon gen col lt sgt capt cmdr adm gov sen rep pres supt vs cf fig figs vol vols no nos pp ch sec approx dept est".split(
    " ",
  ),
);
/** The word before a segment's final period: an abbreviation, a single-letter initial, or "e.g." / "i.e.". */
const lastWordBeforePeriod = /(?:^|[\s(])((?:[A-Za-z]\.)*[A-Za-z]+)\.$/;

/** Whether a sentence segment ends with a title, abbreviation or initial that does not end a sentence. */
function endsWithNonFinalAbbreviation(segment: string): boolean {
  const word = lastWordBeforePeriod.exec(segment)?.[1];
  if (word === undefined) return false;
  if (/^[A-Z]$/.test(word)) return true;
  if (/^(?:e\.g|i\.e)$/i.test(word)) return true;
  return nonFinalAbbreviations.has(word.toLowerCase());
}

/**
 * Closed-class words, which start sentences and rarely stand inside a name: determiners,
 * pronouns, prepositions, conjunctions, wh-words, auxiliaries and sentence adverbs (the Penn
 * Treebank's DT, PDT, PRP, PRP$, IN, CC, WDT, WP, WP$, WRB, EX and MD classes, with the adverbs
 * that most often open an English sentence).
 */
const closedClassWords = new Set(
  (
    "a an the this that these those each every some any all both many most several no another such " +
    "i he she it we you they me him her us them my his its our your their " +
    "in on at of for from with by to into onto after before during since until under over between among through about against without within upon across behind beyond near " +
    "and but or nor so yet because although though while when where if unless whereas as " +
    "what which who whom whose why how there " +
    "is was were are be been being will would can could should may might must shall do does did has have had " +
    "however also then thus therefore meanwhile later today now here still instead moreover furthermore"
  ).split(" "),
);

/** An initialism's last word before its period: single letters with periods ("U.S", "F.C", "D.C"). */
const initialism = /^(?:[A-Za-z]\.)+[A-Za-z]$/;

/**
 * Whether a segment that ends with an initialism ("the U.S.", "Norwich City F.C.") continues in
 * `next`: it does when `next` starts with a capitalised word that is not a closed-class word
 * ("U.S. Army", "F.C. Hall of Fame"), and a sentence starts there when that word is one ("… in
 * Washington, D.C. The museum …"). A simplified form of the orthographic heuristic of Punkt
 * (Kiss and Strunk 2006, section 4: an abbreviation followed by a word that is not a likely
 * sentence start is not a boundary), which UAX #29 lacks: `Intl.Segmenter` breaks after every
 * "U.S." followed by a capital.
 */
function initialismContinues(segment: string, next: string): boolean {
  const word = lastWordBeforePeriod.exec(segment)?.[1];
  if (word === undefined || !initialism.test(word)) return false;
  const first = /^\p{Lu}[\p{L}'’-]*/u.exec(next)?.[0];
  return first !== undefined && !closedClassWords.has(first.toLowerCase());
}

/**
 * Sentences of one block of prose: `Intl.Segmenter` (UAX #29), then a segment that ends with a
 * title, an abbreviation or an initial (see {@link nonFinalAbbreviations}) joined to the next
 * ("St. Augustine", "J. R. R. Tolkien", "Dr. Jones"), and one that ends with an initialism joined
 * to a next that continues a name ({@link initialismContinues}: "F.C. Hall of Fame"). Trimmed,
 * whitespace collapsed, no empty ones.
 */
export function segmentSentences(text: string): string[] {
  const sentences: string[] = [];
  const segments = withReferenceMarks([...segmenter.segment(text)].map(({ segment }) => segment.replace(/\s+/g, " ").trim())).filter(
    (segment) => segment !== "",
  );
  let pending = "";
  for (const [index, sentence] of segments.entries()) {
    pending = pending === "" ? sentence : `${pending} ${sentence}`;
    const next = segments[index + 1];
    if (!endsWithNonFinalAbbreviation(pending) && (next === undefined || !initialismContinues(pending, next))) {
      sentences.push(pending);
      pending = "";
    }
  }
  if (pending !== "") sentences.push(pending);
  return sentences;
}

/** A reference mark of an encyclopedia article, or a run of them: `[43]`, `[12][13]`, `[a]`. */
const referenceMarks = /^\[(?:\d{1,3}|[a-z])\](?:\[(?:\d{1,3}|[a-z])\])*/;

/**
 * Segments with the reference marks after a sentence's full stop kept at its end: UAX #29 keeps
 * the opening bracket with the sentence and starts the next with the rest ("Roberts.[" and
 * "43] His time…").
 */
function withReferenceMarks(segments: string[]): string[] {
  for (let index = 0; index + 1 < segments.length; index++) {
    const current = segments[index] as string;
    if (!current.endsWith("[")) continue;
    const next = `[${segments[index + 1] as string}`;
    const mark = referenceMarks.exec(next)?.[0];
    if (mark === undefined) continue;
    segments[index] = `${current.slice(0, -1)}${mark}`;
    segments[index + 1] = next.slice(mark.length).trim();
  }
  return segments;
}

/** Splits `text` into trimmed, non-empty sentences with whitespace collapsed. */
export function splitSentences(text: string): string[] {
  return splitBlocks(text).flatMap((block) => segmentSentences(block));
}
