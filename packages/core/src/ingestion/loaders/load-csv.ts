/**
 * CSV loading with `papaparse` (delimiter detected: comma, semicolon, tab, pipe): the first row is
 * the header; the rows are grouped into sections of at most `CHUNK_SIZE` characters, each
 * starting with the header line, so that a chunk is readable on its own. Section metadata gives
 * the 1-based data row range (`rows: "2-41"`).
 */
import Papa from "papaparse";
import { DocqaError } from "../../errors/docqa-error.js";
import { stripExtension } from "./load-pdf.js";
import { decodeChecked } from "./load-plain-text.js";
import type { FileInput, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";

/**
 * Loads a `.csv` file.
 *
 * @param chunkSize - target characters per section (`CHUNK_SIZE`).
 * @throws {DocqaError} `empty_file`, `invalid_encoding`, `file_too_large`; `csv_ragged_rows` when
 *   a row has more or fewer fields than the header; `corrupt_file` for broken quoting.
 */
export async function loadCsv(file: FileInput, limits: LoaderLimits, chunkSize: number): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: "greedy", delimitersToGuess: [",", ";", "\t", "|"] });
  const quoting = parsed.errors.find((error) => error.type === "Quotes");
  if (quoting) {
    throw new DocqaError("corrupt_file", `${file.name}: ${quoting.message} at row ${(quoting.row ?? 0) + 1}`, { component: "ingestion" });
  }
  const [header, ...rows] = parsed.data;
  if (!header || header.every((cell) => cell.trim() === ""))
    throw new DocqaError("empty_file", `${file.name} is empty`, { component: "ingestion" });
  const ragged = rows.flatMap((row, index) => (row.length === header.length ? [] : [index + 2]));
  if (ragged.length > 0) {
    throw new DocqaError(
      "csv_ragged_rows",
      `${file.name}: ${ragged.length} row(s) have a different number of fields than the header's ${header.length} (rows ${ragged.slice(0, 5).join(", ")}${ragged.length > 5 ? ", ..." : ""})`,
      { component: "ingestion" },
    );
  }
  const delimiter = parsed.meta.delimiter;
  const line = (cells: string[]) => Papa.unparse([cells], { delimiter, newline: "\n" });
  const headerLine = line(header);
  const sections: LoadedSection[] = [];
  let group: string[] = [];
  let groupStart = 2;
  let size = headerLine.length;
  const flush = (end: number) => {
    if (group.length === 0) return;
    sections.push({
      text: [headerLine, ...group].join("\n"),
      metadata: { rows: groupStart === end ? `${groupStart}` : `${groupStart}-${end}` },
      preChunked: true,
    });
    group = [];
    size = headerLine.length;
  };
  rows.forEach((row, index) => {
    const rendered = line(row);
    if (group.length > 0 && size + rendered.length + 1 > chunkSize) {
      flush(index + 1);
      groupStart = index + 2;
    }
    group.push(rendered);
    size += rendered.length + 1;
  });
  flush(rows.length + 1);
  if (sections.length === 0) sections.push({ text: headerLine, metadata: { rows: "1" }, preChunked: true });
  return {
    documents: [
      {
        idSuffix: "",
        title: stripExtension(file.name),
        metadata: { encoding, columns: header.length, rows: rows.length, delimiter },
        sections,
      },
    ],
    warnings,
  };
}
