/**
 * Stage `expand-summaries` (after `select-top-k`): a RAPTOR summary node may be retrieved, but a
 * user cannot open it, so the answer never cites it. Each summary among the final chunks is
 * replaced, at its rank, by the best chunks of the documents it summarises (at most
 * {@link leavesPerSummary}; hybrid search for the query restricted to those documents,
 * pre-filtered by principal in the indexes, then the seven ACL rules as the final word), leaving
 * out chunks already in the list; a summary with no readable chunk under it is dropped. Every
 * chunk that reaches the context is then a readable chunk of a user document, and a question
 * that a summary answered from several chunks still sees those chunks.
 */

import type { RetrievalState } from "../pipeline/request-state.js";
import type { Runtime } from "../pipeline/runtime.js";
import type { Stage } from "../pipeline/stage.js";
import { filterReadable } from "../retrieval/filter-readable.js";
import type { RetrievedChunk } from "../retrieval/retrieval-settings.js";
import { searchCandidates } from "../retrieval/search-candidates.js";
import { isSummaryChunk } from "./build-raptor-nodes.js";

/** Most chunks that replace one summary (a summary covers up to `RAPTOR_CLUSTER_SIZE` chunks). */
export const leavesPerSummary = 3;
/** Candidates asked of each index per summary. */
const searchDepth = 8;

/** Rewrites `chunks`. */
export const expandSummaries: Stage<RetrievalState> = {
  name: "expand-summaries",
  phase: "retrieval",
  async run(state, runtime) {
    if (!state.chunks.some((result) => isSummaryChunk(result.chunk))) return;
    const expanded: RetrievedChunk[] = [];
    const present = new Set(state.chunks.filter((result) => !isSummaryChunk(result.chunk)).map((result) => result.chunk.id));
    for (const result of state.chunks) {
      if (!isSummaryChunk(result.chunk)) {
        expanded.push(result);
        continue;
      }
      const leaves = await bestLeaves(state, runtime, summarisedDocuments(result.chunk.metadata.raptor_documents), present);
      for (const leaf of leaves) {
        present.add(leaf.chunk.id);
        expanded.push({ ...leaf, score: result.score });
      }
    }
    state.chunks = expanded;
  },
};

/** The document ids of a summary's `raptor_documents`. */
function summarisedDocuments(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((document) => String((document as { doc_id?: unknown }).doc_id ?? "")).filter((docId) => docId !== "");
}

/** The best readable chunks of `docIds` for the query that are not in `present`, best first. */
async function bestLeaves(
  state: RetrievalState,
  runtime: Runtime,
  docIds: string[],
  present: ReadonlySet<string>,
): Promise<RetrievedChunk[]> {
  if (docIds.length === 0) return [];
  const { fused } = await searchCandidates(
    { stores: runtime.stores, embeddings: runtime.embeddings, logger: runtime.logger },
    {
      orgId: state.orgId,
      principal: state.principal,
      query: state.query,
      queryVector: state.retrievals[0]?.queryVector,
      filter: { ...state.filter, docIds },
      settings: state.settings,
      signal: state.signal,
    },
    { vector: searchDepth, keyword: searchDepth },
  );
  const leaves = filterReadable(state.principal, { ...state.filter, docIds }, fused);
  return leaves.filter((leaf) => !isSummaryChunk(leaf.chunk) && !present.has(leaf.chunk.id)).slice(0, leavesPerSummary);
}
