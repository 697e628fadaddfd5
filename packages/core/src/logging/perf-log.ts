/**
 * The spec's performance events ("Events": `rag_start`, `retrieval_done`, `rag_end`), each one
 * line `PERF {json}` with integer millisecond times, written when `PERF_LOG` is true.
 */

/** Fields of a `rag_start` event. */
export interface RagStartEvent {
  event: "rag_start";
  /** Epoch milliseconds. */
  ts: number;
  request_id: string;
}

/** Fields of a `retrieval_done` event. */
export interface RetrievalDoneEvent {
  event: "retrieval_done";
  ts: number;
  request_id: string;
  retrieval_ms: number;
  docs_count: number;
}

/** Fields of the full `rag_end` event. */
export interface RagEndEvent {
  event: "rag_end";
  ts: number;
  total_ms: number;
  request_id: string;
  /** SHA-256 of the normalised query, first 16 hex digits: correlates requests without logging text. */
  query_hash: string;
  retrieval_ms: number;
  context_ms: number;
  llm_ms: number;
  post_ms: number;
  docs_count: number;
  context_chars: number;
  /** Model that produced the answer (`extractive` when no model is configured). */
  model: string;
  num_predict: number | null;
  num_ctx: number | null;
  /** docqa addition: `model`, `extractive`, `extractive-fallback` or `empty-context`. */
  answer_mode: string;
  /** docqa addition: why the model's answer was replaced by the extractive one, else null. */
  fallback_reason?: string | null;
  /** docqa addition: version of the answer prompt (`PROMPT_VERSION`), null without a model. */
  prompt_version?: string | null;
  /** docqa addition: `unchanged`, `heuristic` or `model`: how a follow-up was made standalone. */
  query_rewrite?: string;
  /** docqa addition: whether the answer abstained (the empty-context answer). */
  abstained?: boolean;
  /** docqa addition: `no_documents`, `low_relevance` or `not_answerable` when it abstained, else null. */
  abstention_reason?: string | null;
  /**
   * docqa addition: the check that decided the abstention (`no_context`, `relevance`, `answerability`,
   * `model_declined` when a chat model said the sources hold no answer, or `answerer` when the
   * answerer itself abstained), else null.
   */
  abstention_check?: string | null;
  /** docqa addition: number of cited statements their cited chunk does not support. */
  unsupported_citations?: number;
}

/** Any PERF event. */
export type PerfEvent = RagStartEvent | RetrievalDoneEvent | RagEndEvent;

/** Receives PERF events; see {@link createPerfLog}. */
export type PerfLog = (event: PerfEvent) => void;

/**
 * A PERF sink printing `PERF {json}` lines.
 *
 * @param enabled - `PERF_LOG`; when false the sink does nothing.
 * @param write - line sink; default `process.stdout.write`.
 */
export function createPerfLog(enabled: boolean, write: (line: string) => void = (line) => process.stdout.write(line)): PerfLog {
  if (!enabled) return () => {};
  return (event) => write(`PERF ${JSON.stringify(event)}\n`);
}
