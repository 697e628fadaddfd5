/**
 * Runs the `predict` and `search` pipelines for one request: builds the request state, runs the
 * stages (`runStages`), and writes the spec's PERF events from the stage timings: `rag_start`
 * before the first stage, `retrieval_done` after the last `retrieval` stage, `rag_end` with every
 * field after the last stage.
 */
import { createHash, randomUUID } from "node:crypto";
import { normalizePrincipal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { PerfLog } from "../logging/perf-log.js";
import { retrievalSettingsFromConfig } from "../retrieval/retrieval-settings.js";
import type { PredictRequest, PredictResult, SearchRequest, SearchResult } from "../service/rag-service.js";
import type { PredictState, RetrievalState } from "./request-state.js";
import { phaseMilliseconds, resolvePhases, runStages } from "./run-stages.js";
import type { Runtime } from "./runtime.js";
import type { Stage } from "./stage.js";

/** Runs `stages` for a `predict` request and maps the final state to a {@link PredictResult}. */
export async function runPredict(
  stages: readonly Stage<PredictState>[],
  runtime: Runtime,
  request: PredictRequest,
  perfLog: PerfLog,
): Promise<PredictResult> {
  const started = performance.now();
  const state = createPredictState(runtime, request);
  perfLog({ event: "rag_start", ts: Date.now(), request_id: state.requestId });
  const phases = resolvePhases(stages);
  const lastRetrievalStage = phases.lastIndexOf("retrieval");
  let stageIndex = 0;
  await runStages(stages, state, runtime, {
    afterStage() {
      if (stageIndex++ !== lastRetrievalStage) return;
      const totals = phaseMilliseconds(state.timings);
      perfLog({
        event: "retrieval_done",
        ts: Date.now(),
        request_id: state.requestId,
        retrieval_ms: totals.retrieval,
        docs_count: state.chunks.length,
      });
    },
  });
  const generated = state.generated;
  if (!generated || !state.answer) {
    throw new DocqaError(
      "internal_error",
      "the predict pipeline ended without an answer (are the generate and resolve-citations stages missing?)",
      {
        component: "pipeline",
      },
    );
  }
  const totals = phaseMilliseconds(state.timings);
  const totalMs = Math.round(performance.now() - started);
  const fallbackReason = generated.fallbackReason ?? null;
  const promptVersion = "promptVersion" in generated && typeof generated.promptVersion === "string" ? generated.promptVersion : null;
  perfLog({
    event: "rag_end",
    ts: Date.now(),
    total_ms: totalMs,
    request_id: state.requestId,
    query_hash: createHash("sha256").update(state.query).digest("hex").slice(0, 16),
    retrieval_ms: totals.retrieval,
    context_ms: totals.context,
    llm_ms: totals.generation,
    post_ms: totals.post,
    docs_count: state.context.entries.length,
    context_chars: state.context.text.length,
    model: generated.model,
    num_predict: generated.numPredict,
    num_ctx: generated.numCtx,
    answer_mode: generated.mode,
    fallback_reason: fallbackReason,
    prompt_version: promptVersion,
    query_rewrite: state.rewriteMethod,
    abstained: generated.abstained,
    abstention_reason: generated.abstentionReason ?? null,
    abstention_check: generated.abstained
      ? (state.answerability?.check ?? (generated.mode === "empty-context" ? "no_context" : "answerer"))
      : null,
    unsupported_citations: state.unsupportedCitations.length,
  });
  return {
    answer: state.answer,
    sources: state.sources,
    query: state.query,
    originalQuery: request.query,
    input: request.query,
    threadId: state.threadId,
    answerMode: generated.mode,
    droppedCitations: state.droppedCitations,
    abstained: generated.abstained,
    abstentionReason: generated.abstained ? (generated.abstentionReason ?? "not_answerable") : null,
    unsupportedCitations: state.unsupportedCitations,
    answerability: state.answerability,
    timings: {
      retrievalMs: totals.retrieval,
      contextMs: totals.context,
      llmMs: totals.generation,
      postMs: totals.post,
      totalMs,
    },
    stages: state.timings,
    subqueries: state.subqueries,
    generation: {
      model: generated.model,
      numPredict: generated.numPredict,
      numCtx: generated.numCtx,
      fallbackReason,
      promptVersion,
    },
  };
}

/** Runs `stages` for a `search` request. */
export async function runSearch(stages: readonly Stage<RetrievalState>[], runtime: Runtime, request: SearchRequest): Promise<SearchResult> {
  const state = createSearchState(runtime, request);
  await runStages(stages, state, runtime);
  return { results: state.chunks, total: state.chunks.length, stages: state.timings };
}

/**
 * The initial state of a `search` request: the query planned alone, `limit` results (default
 * `RETRIEVER_TOP_K`), each retriever at least `limit` deep, the request's retrieval overrides.
 */
export function createSearchState(runtime: Runtime, request: SearchRequest): RetrievalState {
  const { config } = runtime;
  const limit = request.limit ?? config.retrieverTopK;
  const settings = retrievalSettingsFromConfig(
    config,
    runtime.reranker,
    {
      retrieverTopK: limit,
      vectorTopK: Math.max(config.vectorTopK, limit),
      bm25TopK: Math.max(config.bm25TopK, limit),
      ...request.retrieval,
    },
    request.rerank ?? config.useReranker,
  );
  return createRetrievalState(request, request.query, settings, { metadata: request.metadata });
}

function createRetrievalState(
  request: PredictRequest | SearchRequest,
  input: string,
  settings: RetrievalState["settings"],
  filter: RetrievalState["filter"],
): RetrievalState {
  return {
    orgId: request.orgId,
    principal: normalizePrincipal(request.principal),
    requestId: request.requestId ?? randomUUID(),
    signal: request.signal,
    input,
    question: input,
    query: input,
    filter,
    settings,
    queries: [],
    retrievals: [],
    chunks: [],
    timings: [],
  };
}

/** The initial state of a `predict` request, with the configuration's retrieval settings. */
export function createPredictState(runtime: Runtime, request: PredictRequest): PredictState {
  return {
    ...createRetrievalState(request, request.query, retrievalSettingsFromConfig(runtime.config, runtime.reranker), undefined),
    threadId: request.threadId ?? randomUUID(),
    history: [],
    conversation: undefined,
    rewriteMethod: "unchanged",
    subqueries: [],
    context: { entries: [], sources: {}, text: "" },
    evidence: undefined,
    answerability: undefined,
    generated: undefined,
    answer: undefined,
    sources: {},
    droppedCitations: [],
    unsupportedCitations: [],
    request: { threadId: request.threadId, history: request.history ?? [], onToken: request.onToken },
  };
}
