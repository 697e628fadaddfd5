/**
 * Stage `answer-from-table` (after `rank-evidence`): when the best answer units are cells of a
 * table's rows, the answer an operation over the whole table gives (`tableEvidence`: a count, the
 * largest, the row after a named one), read from the table's rows the user may read; the rows it
 * was computed from are added to the context, so the answer can cite them.
 */
import { buildContext } from "../../answering/build-context.js";
import { tableEvidence } from "../../answering/table-evidence.js";
import type { PredictState } from "../request-state.js";
import type { Stage } from "../stage.js";

/** Writes `tableAnswer`, and adds the rows it cites to `context`. */
export const answerFromTable: Stage<PredictState> = {
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
