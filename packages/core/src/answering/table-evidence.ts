/**
 * Answers over a whole table: when the best answer units of a question are cells of a table's
 * rows (a CSV file or a Markdown or DOCX table, indexed one row per chunk), the table's other rows
 * are read back from the store and {@link answerFromTable} computes the answer an operation over
 * the rows gives (a count, the largest, the next row, a difference), which five retrieved rows
 * cannot. The rows it was computed from become sources of the context, so the answer cites them.
 *
 * Only rows the principal may read are used (the seven ACL rules, per chunk), and only tables of
 * at most {@link maximumTableRows} rows: an operation reads every row, and a larger table would
 * hold the request for too long.
 */
import { canRead } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { Analyzer } from "../text/analyzer.js";
import { holdsRenderedRows, parseBlocks, type RecordCell } from "./answer-units.js";
import { buildContext } from "./build-context.js";
import type { TableEvidence } from "./evidence.js";
import type { EvidenceUnit } from "./rank-evidence.js";
import { answerFromTable, type Table } from "./table-operations.js";

export type { TableEvidence } from "./evidence.js";

/**
 * Most rows of a table answered over whole: reading a table is linear in its cells (about 1 s for
 * 10,000 rows of six columns on a loaded 2-core machine, `table-operations.ts`), so 2,000 rows keep
 * it near 0.2 s. Larger tables are answered from their retrieved rows only.
 */
export const maximumTableRows = 2000;

/** Rows of a table answer cited: the rows it was computed from, at most this many (a count may read hundreds). */
export const maximumCitedRows = 3;

/** Options of {@link tableEvidence}. */
export interface TableEvidenceOptions {
  principal: Principal;
  analyzer: Analyzer;
  /** Reads a document version's chunks (`DocumentStores.documentChunks`). */
  documentChunks: (docId: string, contentHash: string) => Promise<ChunkRecord[]>;
}

/**
 * The answer over the table of the best-scoring table cell among `units`, or undefined when no
 * table row is among them, the table is larger than {@link maximumTableRows}, or no operation fits.
 */
export async function tableEvidence(
  question: string,
  units: readonly EvidenceUnit[],
  options: TableEvidenceOptions,
): Promise<TableEvidence | undefined> {
  const cell = units.find((unit) => unit.kind === "cell" && unit.row?.tableRow === true);
  if (!cell) return undefined;
  const { docId, contentHash } = cell.entry.chunk;
  const section = cell.entry.chunk.metadata.section;
  const chunks = (await options.documentChunks(docId, contentHash)).filter(
    (chunk) => chunk.metadata.section === section && canRead(options.principal, chunk),
  );
  const rows = chunks.flatMap((chunk) => {
    const block = parseBlocks(chunk.text, { renderedRows: holdsRenderedRows(chunk.metadata) }).find(
      (candidate) => candidate.type === "row",
    );
    return block?.type === "row" ? [{ chunk, cells: block.cells }] : [];
  });
  if (rows.length === 0 || rows.length > maximumTableRows) return undefined;
  const table = tableOf(
    rows.map((row) => row.cells),
    cell.entry.chunk.title,
  );
  const answer = answerFromTable(question, table, { analyzer: options.analyzer });
  if (!answer) return undefined;
  const used = [...new Set(answer.rows)].sort((left, right) => left - right).slice(0, maximumCitedRows);
  return { answer, docId, rows: used.map((index) => rows[index]?.chunk).filter((chunk): chunk is ChunkRecord => chunk !== undefined) };
}

/** A table from rows of cells: the header is every key in order of first appearance; a row's missing key is an empty cell. */
export function tableOf(rows: readonly (readonly RecordCell[])[], title?: string): Table {
  const header: string[] = [];
  for (const row of rows) for (const { key } of row) if (!header.includes(key)) header.push(key);
  return {
    ...(title === undefined ? {} : { title }),
    header,
    rows: rows.map((row) => header.map((key) => row.find((cell) => cell.key === key)?.value ?? "")),
  };
}

/**
 * Stage `answer-from-table` (after `rank-evidence`): when the best answer units are cells of a
 * table's rows, the answer an operation over the whole table gives (`tableEvidence`: a count, the
 * largest, the row after a named one), read from the table's rows the user may read; the rows it
 * was computed from are added to the context, so the answer can cite them.
 *
 * Writes `tableAnswer`, and adds the rows it cites to `context`.
 */
export const answerFromTableStage: Stage<PredictState> = {
  name: "answer-from-table",
  phase: "context",
  async run(state, runtime) {
    if (!state.evidence) return;
    const found = await tableEvidence(state.query, state.evidence.units, {
      principal: state.principal,
      analyzer: runtime.analyzer,
      documentChunks: (docId, contentHash) => runtime.stores.documentChunks(state.orgId, docId, contentHash),
    });
    if (!found) return;
    const present = new Set(state.context.entries.map((entry) => entry.chunk.id));
    const added = found.rows.filter((chunk) => !present.has(chunk.id));
    if (added.length > 0) {
      const ranked = [
        ...state.context.entries.map((entry) => ({ chunk: entry.chunk, score: entry.score })),
        ...added.map((chunk) => ({ chunk, score: 0 })),
      ];
      state.context = buildContext(ranked, runtime.config.answering);
    }
    // Cited only by rows that made it into the context.
    const inContext = new Set(state.context.entries.map((entry) => entry.chunk.id));
    const rows = found.rows.filter((chunk) => inContext.has(chunk.id));
    state.tableAnswer = rows.length > 0 ? { ...found, rows } : undefined;
  },
};
