/**
 * Stage `retrieve` (spec `POST /predict` step 4): for each planned query, at most
 * `MAX_RETRIEVAL_THREADS` at a time, the vector and BM25 candidates, pre-filtered by principal in
 * the indexes, fused (`searchCandidates`). Each retriever is asked for its top-K
 * (`VECTOR_RETRIEVER_TOP_K`, `BM25_RETRIEVER_TOP_K`), at least `FUSION_CANDIDATES`: score
 * normalisation needs a list deep enough for its minimum to be a typical weak match.
 *
 * Top-k is never starved by access control: when candidates were removed (by the access check,
 * or as uncommitted versions) and fewer than the query's top-k remain while an index returned a
 * full list (so more may exist), the search is repeated twice as deep, at most
 * {@link maximumDeepenings} times. A list that nothing was removed from keeps its depth, even
 * when shorter than the query's top-k: the depth is the configuration's (`docqa eval` measures
 * the service's own candidate depths this way).
 *
 * Each query is one span, `docqa.retrieve.query` (its index, kind, top-k and length; the
 * deepenings and candidates found), parent of the embedding and per-engine search spans.
 */
import type { Span } from "@opentelemetry/api";
import pLimit from "p-limit";
import { filterReadable } from "../../retrieval/filter-readable.js";
import { embedQueryFor, searchCandidates } from "../../retrieval/search-candidates.js";
import { withSpan } from "../../telemetry/tracing.js";
import type { QueryRetrieval, RetrievalState } from "../request-state.js";
import type { Runtime } from "../runtime.js";
import type { Stage } from "../stage.js";

/** Maximum number of deeper searches when access control would leave too few results. */
export const maximumDeepenings = 3;

/** Writes `retrievals` (one per planned query, `candidates` and `vectorUsed` set). */
export const retrieveCandidates: Stage<RetrievalState> = {
  name: "retrieve",
  phase: "retrieval",
  async run(state, runtime) {
    const limit = pLimit(Math.max(1, runtime.config.retrieval.maxRetrievalThreads));
    state.retrievals = await Promise.all(
      state.queries.map((query, index) =>
        limit(() =>
          withSpan(
            "docqa.retrieve.query",
            {
              "docqa.query.index": index,
              "docqa.query.kind": query.kind,
              "docqa.query.top_k": query.topK,
              "docqa.query.chars": query.text.length,
              ...(runtime.config.logging.traceContent ? { "docqa.query": query.text } : {}),
            },
            async (span) => {
              const retrieval = await retrieveOne(state, runtime, query, span);
              span.setAttributes({ "docqa.candidates": retrieval.candidates.length, "docqa.vector_used": retrieval.vectorUsed });
              return retrieval;
            },
          ),
        ),
      ),
    );
  },
};

async function retrieveOne(state: RetrievalState, runtime: Runtime, query: QueryRetrieval["query"], span: Span): Promise<QueryRetrieval> {
  state.signal?.throwIfAborted();
  const dependencies = {
    stores: runtime.stores,
    embeddings: runtime.embeddings,
    logger: runtime.logger,
    indexModels: runtime.indexModels,
    embeddingsFor: runtime.embeddingsFor,
  };
  const embedded = await embedQueryFor(dependencies, state.orgId, query.text, state.settings);
  const queryVector = embedded?.vector;
  const search = {
    orgId: state.orgId,
    principal: state.principal,
    query: query.text,
    queryVector,
    queryModel: embedded?.model,
    filter: state.filter,
    settings: state.settings,
    signal: state.signal,
  };
  const minimum = state.settings.fusionCandidates ?? 0;
  const depth = { vector: Math.max(state.settings.vectorTopK, minimum), keyword: Math.max(state.settings.bm25TopK, minimum) };
  for (let round = 0; ; round++) {
    const { fused, exhausted, hidden } = await searchCandidates(dependencies, search, depth);
    const readable = filterReadable(state.principal, state.filter, fused).length;
    const enough = readable >= query.topK;
    const removed = hidden > 0 || readable < fused.length;
    if (enough || exhausted || !removed || round === maximumDeepenings) {
      span.setAttribute("docqa.retrieve.deepenings", round);
      return { query, candidates: fused, results: [], vectorUsed: queryVector !== undefined, queryVector, queryModel: embedded?.model };
    }
    depth.vector *= 2;
    depth.keyword *= 2;
  }
}
