/**
 * The default stage lists, in the spec's processing order (`POST /predict`), as
 * docs/architecture.md lists them:
 *
 * | # | Stage | Does |
 * |---|---|---|
 * | 1 | `normalize` | normalises and checks the question |
 * | 2 | `conversation` | continues or creates the thread and loads its history |
 * | 3 | `rewrite-follow-up` | rewrites a follow-up into a standalone query |
 * | 4 | `plan` | the question, plus sub-queries of a compound question |
 * | 5 | `retrieve` | vector and BM25 candidates per query, pre-filtered by principal, fused |
 * | 6 | `access-filter` | the seven ACL rules as the final word |
 * | 7 | `rerank` | the reranker, when `USE_RERANKER` |
 * | 8 | `select-top-k` | each query's top-k, merged |
 * | 9 | `expand-summaries` | each RAPTOR summary replaced by the best readable chunk under it |
 * | 10 | `build-context` | the context, keyed `doc_<n>` |
 * | 11 | `rank-evidence` | the context's answer units (sentences, cells, commands) ranked by the fitted scorer |
 * | 12 | `answer-from-table` | an operation over the whole table when the best units are a table's cells |
 * | 13 | `decide-answerable` | abstain (`no_documents`, `low_relevance`, `not_answerable`) or answer |
 * | 14 | `generate` | the answer (model or extractive), or the empty-context answer |
 * | 15 | `resolve-citations` | citations resolved, unknown ones dropped, uncited sources removed |
 * | 16 | `check-citations` | cited statements checked against their chunks (`unsupported_citations`) |
 * | 17 | `record-memory` | the turn written to memory in the background |
 *
 * `search` runs stages 1 and 4 to 8 (planning the query alone), then `count-matches`: the number
 * of matches it reports as `total`.
 */

import { buildContextStage } from "../answering/build-context.js";
import { checkCitationsStage } from "../answering/check-citations.js";
import { decideAnswerableStage } from "../answering/decide-answerable.js";
import { generateAnswer } from "../answering/generate-answer.js";
import { rankEvidenceStage } from "../answering/rank-evidence.js";
import { resolveCitationsStage } from "../answering/resolve-citations.js";
import { answerFromTableStage } from "../answering/table-evidence.js";
import { loadConversation } from "../memory/load-conversation.js";
import { recordMemory } from "../memory/record-memory.js";
import { rewriteFollowUpStage } from "../memory/rewrite-follow-up.js";
import { planQueries, planQuery } from "../query-planning/decompose-question.js";
import { expandSummaries } from "../raptor/expand-summaries.js";
import { countMatches } from "../retrieval/count-matches.js";
import { filterAccess } from "../retrieval/filter-readable.js";
import { normalizeQuestion } from "../retrieval/normalize-query.js";
import { rerankCandidates } from "../retrieval/rerank-results.js";
import { retrieveCandidates } from "../retrieval/search-candidates.js";
import { selectTopK } from "../retrieval/select-top-k.js";
import type { PredictState, RetrievalState } from "./request-state.js";
import type { Stage } from "./stage.js";

/** The stages of `predict`, in order. */
export const defaultPredictStages: readonly Stage<PredictState>[] = Object.freeze([
  normalizeQuestion,
  loadConversation,
  rewriteFollowUpStage,
  planQueries,
  retrieveCandidates,
  filterAccess,
  rerankCandidates,
  selectTopK,
  expandSummaries,
  buildContextStage,
  rankEvidenceStage,
  answerFromTableStage,
  decideAnswerableStage,
  generateAnswer,
  resolveCitationsStage,
  checkCitationsStage,
  recordMemory,
]);

/** The stages of `search`, in order. */
export const defaultSearchStages: readonly Stage<RetrievalState>[] = Object.freeze([
  normalizeQuestion,
  planQuery,
  retrieveCandidates,
  filterAccess,
  rerankCandidates,
  selectTopK,
  countMatches,
]);
