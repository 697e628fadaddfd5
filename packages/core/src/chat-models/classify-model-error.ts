/**
 * Classification of errors thrown by chat model clients (the `openai` SDK under
 * `@langchain/openai`, the `ollama` client under `@langchain/ollama`, `fetch`) into what the
 * retry layer needs: may the call be retried, after how long, and which {@link DocqaError} to
 * raise when it may not.
 */
import { DocqaError, type DocqaErrorCode } from "../errors/docqa-error.js";

/**
 * Kind of a model call failure:
 * - `rate_limited`: HTTP 429 (retried unless the quota is exhausted);
 * - `server_error`: HTTP 5xx or 408 (retried);
 * - `unreachable`: the connection failed or was cut (`ECONNREFUSED`, `ECONNRESET`, a stream
 *   ended by the server mid-way) (retried);
 * - `rejected`: any other HTTP 4xx, for example 401 for a wrong `HOSTEDLLM_API_KEY` or 404 for an
 *   unknown model (not retried);
 * - `timeout`: the client's own timeout fired (not retried);
 * - `aborted`: the call was cancelled (not retried, not reported as a model failure);
 * - `unknown`: anything else, for example a bug (not retried; rethrown as is).
 */
export type ModelFailureKind = "rate_limited" | "server_error" | "unreachable" | "rejected" | "timeout" | "aborted" | "unknown";

/** A classified failure. */
export interface ModelFailure {
  kind: ModelFailureKind;
  retryable: boolean;
  /** HTTP status, when the provider answered. */
  status?: number | undefined;
  /** Delay the provider asked for (`retry-after-ms`, `Retry-After`), in milliseconds. */
  retryAfterMs?: number | undefined;
  /** Short description for logs and error messages. */
  description: string;
}

const connectionCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/**
 * Classifies an error of a model call.
 *
 * Status is read from `status`, `statusCode`, `status_code` (ollama's `ResponseError`) or
 * `response.status`; the retry delay from `retry-after-ms` (OpenAI) or `Retry-After` (RFC 9110
 * §10.2.3: seconds or an HTTP date), or LangChain's `retryAfterMs`. A 429 with the code
 * `insufficient_quota` is not retried: waiting does not restore a quota.
 */
export function classifyModelError(error: unknown): ModelFailure {
  const record = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const name = typeof record.name === "string" ? record.name : "";
  const message = typeof record.message === "string" ? record.message : String(error);
  const status = statusOf(record);
  if (status !== undefined) {
    const retryAfterMs = retryAfterOf(record);
    const description = `HTTP ${status}: ${truncate(message)}`;
    if (status === 429) {
      const quota = codeOf(record) === "insufficient_quota" || record.rateLimitType === "stop";
      return { kind: "rate_limited", retryable: !quota, status, retryAfterMs, description };
    }
    if (status >= 500 || status === 408) return { kind: "server_error", retryable: true, status, retryAfterMs, description };
    if (status >= 400) return { kind: "rejected", retryable: false, status, description };
  }
  if (name === "TimeoutError" || name === "APIConnectionTimeoutError") {
    return { kind: "timeout", retryable: false, description: truncate(message) };
  }
  if (name === "AbortError" || name === "APIUserAbortError" || name === "ModelAbortError") {
    return { kind: "aborted", retryable: false, description: truncate(message) };
  }
  if (isConnectionFailure(record, name, message)) {
    return { kind: "unreachable", retryable: true, description: truncate(connectionDescription(record, message)) };
  }
  return { kind: "unknown", retryable: false, description: truncate(message) };
}

/**
 * Parses a retry delay header value: `Retry-After` as delay-seconds or an HTTP date (RFC 9110
 * §10.2.3), in milliseconds; undefined when absent or malformed. Dates in the past give 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Details of a `model_unavailable` error, safe to show to a client. */
export interface ModelErrorDetails {
  /** What happened: `rate_limited`, `server_error`, `unreachable`, `rejected` or `timeout`. */
  reason: ModelFailureKind;
  /** The provider's HTTP status, when it answered. */
  status?: number | undefined;
  /** Calls made, retries included. */
  attempts: number;
  /** Delay the provider last asked for, in milliseconds. */
  retryAfterMs?: number | undefined;
}

/**
 * Code of the error raised when a model call times out: `model_timeout` (with
 * `details.reason === "timeout"`), which HTTP adapters map to 504; every other final failure is
 * `model_unavailable` (502).
 */
export const modelTimeoutCode: DocqaErrorCode = "model_timeout";

/** The {@link DocqaError} for a failure that is final (not retryable, or retries exhausted). */
export function modelFailureError(
  failure: ModelFailure,
  context: { component: string; model: string; attempts: number; cause: unknown; note?: string },
): DocqaError {
  const advice: Record<ModelFailureKind, string> = {
    rate_limited: "the provider rate-limits this key: retry later or raise the key's limits",
    server_error: "the model server keeps failing: check it and retry later",
    unreachable: "the model server cannot be reached: check HOSTEDLLM_BASE_URL or LOCALLLM_BASE_URL and that the server runs",
    rejected: "the provider rejected the request: check HOSTEDLLM_API_KEY and the model name (RAG_GENERATOR_MODEL or LOCALLLM_MODEL)",
    timeout: "the model did not answer in time: raise the timeout, use a faster model, or lower MAX_CONTEXT_CHARS",
    aborted: "the call was cancelled",
    unknown: "see the cause",
  };
  const details: ModelErrorDetails = {
    reason: failure.kind,
    status: failure.status,
    attempts: context.attempts,
    retryAfterMs: failure.retryAfterMs,
  };
  const tries = context.attempts === 1 ? "1 attempt" : `${context.attempts} attempts`;
  return new DocqaError(
    failure.kind === "timeout" ? modelTimeoutCode : "model_unavailable",
    `model ${context.model} failed after ${tries} (${failure.description})${context.note ? `; ${context.note}` : ""}: ${advice[failure.kind]}`,
    { component: context.component, cause: context.cause, details },
  );
}

function statusOf(record: Record<string, unknown>): number | undefined {
  for (const key of ["status", "statusCode", "status_code"]) {
    const value = record[key];
    if (typeof value === "number" && value >= 100 && value < 600) return value;
  }
  const response = record.response as { status?: unknown } | undefined;
  return typeof response?.status === "number" ? response.status : undefined;
}

function codeOf(record: Record<string, unknown>): string | undefined {
  if (typeof record.code === "string") return record.code;
  const inner = record.error as { code?: unknown } | undefined;
  return typeof inner?.code === "string" ? inner.code : undefined;
}

function retryAfterOf(record: Record<string, unknown>): number | undefined {
  const headers = (record.headers ?? (record.response as { headers?: unknown } | undefined)?.headers) as unknown;
  const header = (name: string): string | undefined => {
    if (!headers || typeof headers !== "object") return undefined;
    if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === "string" ? value : undefined;
  };
  const milliseconds = header("retry-after-ms");
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Math.round(Number(milliseconds));
  const fromHeader = parseRetryAfter(header("retry-after"));
  if (fromHeader !== undefined) return fromHeader;
  return typeof record.retryAfterMs === "number" ? record.retryAfterMs : undefined;
}

function isConnectionFailure(record: Record<string, unknown>, name: string, message: string): boolean {
  if (name === "APIConnectionError") return true;
  if (message === "Connection error." || message === "fetch failed" || message === "terminated") return true;
  for (let cause: unknown = record, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && connectionCodes.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

function connectionDescription(record: Record<string, unknown>, message: string): string {
  for (let cause: unknown = record.cause, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return `${message} (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return message;
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
