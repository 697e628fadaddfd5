/**
 * Sentence splitting for the extractive answerer. Text is first cut into blocks (paragraphs,
 * Markdown headings, list items, table rows; hard-wrapped lines of a paragraph are joined), then
 * each block is segmented with the platform's Unicode sentence segmentation
 * (`Intl.Segmenter`, UAX #29).
 */

import { htmlToText } from "./html-to-text.js";

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
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1");
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
    if (current.length > 0) blocks.push(current.join(" "));
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

/** Splits `text` into trimmed, non-empty sentences with whitespace collapsed. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const block of splitBlocks(text)) {
    for (const segment of segmenter.segment(block)) {
      const sentence = segment.segment.replace(/\s+/g, " ").trim();
      if (sentence !== "") sentences.push(sentence);
    }
  }
  return sentences;
}
