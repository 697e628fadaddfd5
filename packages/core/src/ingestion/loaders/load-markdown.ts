/**
 * Markdown loading: one section per heading (ATX `#` headings outside code fences, and setext
 * underlines), whose `section` metadata is the heading path ("Chapter > Topic"). The title is
 * the first level-1 heading, else the file name.
 */

import { stripExtension } from "./load-pdf.js";
import { decodeChecked } from "./load-plain-text.js";
import type { FileInput, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";

/**
 * Loads a `.md` file.
 *
 * @throws {DocqaError} `empty_file`, `invalid_encoding`, `file_too_large`.
 */
export async function loadMarkdown(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const sections = markdownSections(text);
  const title = sections.find((section) => section.level === 1)?.heading ?? stripExtension(file.name);
  return {
    documents: [
      {
        idSuffix: "",
        title,
        metadata: { encoding },
        sections: sections.map(
          ({ text: sectionText, path }): LoadedSection => ({ text: sectionText, metadata: path ? { section: path } : {} }),
        ),
      },
    ],
    warnings,
  };
}

interface MarkdownSection {
  heading: string;
  level: number;
  path: string;
  text: string;
}

/** Splits Markdown at headings; each section keeps its heading line as its first line. */
export function markdownSections(markdown: string): MarkdownSection[] {
  const lines = markdown.split("\n");
  const sections: MarkdownSection[] = [];
  const path: string[] = [];
  let current: MarkdownSection = { heading: "", level: 0, path: "", text: "" };
  let body: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const text = body.join("\n").trim();
    if (text !== "") sections.push({ ...current, text });
    body = [];
  };
  const startSection = (heading: string, level: number, headingLine: string) => {
    flush();
    path.splice(level - 1);
    path[level - 1] = heading;
    current = { heading, level, path: path.filter(Boolean).join(" > "), text: "" };
    body.push(headingLine);
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fenceMatch = /^\s*(```|~~~)/.exec(line);
    if (fenceMatch) {
      if (fence === undefined) fence = fenceMatch[1];
      else if (fenceMatch[1] === fence) fence = undefined;
      body.push(line);
      continue;
    }
    if (fence !== undefined) {
      body.push(line);
      continue;
    }
    const atx = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      startSection((atx[2] as string).trim(), (atx[1] as string).length, line);
      continue;
    }
    const next = lines[index + 1];
    if (
      next !== undefined &&
      line.trim() !== "" &&
      /^ {0,3}(=+|-+)\s*$/.test(next) &&
      !/^\s*[-*+|>]/.test(line) &&
      body.at(-1)?.trim() === ""
    ) {
      startSection(line.trim(), next.trim().startsWith("=") ? 1 : 2, `${line}\n${next}`);
      index++;
      continue;
    }
    body.push(line);
  }
  flush();
  return sections;
}
