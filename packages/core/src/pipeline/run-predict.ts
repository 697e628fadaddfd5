/**
 * Runs the `predict` and `search` pipelines for one request: builds the request state, runs the
 * stages (`runStages`), and writes the spec's PERF events from the stage timings: `rag_start`
 * before the first stage, `retrieval_done` after the last `retrieval` stage, `rag_end` with every
 * field after the last stage.
 */
import { createHash, randomUUID } from "node:crypto";
import { type Attributes, context, type Span } from "@opentelemetry/api";
import { normalizePrincipal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { PerfLog } from "../logging/perf-log.js";
import { retrievalSettingsFromConfig } from "../retrieval/retrieval-settings.js";
import { initialPredictStateFields, predictStateFieldsOf } from "../service/predict-result.js";
import type { PredictRequest, PredictResult, SearchRequest, SearchResult } from "../service/rag-service.js";
import { assertMetadataConditions } from "../stores/chunk-filter.js";
import { startSpanClock, withSpanClockIn } from "../telemetry/span-clock.js";
import { stateAttributes } from "../telemetry/state-attributes.js";
import { docqaTracer, recordSpanError } from "../telemetry/tracing.js";
import type { PredictState, RetrievalState } from "./request-state.js";
import { phaseMilliseconds, resolvePhases, runStages } from "./run-stages.js";
import type { Runtime } from "./runtime.js";
import type { Stage } from "./stage.js";

/**
 * Runs `stages` for a `predict` request and maps the final state to a {@link PredictResult}.
 * The request is one span, `docqa.predict` (see `requestSpan`), parent of the stage spans, from
 * the instant `timings.totalMs` is measured from to the end of the request; `runtime.metrics`
 * receives the `answer` event.
 */
export async function runPredict(
  stages: readonly Stage<PredictState>[],
  runtime: Runtime,
  request: PredictRequest,
  perfLog: PerfLog,
): Promise<PredictResult> {
  const started = performance.now();
  const state = createPredictState(runtime, request);
  return requestSpan("docqa.predict", started, runtime, state, async (span) => {
    const result = await predictInSpan(stages, runtime, request, perfLog, started, state);
    const endTime = performance.now();
    span.setAttributes({
      "docqa.answer.mode": result.answerMode,
      "docqa.answer.abstained": result.abstained,
      "docqa.answer.sources": Object.keys(result.sources).length,
      "docqa.answer.dropped_citations": result.droppedCitations.length,
      "docqa.subqueries": result.subqueries.length,
      "docqa.rewrite": state.rewriteMethod,
      ...(result.generation.fallbackReason ? { "docqa.answer.fallback_reason": result.generation.fallbackReason } : {}),
      ...(runtime.config.logging.traceContent ? { "docqa.query": result.query, "docqa.answer.callout": result.answer.callout_answer } : {}),
    });
    runtime.metrics?.answer?.({ mode: result.answerMode, abstained: result.abstained, abstentionReason: result.abstentionReason });
    return { result, endTime };
  });
}

/**
 * Runs `work` in the request's span `name`, started at `started` (a `performance.now()` value) on
 * a clock anchored for this request (`span-clock.ts`; every docqa span of the request uses it),
 * with the request's attributes (`docqa.request_id`, `docqa.org_id`, `docqa.question.chars`,
 * the question itself only when `TRACE_CONTENT` is true) and, at the end, the state's counts;
 * ended at the `endTime` `work` returns, or now when it throws (the span then records the error).
 */
async function requestSpan<State extends RetrievalState, T>(
  name: string,
  started: number,
  runtime: Runtime,
  state: State,
  work: (span: Span) => Promise<{ result: T; endTime: number }>,
): Promise<T> {
  const attributes: Attributes = {
    "docqa.request_id": state.requestId,
    "docqa.org_id": state.orgId,
    "docqa.question.chars": state.input.length,
    ...(runtime.config.logging.traceContent ? { "docqa.question": state.input } : {}),
  };
  const clock = startSpanClock(started);
  const parent = withSpanClockIn(context.active(), clock);
  return docqaTracer().startActiveSpan(name, { startTime: clock.time(started), attributes }, parent, async (span) => {
    try {
      const { result, endTime } = await work(span);
      span.setAttributes(stateAttributes(state));
      span.end(clock.time(endTime));
      return result;
    } catch (error) {
      recordSpanError(span, error);
      span.end(clock.time(performance.now()));
      throw error;
    }
  });
}

async function predictInSpan(
  stages: readonly Stage<PredictState>[],
  runtime: Runtime,
  request: PredictRequest,
  perfLog: PerfLog,
  started: number,
  state: PredictState,
): Promise<PredictResult> {
  perfLog({ event: "rag_start", ts: Date.now(), request_id: state.requestId });
  const phases = resolvePhases(stages);
  const lastRetrievalStage = phases.lastIndexOf("retrieval");
  let stageIndex = 0;
  await runStages(stages, state, runtime, {
    pipeline: "predict",
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
  const promptVersion = generated.promptVersion ?? null;
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
    ...predictStateFieldsOf(state),
    query: state.query,
    originalQuery: request.query,
    threadId: state.threadId,
    answerMode: generated.mode,
    abstained: generated.abstained,
    abstentionReason: generated.abstained ? (generated.abstentionReason ?? "not_answerable") : null,
    timings: {
      retrievalMs: totals.retrieval,
      contextMs: totals.context,
      llmMs: totals.generation,
      postMs: totals.post,
      totalMs,
    },
    stages: state.timings,
    generation: {
      model: generated.model,
      numPredict: generated.numPredict,
      numCtx: generated.numCtx,
      fallbackReason,
      promptVersion,
    },
  };
}

/** Runs `stages` for a `search` request, in one span `docqa.search`, parent of the stage spans. */
export async function runSearch(stages: readonly Stage<RetrievalState>[], runtime: Runtime, request: SearchRequest): Promise<SearchResult> {
  const started = performance.now();
  const state = createSearchState(runtime, request);
  return requestSpan("docqa.search", started, runtime, state, async () => {
    await runStages(stages, state, runtime, { pipeline: "search" });
    const total = Math.max(state.total ?? 0, state.chunks.length);
    return { result: { results: state.chunks, total, stages: state.timings }, endTime: performance.now() };
  });
}

/**
 * The initial state of a `search` request: the query planned alone, `limit` results (default
 * `RETRIEVER_TOP_K`), each retriever at least `limit` deep, the request's retrieval overrides.
 *
 * @throws {DocqaError} `invalid_request` for metadata conditions `assertMetadataConditions`
 *   refuses (checked here, once, for every store).
 */
export function createSearchState(runtime: Runtime, request: SearchRequest): RetrievalState {
  const { config } = runtime;
  if (request.metadata) assertMetadataConditions(request.metadata);
  const limit = request.limit ?? config.retrieval.retrieverTopK;
  const settings = retrievalSettingsFromConfig(
    config,
    runtime.reranker,
    {
      retrieverTopK: limit,
      vectorTopK: Math.max(config.retrieval.vectorTopK, limit),
      bm25TopK: Math.max(config.retrieval.bm25TopK, limit),
      ...request.retrieval,
    },
    request.rerank ?? config.retrieval.useReranker,
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
    context: { entries: [], sources: {}, text: "" },
    evidence: undefined,
    tableAnswer: undefined,
    generated: undefined,
    answer: undefined,
    ...initialPredictStateFields(),
    request: { threadId: request.threadId, history: request.history ?? [], onToken: request.onToken, memory: request.memory },
  };
}
