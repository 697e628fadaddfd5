/**
 * Answer units: the pieces of the retrieved context that an answer can quote. A chunk is read as
 * the structure its loader wrote, and each piece becomes one unit:
 *
 * - `sentence`: a sentence of prose (paragraphs, list items), with the heading it sits under.
 *   Hard-wrapped lines of a paragraph (PDF, plain text) are joined before sentences are split, so
 *   a sentence is never cut at a line break; a heading line (a Markdown heading, or a short line
 *   in capitals or title case with no closing punctuation, as PDF and DOCX headings are extracted)
 *   is a `heading` unit of its own and never glued to the sentence under it.
 * - `cell`: one field of a structured record: a cell of a table row (`Column: value; Column:
 *   value`, as the CSV, Markdown and DOCX loaders render rows with their header) or a `key: value`
 *   line of a record (a JSON record, front matter). Every cell keeps its row's other cells, so an
 *   answer reads the value of the column asked for in the row of the entity asked about.
 * - `command`: a shell command (a line after a `$`, `PS>` or `C:\>` prompt, or a fenced block
 *   marked as a shell session or script), with the lead-in sentence before it and the heading it
 *   sits under: the answer to "how do I …" is the command, introduced by its lead-in. Other code
 *   (a program listing, a command's output) is a `code` unit, quoted only as context.
 *
 * Units are built once per context and scored by `rankEvidence`.
 */
import { joinWrappedLines, segmentSentences, stripMarkup } from "../text/split-sentences.js";
import { type AnswerContext, type ContextEntry, sectionPathOf } from "./answer-context.js";

/** What a unit is. */
export type UnitKind = "sentence" | "heading" | "cell" | "command" | "code";

/** One field of a row or record. */
export interface RecordCell {
  key: string;
  value: string;
}

/** A table row or a record: its cells in order, and the name of its record when the loader gave one. */
export interface RecordRow {
  cells: RecordCell[];
  /**
   * The entity a record is about when its document names it (a JSON record titled by its `name`
   * or `title`: "Hydrogen" in "Hydrogen (elements)"); undefined for table rows, whose entity is
   * the cell the question names.
   */
  name?: string | undefined;
  /** Whether the row is a table row (several cells on one line) rather than a record of `key: value` lines. */
  tableRow: boolean;
}

/** A value ending as a sentence ends: a letter or digit, then `.`, `!` or `?`, then closing quotes or brackets. */
const sentenceEnd = /[\p{L}\p{N}][.!?]["'\u2019\u201d)\]]*$/u;

/**
 * Whether one of the row's values is prose (words, not one token, that hold more than one
 * sentence or end as a sentence does) rather than an attribute value ("1940-03-26", "Blond Hair",
 * "[Ar] 3d6 4s2", a URL slug such as `Dwight_D._Eisenhower`, whose dots end no sentence). A record
 * with prose (a JSON line's `text`, a description) answers by what its text says, so which of its
 * fields a question names tells nothing of whether it answers.
 */
export function holdsProse(row: RecordRow): boolean {
  return row.cells.some(({ value }) => {
    const text = value.trim();
    return /\s/.test(text) && (sentenceEnd.test(text) || segmentSentences(text).length > 1);
  });
}

/** A piece of the context an answer can quote. */
export interface AnswerUnit {
  kind: UnitKind;
  /** The context entry (chunk) it comes from. */
  entry: ContextEntry;
  /** The entry's rank in the context, 0-based. */
  rank: number;
  /** Position of the unit among its entry's units, 0-based. */
  position: number;
  /**
   * The unit's own text: a sentence, a heading, a cell as `key: value`, or a command's lines
   * joined with line breaks.
   */
  text: string;
  /** The heading the unit sits under (in the chunk, else the last part of its `section` metadata); undefined when none. */
  heading?: string | undefined;
  /** For a `cell`: its row or record. */
  row?: RecordRow | undefined;
  /** For a `cell`: the cell itself (one of `row.cells`). */
  cell?: RecordCell | undefined;
  /** For a `command`: the sentence before it that introduces it, when it ends with a colon or directly precedes it. */
  leadIn?: string | undefined;
  /**
   * For a `sentence`: true when it is a `key: value` line of prose, not of a record ("Default: `512`"
   * under the heading `MAX_CONNECTIONS`): a property of what its heading names, so `rankEvidence`
   * reads the heading as part of what it states. Undefined otherwise.
   */
  property?: true | undefined;
}

/**
 * Share of a chunk's lines that must be single `key: value` lines for the chunk to be read as a
 * record (a rendered JSON record, front matter) rather than prose that happens to contain a
 * "Note: …" line: half, so a record with one long prose field (`text:` and its paragraphs) is
 * still a record while a paragraph with one labelled line is not.
 */
export const recordLineShare = 0.5;

/**
 * Longest heading line read from text without markup (PDF, DOCX, plain text), in words (tokens
 * holding a letter; numbers and dashes are not counted): a
 * heading names a topic, a sentence states something. Twelve words covers the long headings of
 * government handbooks ("ROLE OF THE UNITED STATES TRUSTEE IN CHAPTER 13 CASES").
 */
export const maximumHeadingWords = 12;

/**
 * Share of a chunk's line width under which a line ends its paragraph: text extracted from PDFs
 * and plain-text files is hard-wrapped near one width, so a line much shorter than the others
 * was broken on purpose (a paragraph's last line, a title, an infobox field), unless the next
 * line starts in lower case. Typesetting leaves the last line of a paragraph shorter than the
 * rest; 60 % of the width (the 90th percentile of the chunk's line lengths) separates the two on
 * the shared PDF and text documents.
 */
export const shortLineShare = 0.6;

/** Lines of a code block kept in a `command` unit: a how-to's command, not a whole program listing. */
export const maximumCommandLines = 6;

const fieldPattern = /^([\p{L}\p{N}_.\-/ ()#%]{1,60}?):\s+(\S.*)$/u;
/** Longest column name, in characters, read as a key in a rendered row (chosen: a spreadsheet's longest headers are sentences, "Percentage Of Drivers Involved In Fatal Collisions Who Had Not Been Involved In Any Previous Accidents" is 101). */
export const maximumColumnNameLength = 200;
/** A cell of a row a loader rendered: its key is a column name as the table writes it. */
const renderedCellPattern = new RegExp(`^([^;]{1,${maximumColumnNameLength}}?):\\s+(\\S.*)$`, "u");
const labelPattern = /^([\p{L}\p{N}_.\-/ ()#%]{1,60}):\s*$/u;
const fencePattern = /^\s*(```|~~~)/;
const promptPattern = /^\s*(\$|PS>|C:\\>)\s?\S/;
/** A fence whose info string names a shell or a shell session (GitHub Linguist's names for them). */
const shellFence = /^\s*(```|~~~)\s*(console|shell|sh|bash|zsh|fish|powershell|pwsh|ps1|cmd|bat|batch|shell-session|terminal)\b/i;
/** Whether a line is a shell command after a prompt (`$`, `PS>`, `C:\>`). */
const isPromptLine = (line: string) => promptPattern.test(line);
/**
 * A run-in heading: a paragraph that opens with two or more words in capitals and goes on with a
 * capitalised word in lower case ("MULTIPLE FILINGS The standing trustee should…", as a DOCX or PDF
 * heading set in the paragraph's own line is extracted). One word in capitals is an acronym or an
 * emphasis, not a heading. At most {@link maximumHeadingWords} words, as any heading.
 */
const runInHeading = new RegExp(
  `^((?:[\\p{Lu}\\p{N}\\u2013\\u2014-][\\p{Lu}\\p{N}'\\u2019&.,:\\u2013-]*\\s+){1,${maximumHeadingWords - 1}}\\p{Lu}[\\p{Lu}'\\u2019&,:-]+\\s+)(?=\\p{Lu}\\p{Ll})`,
  "u",
);
const markdownHeading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
/** A list item's marker; an ordered item's number has at most three digits (a year that opens a wrapped line is none). */
const listItem = /^\s*([-*+•]|\d{1,3}[.)])\s+/;

/** The units of every entry of `context`, in context order. */
export function answerUnits(context: AnswerContext): AnswerUnit[] {
  return context.entries.flatMap((entry, rank) => unitsOfEntry(entry, rank));
}

/** A parsed block of a chunk. */
type Block =
  | { type: "heading"; text: string }
  | { type: "prose"; text: string }
  | { type: "code"; lines: string[]; shell: boolean }
  | { type: "row"; cells: RecordCell[] }
  | { type: "field"; cell: RecordCell }
  | { type: "label"; key: string };

/** The units of one chunk. */
export function unitsOfEntry(entry: ContextEntry, rank: number): AnswerUnit[] {
  const blocks = parseBlocks(entry.text, { renderedRows: holdsRenderedRows(entry.chunk.metadata) });
  const fieldLines = blocks.filter((block) => block.type === "field" || block.type === "label").length;
  const lineCount = blocks.length;
  const isRecord = fieldLines >= 2 && fieldLines >= lineCount * recordLineShare;
  const sectionHeading = lastSectionHeading(entry.chunk.metadata);
  const units: AnswerUnit[] = [];
  const push = (unit: Omit<AnswerUnit, "entry" | "rank" | "position">) => units.push({ ...unit, entry, rank, position: units.length });

  const record: RecordRow | undefined = isRecord ? { cells: [], name: recordName(entry.chunk.title), tableRow: false } : undefined;
  let heading = sectionHeading;
  let lastSentence: string | undefined;
  for (const block of blocks) {
    switch (block.type) {
      case "heading":
        heading = block.text;
        push({ kind: "heading", text: block.text, heading: sectionHeading === block.text ? undefined : sectionHeading });
        lastSentence = undefined;
        break;
      case "label":
        // A key alone on its line labels the prose under it (`text:` of a JSON record).
        if (!isRecord) push({ kind: "sentence", text: `${block.key}:`, heading });
        else heading = block.key;
        lastSentence = `${block.key}:`;
        break;
      case "field":
        if (record) {
          record.cells.push(block.cell);
          push({ kind: "cell", text: `${block.cell.key}: ${block.cell.value}`, heading: undefined, row: record, cell: block.cell });
        } else {
          const sentences = segmentSentences(`${block.cell.key}: ${block.cell.value}`);
          for (const sentence of sentences) {
            push({ kind: "sentence", text: sentence, heading, ...(sentences.length === 1 && heading ? { property: true as const } : {}) });
            lastSentence = sentence;
          }
        }
        break;
      case "row": {
        const row: RecordRow = { cells: block.cells, tableRow: true };
        for (const cell of block.cells) push({ kind: "cell", text: `${cell.key}: ${cell.value}`, heading, row, cell });
        break;
      }
      case "code": {
        const lines = block.lines.slice(0, maximumCommandLines);
        push({ kind: block.shell ? "command" : "code", text: lines.join("\n"), heading, leadIn: lastSentence });
        lastSentence = undefined;
        break;
      }
      case "prose":
        for (const sentence of segmentSentences(block.text)) {
          push({ kind: "sentence", text: sentence, heading });
          lastSentence = sentence;
        }
        break;
    }
  }
  return units;
}

/**
 * Cuts a chunk's text into blocks. Markup that is not prose is stripped first (HTML, images, link
 * targets); fenced code and prompt lines are code; Markdown headings and heading-like lines are
 * headings; a line of several `; `-separated `key: value` cells is a table row, a Markdown pipe
 * table's rows are rows under its header; a single `key: value` line is a field; other lines are
 * prose, with wrapped lines of one paragraph joined (a word hyphenated at a line break mended:
 * {@link joinWrappedLines}).
 */
export function parseBlocks(text: string, options: { renderedRows?: boolean } = {}): Block[] {
  const blocks: Block[] = [];
  const lines = text.split(/\r?\n/);
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) {
      const text = joinWrappedLines(paragraph).replace(/\s+/g, " ").trim();
      const runIn = runInHeading.exec(text);
      if (runIn) blocks.push({ type: "heading", text: (runIn[1] as string).trim() });
      blocks.push({ type: "prose", text: runIn ? text.slice((runIn[1] as string).length) : text });
    }
    paragraph = [];
  };
  let code: { lines: string[]; shell: boolean } | undefined;
  let pipeHeader: string[] | undefined;
  const width = lineWidth(lines);
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index] as string;
    if (fencePattern.test(raw)) {
      if (code) {
        if (code.lines.length > 0) blocks.push({ type: "code", lines: code.lines, shell: code.shell || code.lines.some(isPromptLine) });
        code = undefined;
      } else {
        flush();
        code = { lines: [], shell: shellFence.test(raw) };
      }
      continue;
    }
    if (code) {
      if (raw.trim() !== "") code.lines.push(raw.trimEnd());
      continue;
    }
    const line = raw.trim();
    if (line === "") {
      flush();
      pipeHeader = undefined;
      continue;
    }
    if (line.startsWith("|") && line.endsWith("|")) {
      flush();
      const cells = line
        .slice(1, -1)
        .split("|")
        .map((cell) => stripMarkup(cell).replace(/\s+/g, " ").trim());
      const next = lines[index + 1]?.trim() ?? "";
      if (!pipeHeader && /^\|?\s*:?-{2,}/.test(next)) {
        pipeHeader = cells;
        index++;
        continue;
      }
      if (pipeHeader && !/^:?-{2,}:?$/.test(cells[0] ?? "")) {
        const header = pipeHeader;
        const row = cells
          .map((value, column) => ({ key: header[column] || `Column ${column + 1}`, value }))
          .filter((cell) => cell.value !== "");
        if (row.length > 0) blocks.push({ type: "row", cells: row });
        continue;
      }
      paragraph.push(cells.join(" "));
      flush();
      continue;
    }
    pipeHeader = undefined;
    if (isPromptLine(line)) {
      flush();
      blocks.push({ type: "code", lines: [line], shell: true });
      continue;
    }
    const heading = markdownHeading.exec(line);
    if (heading) {
      flush();
      const headingText = stripMarkup(heading[1] as string).trim();
      if (headingText !== "") blocks.push({ type: "heading", text: headingText });
      continue;
    }
    const cleaned = stripMarkup(line).trim();
    if (cleaned === "") continue;
    const row = tableRow(cleaned, options.renderedRows === true);
    if (row) {
      flush();
      blocks.push({ type: "row", cells: row });
      continue;
    }
    const label = labelPattern.exec(cleaned);
    if (label && paragraph.length === 0) {
      blocks.push({ type: "label", key: (label[1] as string).trim() });
      continue;
    }
    const field = fieldPattern.exec(cleaned);
    if (field && paragraph.length === 0 && !listItem.test(line) && isFieldKey(field[1] as string)) {
      blocks.push({ type: "field", cell: { key: (field[1] as string).trim(), value: (field[2] as string).trim() } });
      continue;
    }
    if (listItem.test(line)) {
      flush();
      paragraph.push(cleaned.replace(listItem, ""));
      continue;
    }
    if (isHeadingLine(cleaned, lines[index + 1]?.trim(), paragraph.length === 0) || isQuestionLine(cleaned, paragraph.length === 0)) {
      flush();
      blocks.push({ type: "heading", text: cleaned });
      continue;
    }
    paragraph.push(cleaned);
    // A short line ends its paragraph (see shortLineShare), unless the next line continues its sentence.
    const next = lines[index + 1]?.trim() ?? "";
    if (line.length < width * shortLineShare && !/^\p{Ll}/u.test(next)) flush();
  }
  if (code && code.lines.length > 0) blocks.push({ type: "code", lines: code.lines, shell: code.shell || code.lines.some(isPromptLine) });
  flush();
  return blocks;
}

/** The width of a chunk's wrapped lines: the 90th percentile of its non-empty lines' lengths. */
function lineWidth(lines: readonly string[]): number {
  const lengths = lines
    .map((line) => line.trim().length)
    .filter((length) => length > 0)
    .sort((left, right) => left - right);
  return lengths[Math.floor((lengths.length - 1) * 0.9)] ?? 0;
}

/**
 * Whether a chunk holds a table's rows as the loaders render them (`Name: value; Name: value`):
 * CSV row sections (`rows`), and the rows of DOCX and PDF tables (`row`).
 */
export function holdsRenderedRows(metadata: Readonly<Record<string, unknown>>): boolean {
  return metadata.rows !== undefined || metadata.row !== undefined;
}

/**
 * A table row as the loaders render one: at least two `; `-separated cells, each `key: value`
 * (`Film: Mad Max: Fury Road (2015); RottenTomatoes: 97`). A cell whose text has no key of its own
 * continues the previous cell's value (a value that itself holds `; `). In a chunk of rendered rows
 * (`rendered`) a key is any column name (up to {@link maximumColumnNameLength} characters, as long
 * as a spreadsheet writes it); elsewhere it must read as a field name ({@link isFieldKey}), not as
 * a sentence's opening clause.
 */
function tableRow(line: string, rendered: boolean): RecordCell[] | undefined {
  if (!line.includes("; ")) return undefined;
  const cells: RecordCell[] = [];
  for (const part of line.split("; ")) {
    const field = (rendered ? renderedCellPattern : fieldPattern).exec(part);
    if (field && (rendered || isFieldKey(field[1] as string)))
      cells.push({ key: (field[1] as string).trim(), value: (field[2] as string).trim() });
    else if (cells.length > 0) (cells.at(-1) as RecordCell).value += `; ${part}`;
    else return undefined;
  }
  return cells.length >= 2 ? cells : undefined;
}

/**
 * Whether `key` reads as a field name rather than the start of a sentence: at most six words, and
 * not a sentence's opening clause ("Note", "Warning" and other one-word labels are field names
 * too, which is harmless: a record must be mostly such lines to be read as one).
 */
function isFieldKey(key: string): boolean {
  const words = key.trim().split(/\s+/);
  return words.length <= 6 && !/[.!?]$/.test(key.trim());
}

/**
 * Whether a line of text without markup is a heading: at most {@link maximumHeadingWords} words,
 * no closing punctuation, written in capitals ("ROLE OF THE UNITED STATES TRUSTEE") or in title
 * case ("Vacation and Leave Policy"), starting a paragraph, and followed by a line that starts a
 * sentence (a capital letter or a digit) or by nothing.
 */
function isHeadingLine(line: string, next: string | undefined, startsParagraph: boolean): boolean {
  if (!startsParagraph) return false;
  const words = line.split(/\s+/);
  // Words hold a letter: a chapter's number or a dash is none ("CHAPTER 2 – APPOINTMENT, …").
  if (words.filter((word) => /\p{L}/u.test(word)).length > maximumHeadingWords || /[.,;:!?)"'\u201d]$/.test(line)) return false;
  if (next !== undefined && next !== "" && !/^[\p{Lu}\p{N}]/u.test(next)) return false;
  const letters = line.replace(/[^\p{L}]/gu, "");
  if (letters.length < 2) return false;
  if (letters === letters.toUpperCase()) return true;
  const significant = words.filter((word) => /^\p{L}/u.test(word) && word.length > 3);
  return words.length >= 2 && significant.length > 0 && significant.every((word) => /^\p{Lu}/u.test(word));
}

/**
 * Whether `line` is a question standing on its own line at the start of a paragraph, as a FAQ
 * writes one ("How do I reset my password?" over its answer): it names what the lines under it
 * answer, like a heading, and is no answer itself. One sentence of at most twice
 * {@link maximumHeadingWords} words.
 */
function isQuestionLine(line: string, startsParagraph: boolean): boolean {
  if (!startsParagraph || !line.endsWith("?") || /[.!?]\s/.test(line)) return false;
  return line.split(/\s+/).filter((word) => /\p{L}/u.test(word)).length <= 2 * maximumHeadingWords;
}

/** The last heading of a `section` metadata path ("Chapter > Topic" → "Topic"). */
function lastSectionHeading(metadata: Readonly<Record<string, unknown>>): string | undefined {
  return sectionPathOf(metadata)?.split(" > ").at(-1)?.trim() || undefined;
}

/**
 * The entity a record's document names: a JSON record's document is titled by its `name` or
 * `title` and its file, "Hydrogen (elements)"; the part before the file is the record's name.
 */
function recordName(title: string): string | undefined {
  const named = /^(.*\S)\s+\([^()]+\)$/.exec(title.trim());
  return named ? named[1] : undefined;
}

/**
 * The text naming a row's entity: the given cell (the one the question names), else the record's
 * name, else the row's first cell.
 */
export function subjectText(row: RecordRow, subject: RecordCell | undefined): string | undefined {
  if (subject) return subject.value;
  if (row.name) return row.name;
  return row.cells[0]?.value;
}
