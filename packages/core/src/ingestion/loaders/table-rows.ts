/**
 * The text of a table row as every loader writes it (CSV, Markdown pipe tables, DOCX tables):
 * `Name: value; Name: value`, one row per chunk, so that a question about a row retrieves that row
 * and the answer reads its cells under their column names (`answering/answer-units.ts` parses the
 * same form back into cells).
 */

/** A cell on one line, trimmed (line breaks inside a cell become spaces). */
export function oneLine(cell: string): string {
  return cell.replace(/\s+/g, " ").trim();
}

/** The column names of a header row: each cell on one line, `Column n` (1-based) for an empty one. */
export function columnNames(header: readonly string[]): string[] {
  return header.map((cell, index) => oneLine(cell) || `Column ${index + 1}`);
}

/** `Name: value; Name: value` for the non-empty cells of a row (a cell past the header is named `Column n`). */
export function renderRow(names: readonly string[], row: readonly string[]): string {
  return row
    .flatMap((cell, index) => {
      const value = oneLine(cell);
      return value === "" ? [] : [`${names[index] ?? `Column ${index + 1}`}: ${value}`];
    })
    .join("; ");
}
