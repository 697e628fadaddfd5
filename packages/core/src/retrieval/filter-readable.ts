/**
 * The access check after retrieval (spec processing order step 6): the seven ACL rules decide
 * for each candidate, in order, and filters the index could not push down are checked again.
 * Indexes pre-filter by principal, so this is the final word rather than the main filter: it
 * removes nothing on a correct index, and everything a faulty one let through.
 */
import { evaluateAccess } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
import type { RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import { type ChunkFilter, matchesChunkFilter } from "../stores/chunk-filter.js";
import type { FusedChunk } from "./fuse-results.js";
import type { RetrievedChunk } from "./retrieval-settings.js";

/**
 * The candidates `principal` may read that match `filter`, in their order, each with the rule
 * that granted access. Inputs are not mutated.
 */
export function filterReadable(
  principal: Principal,
  filter: Omit<ChunkFilter, "principal"> | undefined,
  candidates: readonly FusedChunk[],
): RetrievedChunk[] {
  const readable: RetrievedChunk[] = [];
  for (const candidate of candidates) {
    const decision = evaluateAccess(principal, candidate.chunk);
    if (!decision.granted || (filter && !matchesChunkFilter(candidate.chunk, { ...filter, principal: undefined }))) continue;
    readable.push({ ...candidate, accessRule: decision.rule });
  }
  return readable;
}

/**
 * Stage `access-filter` (spec `POST /predict` step 6, "Document access rules"): the seven ACL
 * rules decide, in order, for every candidate of every query (`filterReadable`); filters an index
 * could not push down are checked again. The indexes already pre-filter by principal, so this is
 * the final word: on a correct index it removes nothing.
 *
 * Writes each retrieval's `results` from its `candidates`.
 */
export const filterAccess: Stage<RetrievalState> = {
  name: "access-filter",
  phase: "retrieval",
  run(state) {
    for (const retrieval of state.retrievals) {
      retrieval.results = filterReadable(state.principal, state.filter, retrieval.candidates);
    }
  },
};
