/**
 * Errors across a thread boundary: a worker thread's error keeps only its message and stack when
 * it is cloned, not its `code`, so workers send a {@link SerializedError} and the caller rebuilds
 * the {@link DocqaError}. Used by the ingestion workers and the model threads.
 */
import { DocqaError, type DocqaErrorCode } from "./docqa-error.js";

/** A failure, as it crosses a thread boundary. */
export interface SerializedError {
  code: DocqaErrorCode;
  /** The client-safe message (without the `[docqa] [component]` prefix). */
  message: string;
  component?: string | undefined;
  details?: unknown;
  retryAfterSeconds?: number | undefined;
  /** The stack in the worker, for logs. */
  stack?: string | undefined;
}

/**
 * Serialises any error; one that is not a {@link DocqaError} becomes `internal_error` of
 * `component` (default `ingestion-worker`).
 */
export function serializeError(error: unknown, component = "ingestion-worker"): SerializedError {
  if (DocqaError.isInstance(error)) {
    return {
      code: error.code,
      message: error.publicMessage,
      component: error.component,
      details: error.details,
      retryAfterSeconds: error.retryAfterSeconds,
      stack: error.stack,
    };
  }
  return {
    code: "internal_error",
    message: error instanceof Error ? error.message : String(error),
    component,
    stack: error instanceof Error ? error.stack : undefined,
  };
}

/** The {@link DocqaError} of a serialised error, whose `cause` carries the worker's stack. */
export function deserializeError(serialized: SerializedError): DocqaError {
  const cause = new Error(serialized.message);
  cause.stack = serialized.stack ?? cause.stack;
  return new DocqaError(serialized.code, serialized.message, {
    component: serialized.component,
    details: serialized.details,
    retryAfterSeconds: serialized.retryAfterSeconds,
    cause,
  });
}
