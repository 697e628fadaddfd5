// packages/core/src/ingestion/loaders/load-pdf.ts
import { getDocumentProxy, getMeta } from "unpdf";

// packages/core/src/errors/docqa-error.ts
var marker = /* @__PURE__ */ Symbol.for("docqa.error");
var DocqaError = class extends Error {
  /** Stable error code; see {@link DocqaErrorCode}. */
  code;
  /** Component that raised the error, if known. */
  component;
  /** Client-safe structured details, if any. */
  details;
  /** Seconds after which retrying may succeed, when the failure is temporary (`ingestion_busy`, `model_busy`). */
  retryAfterSeconds;
  constructor(code, message, options = {}) {
    const prefix = options.component ? `[docqa] [${options.component}] ` : "[docqa] ";
    super(prefix + message, options.cause === void 0 ? void 0 : { cause: options.cause });
    Object.defineProperty(this, marker, { value: true, enumerable: false });
    this.name = "DocqaError";
    this.code = code;
    this.component = options.component;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  /** The message without the `[docqa] [component]` prefix, for client-facing bodies. */
  get publicMessage() {
    return this.message.replace(/^\[docqa\] (\[[^\]]+\] )?/, "");
  }
  /**
   * True when `value` is a {@link DocqaError}, even one created by another copy of this package
   * (the check uses a `Symbol.for` marker, not `instanceof`).
   */
  static isInstance(value) {
    return typeof value === "object" && value !== null && value[marker] === true;
  }
};

// packages/core/src/ingestion/loaders/pdf-tables.ts
var cellGapEms = 1;
var minimumColumns = 3;
var minimumTableRows = 3;
var maximumHeaderLines = 3;
var maximumMedianCellWords = 4;
var maximumRowGapRatio = 2.5;
function findPdfTables(pieces) {
  const lines = pageLines(pieces);
  const tables = [];
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
function pageLines(pieces) {
  const placed = pieces.map((piece, index) => ({ ...piece, index, text: piece.text.replace(/[\u0000-\u0008\u000b-\u001f]/g, "") })).filter((piece) => piece.height > 0 && piece.text.trim() !== "" && !bulletPattern.test(piece.text.trim()));
  placed.sort((left, right) => right.y - left.y || left.x - right.x);
  const groups = [];
  const baseline = (group) => group.reduce((largest, member) => member.height > largest.height ? member : largest).y;
  for (const piece of placed) {
    const group = groups.at(-1);
    const size = group ? Math.max(piece.height, ...group.map((member) => member.height)) : 0;
    if (group && Math.abs(baseline(group) - piece.y) <= size / 2) group.push(piece);
    else groups.push([piece]);
  }
  return groups.map((group) => {
    group.sort((left, right) => left.x - right.x);
    const size = Math.max(...group.map((piece) => piece.height));
    const cells = [];
    for (const piece of group) {
      const last = cells.at(-1);
      const gap = last === void 0 ? Number.POSITIVE_INFINITY : piece.x - last.x1;
      if (last !== void 0 && gap <= cellGapEms * size) {
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
function tableRuns(lines, start) {
  const first = lines[start];
  if (first === void 0 || first.cells.length < 2) return { runs: [], end: start + 1 };
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end];
    if (line.cells.length < 2 && !((line.cells[0]?.x0 ?? 0) > first.cells[0].x1)) break;
    end++;
  }
  const pitches = lines.slice(start + 1, end).map((line, index) => lines[start + index].y - line.y);
  const limit = maximumRowGapRatio * median(pitches);
  const runs = [];
  let from = start;
  for (let index = start + 1; index <= end; index++) {
    if (index < end && pitches[index - start - 1] <= limit) continue;
    if (readsAsTable(lines.slice(from, index))) runs.push({ start: from, end: index });
    from = index;
  }
  return { runs, end };
}
function readsAsTable(run) {
  if (run.filter((line) => line.cells.length >= minimumColumns).length < minimumTableRows) return false;
  return median(run.flatMap((line) => line.cells.map((cell) => wordCount(cell.text)))) <= maximumMedianCellWords;
}
var wordCount = (text) => text.split(" ").filter((word) => word !== "").length;
function readTable(run, above) {
  const columnCount = Math.max(...run.map((line) => line.cells.length));
  const fullest = run.filter((line) => line.cells.length === columnCount);
  const columns = Array.from({ length: columnCount }, (_, column) => ({
    x0: Math.min(...fullest.map((line) => line.cells[column].x0)),
    x1: Math.max(...fullest.map((line) => line.cells[column].x1))
  }));
  const columnPieces = columns.map(() => []);
  const placeLine = (line) => {
    const values = columns.map(() => "");
    const put = (column, text) => {
      const value = text.replace(/\s+/g, " ").trim();
      if (value !== "") values[column] = values[column] === "" ? value : `${values[column]} ${value}`;
    };
    for (const cell of line.cells) {
      const straddles = columns.filter((column) => Math.min(column.x1, cell.x1) - Math.max(column.x0, cell.x0) > 0).length > 1;
      if (straddles && cell.parts.length > 1) {
        cell.parts.forEach((part, index) => {
          const column = bestColumn(columns, part);
          put(column, part.text);
          columnPieces[column]?.push(cell.pieces[index]);
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
  const ranges = columnPieces.map((indexes) => ({ low: Math.min(...indexes), high: Math.max(...indexes) }));
  const interleaved = ranges.map(
    ({ low, high }, column) => columnPieces.some((indexes, other) => other !== column && indexes.some((index) => index > low && index < high))
  );
  const kept = columns.flatMap((_, column) => interleaved[column] || !interleaved.some(Boolean) ? [column] : []);
  if (kept.length < minimumColumns) return void 0;
  const lines = placed.map((values) => kept.map((column) => values[column]));
  const cellsOf = (index) => lines[index].filter((value) => value !== "").length;
  const merged = [];
  lines.forEach((values, index) => {
    const previous = merged.at(-1);
    const filled = values.filter((value) => value !== "");
    if (previous !== void 0 && filled.every((value) => /^\p{Ll}/u.test(value))) {
      values.forEach((value, column) => {
        if (value !== "") previous.values[column] = previous.values[column] === "" ? value : `${previous.values[column]} ${value}`;
      });
    } else merged.push({ values: [...values], cells: cellsOf(index) });
  });
  const full = (index) => merged[index].cells === kept.length;
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
  const header = kept.map(
    (_, column) => merged.slice(0, headerEnd).map(({ values }) => values).map((values) => values[column]).filter((value) => value !== "").join(" ")
  );
  const rows = [];
  for (const { values } of merged.slice(headerEnd)) {
    const previous = rows.at(-1);
    if (previous !== void 0 && values[0] === "") {
      values.forEach((value, column) => {
        if (value !== "") previous[column] = previous[column] === "" ? value : `${previous[column]} ${value}`;
      });
    } else rows.push(values);
  }
  if (rows.length < minimumTableRows - 1) return void 0;
  const pieces = new Set(kept.flatMap((column) => columnPieces[column]));
  const opens = (line) => /^table\s+[\w.-]+/i.test(line.cells[0]?.text ?? "");
  const captionLines = above.findIndex(opens) === -1 ? [] : above.slice(above.findIndex(opens));
  for (const line of captionLines) for (const piece of line.pieces) pieces.add(piece);
  const caption = captionLines.length === 0 ? void 0 : captionLines.flatMap((line) => line.cells.map((cell) => cell.text)).join(" ");
  return { caption, header, rows, pieces };
}
var numberPattern = /^[-+\u2212]?[\d.,]+(?:[eE][-+]?\d+)?\s*%?$/;
var bulletPattern = /^[\u2022\u25cf\u25cb\u25aa\u25a0\u25e6\u2023\u2043\u2219\u00b7\u27a2\uf0b7*–-]$/u;
function bestColumn(columns, cell) {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  columns.forEach((column, index) => {
    const overlap = Math.min(column.x1, cell.x1) - Math.max(column.x0, cell.x0);
    const score = overlap > 0 ? overlap : -Math.abs((column.x0 + column.x1) / 2 - (cell.x0 + cell.x1) / 2);
    if (score > bestScore) [best, bestScore] = [index, score];
  });
  return best;
}
function median(values) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// packages/core/src/ingestion/loaders/table-rows.ts
function oneLine(cell) {
  return cell.replace(/\s+/g, " ").trim();
}
function columnNames(header) {
  return header.map((cell, index) => oneLine(cell) || `Column ${index + 1}`);
}
function renderRow(names, row) {
  return row.flatMap((cell, index) => {
    const value = oneLine(cell);
    return value === "" ? [] : [`${names[index] ?? `Column ${index + 1}`}: ${value}`];
  }).join("; ");
}

// packages/core/src/ingestion/loaders/load-pdf.ts
var defaultMaxPdfPages = 5e3;
async function loadPdf(file, limits) {
  const pages = [];
  let info = {};
  try {
    const pdf = await getDocumentProxy(new Uint8Array(file.bytes), { verbosity: 0 });
    try {
      const maxPages = limits.maxPdfPages ?? defaultMaxPdfPages;
      if (pdf.numPages > maxPages) {
        throw new DocqaError("too_many_pages", `${file.name} has ${pdf.numPages} pages; the limit is ${maxPages} (MAX_PDF_PAGES)`, {
          component: "ingestion"
        });
      }
      for (let number = 1; number <= pdf.numPages; number++) pages.push(await readPage(pdf, number));
      info = (await getMeta(pdf)).info ?? {};
    } finally {
      await pdf.loadingTask.destroy();
    }
  } catch (error) {
    if (DocqaError.isInstance(error)) throw error;
    const name = error.name;
    if (name === "PasswordException") {
      throw new DocqaError("password_protected", `${file.name} is password-protected: remove the password and upload it again`, {
        component: "ingestion",
        cause: error
      });
    }
    throw new DocqaError("corrupt_file", `${file.name} is not a readable PDF (${error.message})`, {
      component: "ingestion",
      cause: error
    });
  }
  const sections = [];
  let characters = 0;
  let emptyPages = 0;
  pages.forEach(({ text, tables }, index) => {
    const cleaned = text.replace(/\u0000/g, "").trim();
    if (cleaned === "" && tables.length === 0) emptyPages++;
    if (cleaned !== "") {
      characters += cleaned.length;
      sections.push({ text: cleaned, metadata: { page: index + 1 } });
    }
    for (const table of tables) {
      const names = columnNames(table.header);
      table.rows.forEach((row, rowIndex) => {
        const rendered = renderRow(names, row);
        if (rendered === "") return;
        characters += rendered.length;
        const metadata = { page: index + 1, row: rowIndex + 2, ...table.caption ? { section: table.caption } : {} };
        sections.push({ text: rendered, metadata, preChunked: true });
      });
    }
  });
  if (sections.length === 0) {
    throw new DocqaError("no_text_layer", `${file.name} has no text layer (${pages.length} page(s) of images): OCR is not supported`, {
      component: "ingestion"
    });
  }
  if (characters > limits.maxExtractedChars) {
    throw new DocqaError(
      "file_too_large",
      `${file.name} has ${characters} characters of text; the limit is ${limits.maxExtractedChars} (MAX_EXTRACTED_CHARS)`,
      {
        component: "ingestion"
      }
    );
  }
  const infoTitle = typeof info.Title === "string" ? info.Title.trim() : "";
  const title = /\s/.test(infoTitle) && !/\.\w{2,4}$/.test(infoTitle) ? infoTitle : void 0;
  const created = typeof info.CreationDate === "string" ? parsePdfDate(info.CreationDate) : void 0;
  const warnings = emptyPages > 0 ? [`${file.name}: ${emptyPages} of ${pages.length} pages have no text`] : [];
  return {
    documents: [
      {
        idSuffix: "",
        title: title ?? stripExtension(file.name),
        metadata: { pages: pages.length, ...created ? { created_at: created } : {} },
        sections
      }
    ],
    warnings
  };
}
async function readPage(pdf, number) {
  const page = await pdf.getPage(number);
  const content = await page.getTextContent();
  const items = content.items.flatMap(
    (item) => "str" in item && item.str != null ? [{ str: item.str, hasEOL: item.hasEOL, transform: item.transform, width: item.width, height: item.height }] : []
  );
  const positioned = items.map((item) => ({
    text: item.str,
    x: item.transform[4] ?? 0,
    y: item.transform[5] ?? 0,
    width: item.width,
    height: item.height
  }));
  const tables = findPdfTables(positioned);
  const inTables = new Set(tables.flatMap((table) => [...table.pieces]));
  let text = "";
  let previous;
  items.forEach((item, index) => {
    if (!inTables.has(index)) {
      const piece = positioned[index];
      if (previous && piece.text.trim() !== "" && !/\s$/.test(text) && wordBreakBetween(previous, piece)) text += " ";
      text += item.str;
      if (piece.text.trim() !== "") previous = piece;
    }
    if (item.hasEOL) {
      text += "\n";
      previous = void 0;
    }
  });
  return { text, tables };
}
var wordGapShare = 0.1;
function wordBreakBetween(previous, next) {
  const height = Math.max(previous.height, next.height);
  if (!(height > 0)) return false;
  const margin = wordGapShare * height;
  const gap = next.x - (previous.x + previous.width);
  const lineChange = Math.abs(next.y - previous.y);
  if (lineChange > height || lineChange > margin && gap < -margin) return true;
  return gap > margin;
}
function parsePdfDate(value) {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value);
  if (!match) return void 0;
  const [, year, month = "01", day = "01", hour = "00", minute = "00", second = "00", zone] = match;
  let offset = "Z";
  if (zone && zone.toUpperCase() !== "Z") offset = `${zone.slice(0, 3)}:${zone.replace(/'/g, "").slice(3, 5) || "00"}`;
  const date = /* @__PURE__ */ new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  return Number.isNaN(date.getTime()) ? void 0 : date.toISOString();
}
function stripExtension(name) {
  return name.replace(/\.[^./\\]+$/, "");
}
var pdfLoader = {
  format: "pdf",
  aliases: [],
  signature: { fileTypes: ["pdf"], otherwise: "not a PDF (no %PDF- header)" },
  load: (file, options) => loadPdf(file, options.limits)
};
export {
  loadPdf,
  parsePdfDate,
  pdfLoader,
  stripExtension,
  wordBreakBetween,
  wordGapShare
};
