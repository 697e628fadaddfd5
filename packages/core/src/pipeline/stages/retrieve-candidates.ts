/**
 * Stage `retrieve` (spec `POST /predict` step 4): for each planned query, at most
 * `MAX_RETRIEVAL_THREADS` at a time, the vector and BM25 candidates, pre-filtered by principal in
 * the indexes, fused (`searchCandidates`).
 *
 * Top-k is never starved by access control: when fewer than the query's top-k candidates would
 * pass the access check while an index returned a full list (so more may exist), the search is
 * repeated twice as deep, at most {@link maximumDeepenings} times.
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
  const depth = { vector: state.settings.vectorTopK, keyword: state.settings.bm25TopK };
  for (let round = 0; ; round++) {
    const { fused, exhausted } = await searchCandidates(dependencies, search, depth);
    const enough = filterReadable(state.principal, state.filter, fused).length >= query.topK;
    if (enough || exhausted || round === maximumDeepenings) {
      span.setAttribute("docqa.retrieve.deepenings", round);
      return { query, candidates: fused, results: [], vectorUsed: queryVector !== undefined };
    }
    depth.vector *= 2;
    depth.keyword *= 2;
  }
}
