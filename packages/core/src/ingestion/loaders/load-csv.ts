/**
 * CSV loading with `papaparse`. The delimiter (comma, semicolon, tab, pipe) is sniffed so that the
 * header and the rows agree; the first row is the header, unless title rows precede it
 * ({@link titleRows}: a caption that fills one cell). Each row is rendered with its column
 * names (`Film: Avengers: Age of Ultron (2015); RottenTomatoes: 74`), so that it reads on its own,
 * and each row is a section of its own, indexed as one chunk (a row longer than `CHUNK_SIZE` is
 * split like text): the row is the unit a question about one entity retrieves and the answer
 * quotes (docs/ingestion.md). Section metadata gives the row's number, counting the header as
 * row 1 (`rows: "2"`). A file truncated inside its last row keeps its complete rows, with a warning.
 */
import Papa from "papaparse";
import { DocqaError } from "../../errors/docqa-error.js";
import { stripExtension } from "./load-pdf.js";
import { decodeChecked } from "./load-plain-text.js";
import type { FileInput, FileLoader, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";
import { columnNames, renderRow } from "./table-rows.js";

/** Delimiters tried, in order of preference when several fit. */
const delimiters = [",", ";", "\t", "|"] as const;

/** Rows read to decide the delimiter when papaparse's guess disagrees with the header. */
const sniffRows = 200;

/**
 * Loads a `.csv` file.
 *
 * @throws {DocqaError} `empty_file`, `invalid_encoding`, `file_too_large`; `csv_ragged_rows` when
 *   a row has more or fewer fields than the header (a short last row of a file that does not end
 *   with a line break is a truncation instead: dropped, with a warning); `corrupt_file` for a
 *   malformed quote inside the file, or an unterminated quote that leaves no complete data row.
 */
export async function loadCsv(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const parsed = parseWithSniffedDelimiter(text);
  const delimiter = parsed.meta.delimiter;
  const table = parsed.data;
  const kept = keepCompleteRows(file.name, text, table, parsed.errors, delimiter);
  if (kept.warning) warnings.push(kept.warning);
  const complete = table.slice(0, kept.rows);
  const captionRows = titleRows(complete);
  const caption = complete
    .slice(0, captionRows)
    .map((row) => row.filter((cell) => cell.trim() !== "").join(" "))
    .join(" ");
  const [header, ...rows] = complete.slice(captionRows);
  if (!header || header.every((cell) => cell.trim() === ""))
    throw new DocqaError("empty_file", `${file.name} is empty`, { component: "ingestion" });
  const ragged = rows.flatMap((row, index) => (row.length === header.length ? [] : [index + 2 + captionRows]));
  if (ragged.length > 0) {
    throw new DocqaError(
      "csv_ragged_rows",
      `${file.name}: ${ragged.length} row(s) have a different number of fields than the header's ${header.length} (rows ${ragged.slice(0, 5).join(", ")}${ragged.length > 5 ? ", ..." : ""})`,
      { component: "ingestion" },
    );
  }
  const names = columnNames(header);
  const sections = rowSections(
    rows.map((row) => renderRow(names, row)),
    captionRows,
  );
  if (sections.length === 0)
    sections.push({ text: `Columns: ${names.join("; ")}`, metadata: { rows: `${captionRows + 1}` }, preChunked: true });
  return {
    documents: [
      {
        idSuffix: "",
        title: caption === "" ? stripExtension(file.name) : `${stripExtension(file.name)}: ${caption}`,
        metadata: { encoding, columns: header.length, rows: rows.length, delimiter, ...(caption === "" ? {} : { caption }) },
        sections,
      },
    ],
    warnings,
  };
}

/**
 * Parses with the delimiter papaparse guesses, unless that guess makes the first rows disagree
 * with the header while another candidate makes them agree and splits the header into at least
 * as many fields (a one-column file whose header is `"Name, full"` and whose values hold
 * semicolons, for example): then the agreeing candidate with the most columns wins, the earliest
 * of {@link delimiters} on a tie.
 */
function parseWithSniffedDelimiter(text: string): Papa.ParseResult<string[]> {
  const guessed = Papa.parse<string[]>(text, { skipEmptyLines: "greedy", delimitersToGuess: [...delimiters] });
  if (consistent(guessed.data.slice(0, sniffRows))) return guessed;
  // The header decides: a candidate that splits it into fewer fields than the guess does would
  // hide a truly ragged file.
  const guessedColumns = guessed.data[0]?.length ?? 0;
  let best: { delimiter: string; columns: number } | undefined;
  for (const delimiter of delimiters) {
    if (delimiter === guessed.meta.delimiter) continue;
    const sample = Papa.parse<string[]>(text, { skipEmptyLines: "greedy", delimiter, preview: sniffRows });
    const columns = sample.data[0]?.length ?? 0;
    if (consistent(sample.data) && columns >= guessedColumns && (best === undefined || columns > best.columns))
      best = { delimiter, columns };
  }
  return best ? Papa.parse<string[]>(text, { skipEmptyLines: "greedy", delimiter: best.delimiter }) : guessed;
}

/**
 * Whether every row has the header's field count. The last row is left out when a quote is left
 * open, as papaparse then folds the rest of the file into it.
 */
function consistent(rows: readonly string[][]): boolean {
  const width = rows[0]?.length;
  return (
    width !== undefined &&
    rows.slice(1, -1).every((row) => row.length === width) &&
    (rows.length < 2 || (rows.at(-1)?.length ?? 0) <= width)
  );
}

/**
 * How many rows of `table` (header included) to keep, and a warning when a damaged tail is dropped:
 *
 * - an unterminated quote (papaparse `MissingQuotes`, which swallows the rest of the file): the
 *   rows before the one it opens in are kept;
 * - a last row with fewer fields than the header in a file that does not end with a line break
 *   (a file cut mid-row): that row is dropped.
 *
 * @throws {DocqaError} `corrupt_file` for a malformed quote elsewhere, or when no data row would remain.
 */
function keepCompleteRows(
  name: string,
  text: string,
  table: readonly string[][],
  errors: readonly Papa.ParseError[],
  delimiter: string,
): { rows: number; warning?: string } {
  const quoting = errors.filter((error) => error.type === "Quotes");
  const unterminated = quoting.find((error) => error.code === "MissingQuotes");
  const malformed = quoting.find((error) => error.code !== "MissingQuotes" && error.row !== unterminated?.row);
  if (malformed) {
    throw new DocqaError("corrupt_file", `${name}: ${malformed.message} at row ${(malformed.row ?? 0) + 1}`, { component: "ingestion" });
  }
  const headerWidth = table[0]?.length ?? 0;
  const last = table.at(-1);
  const cut =
    unterminated?.row ??
    (table.length > 1 && last !== undefined && last.length < headerWidth && !/[\r\n]$/.test(text) ? table.length - 1 : undefined);
  if (cut === undefined) return { rows: table.length };
  const line = lineOfRow(text, delimiter, cut);
  const reason = unterminated ? `a quote opened on line ${line} is never closed` : `its last row (line ${line}) is cut short`;
  if (cut < 2) {
    throw new DocqaError("corrupt_file", `${name}: ${reason}, and no complete data row comes before it`, { component: "ingestion" });
  }
  return {
    rows: cut,
    warning: `${name} stops at line ${line} (truncated file: ${reason}); kept the ${cut - 1} complete row(s) before it and dropped the rest`,
  };
}

/** 1-based line on which row `rowIndex` (0 = header, empty lines skipped) starts. */
function lineOfRow(text: string, delimiter: string, rowIndex: number): number {
  let start = 0;
  let index = 0;
  Papa.parse<string[]>(text, {
    delimiter,
    skipEmptyLines: "greedy",
    step: (result, parser) => {
      if (index === rowIndex) {
        parser.abort();
        return;
      }
      index++;
      start = result.meta.cursor;
    },
  });
  while (start < text.length && /\s/.test(text[start] as string)) start++;
  let line = 1;
  for (let position = text.indexOf("\n"); position !== -1 && position < start; position = text.indexOf("\n", position + 1)) line++;
  return line;
}

/**
 * One section per rendered row, numbered as in the file (the header is row 1, after `captionRows`
 * title rows); empty rows are skipped.
 */
function rowSections(rendered: readonly string[], captionRows: number): LoadedSection[] {
  return rendered.flatMap((line, index) =>
    line === "" ? [] : [{ text: line, metadata: { rows: `${index + 2 + captionRows}` }, preChunked: true }],
  );
}

/**
 * How many leading rows are a title above the header, not the header: rows of a table of two or
 * more columns that fill at most one cell, followed by a row that fills more ("Stanley Cups,,"
 * above "Team,Location,Stanley Cups"), as a spreadsheet's caption is exported to CSV. Their text
 * becomes the table's caption (in its title and `metadata.caption`).
 */
function titleRows(table: readonly string[][]): number {
  const filled = (row: readonly string[]) => row.filter((cell) => cell.trim() !== "").length;
  let count = 0;
  while (count < table.length - 1) {
    const row = table[count] as string[];
    if (row.length < 2 || filled(row) > 1 || filled(table[count + 1] as string[]) <= filled(row)) break;
    count++;
  }
  return count;
}

/** The `.csv` loader, registered in `file-loaders.ts`. */
export const csvLoader: FileLoader<"csv"> = {
  format: "csv",
  aliases: [],
  load: (file, options) => loadCsv(file, options.limits),
};
