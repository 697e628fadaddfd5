/**
 * Tables on a PDF page, found from the positions of its text (a PDF has no table structure, only
 * glyphs placed on the page). The method is the "stream" mode of Tabula and Camelot, simplified:
 *
 * 1. Text pieces are grouped into lines by their baseline (within half the font size, so a
 *    superscript stays on its line), list bullets left out, and a line is cut into cells where the
 *    gap between two pieces is wider than {@link cellGapEms} times the font size (words in prose
 *    are about a quarter of an em apart; table columns are set apart by whitespace).
 * 2. Candidate runs are consecutive lines of two or more cells (or of one, right of the run's
 *    first column: a wrapped cell), cut where two lines are more than {@link maximumRowGapRatio}
 *    times the run's median line pitch apart (a running header above, a paragraph below). A part
 *    is a table when at least {@link minimumTableRows} of its lines have {@link minimumColumns} or
 *    more cells and its cells are short (median words per cell at most
 *    {@link maximumMedianCellWords}; lines of prose set in page columns have more).
 * 3. Its columns are the horizontal spans of the cells of its fullest lines; every cell is placed
 *    in the column it overlaps most (a cell over two columns closer than a cell gap, piece by
 *    piece). A column whose pieces come in the content stream before or after all the others' is
 *    another flow of text beside the table and is left out. A line whose every cell opens in
 *    lower case continues the line above. The header is the first line with the lines up to the
 *    first full one (a header cell wrapped onto two lines: "Corrosion" over "rate (mm/year)"), at
 *    most {@link maximumHeaderLines}; every later line is a row, and a line whose first cell is
 *    empty continues the row above it (a wrapped cell).
 * 4. One or two lines just above the table, the first opening with "Table" and a number, are its
 *    caption (an English caption only).
 *
 * The loader (`load-pdf.ts`) then writes each row as CSV rows are written (`Name: value; …`,
 * `table-rows.ts`) and leaves the table's pieces out of the page's running text.
 */

/** A piece of text placed on a page (pdf.js `TextItem`), in PDF user-space units (y grows upwards). */
export interface PositionedText {
  /** The text. */
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline. */
  y: number;
  /** Advance width. */
  width: number;
  /** Font size (the text matrix's vertical scale); 0 for pdf.js's empty end-of-line markers. */
  height: number;
}

/** A table found on a page. */
export interface PdfTable {
  /** The caption line above it ("Table 1 Potentiodynamic polarization data…"), when there is one. */
  caption: string | undefined;
  /** Column names (header cells, a wrapped one joined with a space). */
  header: string[];
  /** Data rows, one cell per column ("" when empty). */
  rows: string[][];
  /** Indexes (into the page's pieces) of the pieces the table and its caption were read from. */
  pieces: Set<number>;
}

/** Gap between two pieces of a line, in ems of its font size, above which they are in different cells (chosen: word spaces are about 0.25 em; the table columns of the shared PDFs are 2 em or more apart). */
export const cellGapEms = 1;
/** Fewest cells of a table's full lines. Two-column layouts of prose would otherwise read as two-column tables. */
export const minimumColumns = 3;
/** Fewest lines with {@link minimumColumns} cells or more in a table (a header and two rows). */
export const minimumTableRows = 3;
/** Most lines of a header (a header cell wrapped onto three lines). */
export const maximumHeaderLines = 3;
/** Largest median number of words per cell of a table (chosen: cells of tables hold a value or a short label; a line of prose in a page column holds 8 words or more). */
export const maximumMedianCellWords = 4;
/** Largest gap between two lines of a table, in multiples of its median line pitch (a blank line ends it). */
export const maximumRowGapRatio = 2.5;

interface Cell {
  x0: number;
  x1: number;
  text: string;
  pieces: number[];
  /** The cell's pieces with their spans, for a cell that straddles columns. */
  parts: { x0: number; x1: number; text: string }[];
}

interface Line {
  y: number;
  cells: Cell[];
  pieces: number[];
}

/**
 * The tables of one page.
 *
 * @param pieces - the page's text pieces in content-stream order.
 * @returns the tables found, top to bottom; empty when there are none.
 */
export function findPdfTables(pieces: readonly PositionedText[]): PdfTable[] {
  const lines = pageLines(pieces);
  const tables: PdfTable[] = [];
  let index = 0;
  while (index < lines.length) {
    const { runs, end } = tableRuns(lines, index);
    for (const run of runs) {
      const table = readTable(lines.slice(run.start, run.end), lines.slice(Math.max(0, run.start - 2), run.start));
      if (table) tables.push(table);
    }
    index = end;
  }
  return tables;
}

/** The page's lines, top to bottom, each cut into cells. */
function pageLines(pieces: readonly PositionedText[]): Line[] {
  // A list's bullet is no cell: a two-column list would otherwise read as a table of three or four.
  const placed = pieces
    .map((piece, index) => ({ ...piece, index, text: piece.text.replace(/[\u0000-\u0008\u000b-\u001f]/g, "") }))
    .filter((piece) => piece.height > 0 && piece.text.trim() !== "" && !bulletPattern.test(piece.text.trim()));
  placed.sort((left, right) => right.y - left.y || left.x - right.x);
  const groups: (typeof placed)[] = [];
  /** The baseline of a group: its largest piece's (a superscript sits above it). */
  const baseline = (group: typeof placed) => group.reduce((largest, member) => (member.height > largest.height ? member : largest)).y;
  for (const piece of placed) {
    const group = groups.at(-1);
    const size = group ? Math.max(piece.height, ...group.map((member) => member.height)) : 0;
    if (group && Math.abs(baseline(group) - piece.y) <= size / 2) group.push(piece);
    else groups.push([piece]);
  }
  return groups.map((group) => {
    group.sort((left, right) => left.x - right.x);
    const size = Math.max(...group.map((piece) => piece.height));
    const cells: Cell[] = [];
    for (const piece of group) {
      const last = cells.at(-1);
      const gap = last === undefined ? Number.POSITIVE_INFINITY : piece.x - last.x1;
      if (last !== undefined && gap <= cellGapEms * size) {
        // Pieces that touch are one word ("icorr (A/cm" + "2"); a small gap is a space.
        last.text += gap > 0.15 * size && !last.text.endsWith(" ") ? ` ${piece.text.trimStart()}` : piece.text;
        last.x1 = Math.max(last.x1, piece.x + piece.width);
        last.pieces.push(piece.index);
        last.parts.push({ x0: piece.x, x1: piece.x + piece.width, text: piece.text });
      } else {
        const span = { x0: piece.x, x1: piece.x + piece.width };
        cells.push({ ...span, text: piece.text, pieces: [piece.index], parts: [{ ...span, text: piece.text }] });
      }
    }
    for (const cell of cells) cell.text = cell.text.replace(/\s+/g, " ").trim();
    return { y: baseline(group), cells, pieces: group.map((piece) => piece.index) };
  });
}

/**
 * The tables' runs among the lines from `start`: the longest run of lines that could be table
 * lines, cut where two lines are further apart than {@link maximumRowGapRatio} times the run's
 * median pitch (a running header above a table, a paragraph below it), each part kept when it
 * reads as a table. `end` is where the search goes on.
 */
function tableRuns(lines: readonly Line[], start: number): { runs: { start: number; end: number }[]; end: number } {
  const first = lines[start];
  if (first === undefined || first.cells.length < 2) return { runs: [], end: start + 1 };
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end] as Line;
    // A line of one cell continues the run only right of its first column (a wrapped cell).
    if (line.cells.length < 2 && !((line.cells[0]?.x0 ?? 0) > (first.cells[0] as Cell).x1)) break;
    end++;
  }
  const pitches = lines.slice(start + 1, end).map((line, index) => (lines[start + index] as Line).y - line.y);
  const limit = maximumRowGapRatio * median(pitches);
  const runs: { start: number; end: number }[] = [];
  let from = start;
  for (let index = start + 1; index <= end; index++) {
    if (index < end && (pitches[index - start - 1] as number) <= limit) continue;
    if (readsAsTable(lines.slice(from, index))) runs.push({ start: from, end: index });
    from = index;
  }
  return { runs, end };
}

/** Whether a run of lines has enough full lines of short cells to be a table. */
function readsAsTable(run: readonly Line[]): boolean {
  if (run.filter((line) => line.cells.length >= minimumColumns).length < minimumTableRows) return false;
  return median(run.flatMap((line) => line.cells.map((cell) => wordCount(cell.text)))) <= maximumMedianCellWords;
}

const wordCount = (text: string) => text.split(" ").filter((word) => word !== "").length;

/**
 * Reads a run of lines as a table: columns, header, rows; undefined when fewer than two rows remain.
 * `above` holds the (up to two) lines above the run, where its caption would be.
 */
function readTable(run: readonly Line[], above: readonly Line[]): PdfTable | undefined {
  const columnCount = Math.max(...run.map((line) => line.cells.length));
  const fullest = run.filter((line) => line.cells.length === columnCount);
  const columns = Array.from({ length: columnCount }, (_, column) => ({
    x0: Math.min(...fullest.map((line) => (line.cells[column] as Cell).x0)),
    x1: Math.max(...fullest.map((line) => (line.cells[column] as Cell).x1)),
  }));
  /** The pieces each column was read from. */
  const columnPieces = columns.map(() => [] as number[]);
  const placeLine = (line: Line): string[] => {
    const values: string[] = columns.map(() => "");
    const put = (column: number, text: string) => {
      const value = text.replace(/\s+/g, " ").trim();
      if (value !== "") values[column] = values[column] === "" ? value : `${values[column]} ${value}`;
    };
    for (const cell of line.cells) {
      // A header cell over two columns set closer than a cell gap ("Base Model | Large Model"):
      // each of its pieces goes to its own column.
      const straddles = columns.filter((column) => Math.min(column.x1, cell.x1) - Math.max(column.x0, cell.x0) > 0).length > 1;
      if (straddles && cell.parts.length > 1) {
        cell.parts.forEach((part, index) => {
          const column = bestColumn(columns, part);
          put(column, part.text);
          columnPieces[column]?.push(cell.pieces[index] as number);
        });
      } else {
        const column = bestColumn(columns, cell);
        put(column, cell.text);
        columnPieces[column]?.push(...cell.pieces);
      }
    }
    return values;
  };
  const placed = run.map(placeLine);
  // A column whose pieces come in the content stream before or after all the others' is another
  // flow of text beside the table (the page's next column of prose set beside a figure), unless
  // every column is (a table written column by column): it is left out, and stays in the page's
  // running text.
  const ranges = columnPieces.map((indexes) => ({ low: Math.min(...indexes), high: Math.max(...indexes) }));
  const interleaved = ranges.map(({ low, high }, column) =>
    columnPieces.some((indexes, other) => other !== column && indexes.some((index) => index > low && index < high)),
  );
  const kept = columns.flatMap((_, column) => (interleaved[column] || !interleaved.some(Boolean) ? [column] : []));
  if (kept.length < minimumColumns) return undefined;
  const lines = placed.map((values) => kept.map((column) => values[column] as string));
  const cellsOf = (index: number) => (lines[index] as string[]).filter((value) => value !== "").length;
  // A line whose every cell opens in lower case continues the line above (cells wrapped onto
  // several lines, as text set in columns is): it is merged into it, and a run left with fewer
  // than two rows is no table.
  const merged: { values: string[]; cells: number }[] = [];
  lines.forEach((values, index) => {
    const previous = merged.at(-1);
    const filled = values.filter((value) => value !== "");
    if (previous !== undefined && filled.every((value) => /^\p{Ll}/u.test(value))) {
      values.forEach((value, column) => {
        if (value !== "") previous.values[column] = previous.values[column] === "" ? value : `${previous.values[column]} ${value}`;
      });
    } else merged.push({ values: [...values], cells: cellsOf(index) });
  });
  // The header: the first line, and the lines after it up to the first full one when it is full
  // (a wrapped header cell); when it is not, up to and including the first full line if no cell
  // on the way is a number (a header written over several lines, "Display" over "File" over
  // "Source"), else the first line alone (a header with an empty corner over rows of figures).
  const full = (index: number) => (merged[index] as { cells: number }).cells === kept.length;
  const limit = Math.min(maximumHeaderLines, merged.length - 1);
  let headerEnd = 1;
  if (full(0)) {
    while (headerEnd < limit && !full(headerEnd)) headerEnd++;
  } else {
    let end = 1;
    while (end < limit && !full(end)) end++;
    const numeric = merged.slice(0, end + 1).some(({ values }) => values.some((value) => numberPattern.test(value)));
    if (end < limit + 1 && full(end) && !numeric) headerEnd = end + 1;
  }
  const header = kept.map((_, column) =>
    merged
      .slice(0, headerEnd)
      .map(({ values }) => values)
      .map((values) => values[column])
      .filter((value) => value !== "")
      .join(" "),
  );
  const rows: string[][] = [];
  for (const { values } of merged.slice(headerEnd)) {
    const previous = rows.at(-1);
    if (previous !== undefined && values[0] === "") {
      values.forEach((value, column) => {
        if (value !== "") previous[column] = previous[column] === "" ? value : `${previous[column]} ${value}`;
      });
    } else rows.push(values);
  }
  if (rows.length < minimumTableRows - 1) return undefined;
  const pieces = new Set(kept.flatMap((column) => columnPieces[column] as number[]));
  // The caption: the line above, or the two lines above when the first of them opens it ("Table 1" over its title).
  const opens = (line: Line) => /^table\s+[\w.-]+/i.test(line.cells[0]?.text ?? "");
  const captionLines = above.findIndex(opens) === -1 ? [] : above.slice(above.findIndex(opens));
  for (const line of captionLines) for (const piece of line.pieces) pieces.add(piece);
  const caption = captionLines.length === 0 ? undefined : captionLines.flatMap((line) => line.cells.map((cell) => cell.text)).join(" ");
  return { caption, header, rows, pieces };
}

/** A cell that is a number (a figure of a table's body, not a column name). */
const numberPattern = /^[-+\u2212]?[\d.,]+(?:[eE][-+]?\d+)?\s*%?$/;

/** List bullets and dashes standing alone. */
const bulletPattern = /^[\u2022\u25cf\u25cb\u25aa\u25a0\u25e6\u2023\u2043\u2219\u00b7\u27a2\uf0b7*–-]$/u;

/** The column `cell` overlaps most, or the nearest one. */
function bestColumn(columns: readonly { x0: number; x1: number }[], cell: { x0: number; x1: number }): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  columns.forEach((column, index) => {
    const overlap = Math.min(column.x1, cell.x1) - Math.max(column.x0, cell.x0);
    const score = overlap > 0 ? overlap : -Math.abs((column.x0 + column.x1) / 2 - (cell.x0 + cell.x1) / 2);
    if (score > bestScore) [best, bestScore] = [index, score];
  });
  return best;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
