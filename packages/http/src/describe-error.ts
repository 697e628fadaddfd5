/**
 * The status, stable code and client-safe message of any error an HTTP adapter meets: a
 * `DocqaError` (status from the one table {@link errorStatus}), an `HTTPException` raised by Hono
 * or its validators (malformed JSON or form data, wrong `Content-Type`), a failure because the
 * process ran out of file descriptors (503 `resource_exhausted`, whatever raised it, for example
 * a module loaded on first use), or anything else (a bug: 500 `internal_error`, logged with its
 * message and stack, never returned). Each endpoint set then renders these in its own body shape.
 *
 * Messages shown to clients never hold the server's directories: the data directory becomes
 * `DATA_DIR` in every message, and any other absolute path in the message of a server error
 * (status 500 and above) is cut to its last segment. Logs keep the full message.
 */
import { DocqaError, type DocqaErrorCode, type Logger } from "@docqa/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorStatus } from "./error-status.js";

/** What {@link describeError} makes of an error. */
export interface DescribedError {
  /** HTTP status: `errorStatus[code]` for a `DocqaError`, the exception's own for an `HTTPException`, else 500. */
  status: ContentfulStatusCode;
  /** Stable machine-readable code. */
  code: DocqaErrorCode;
  /** Message safe to show to the client (no `[docqa] [component]` prefix, no internals). */
  message: string;
  /** Extra response headers: `WWW-Authenticate: Bearer` on a 401 from authentication. */
  headers: Record<string, string>;
}

/** Settings of {@link describeError}. */
export interface DescribeErrorSettings {
  /** Component named in the logs, for example `predict-api`. */
  component: string;
  /** Where failures are logged: server-side ones (status 500 and above) at `error`, client errors at `debug`. */
  logger: Logger;
  /**
   * The message of 415 `unsupported_media_type` for a request whose `Content-Type` no route
   * accepts. Default: `the request body must be JSON (Content-Type: application/json)`.
   */
  unsupportedMediaTypeMessage?: ((c: Context | undefined) => string) | undefined;
  /** The message of 500 `internal_error`; default `internal server error`. */
  internalErrorMessage?: string | undefined;
  /**
   * Directories replaced by `DATA_DIR` in every message shown to a client (the data directory as
   * configured and resolved); read per error. Default none.
   */
  privateDirectories?: (() => readonly string[]) | undefined;
}

/** Seconds a client is asked to wait after `resource_exhausted` (descriptors free up as requests finish). */
export const resourceExhaustedRetrySeconds = 5;

/** System error codes of a process out of file descriptors (per process, and system-wide). */
const descriptorErrorCodes = new Set(["EMFILE", "ENFILE"]);

/**
 * Whether `error` (or an error in its `cause` chain) is a failure to open a file or socket
 * because the process or the system has run out of file descriptors. Node's module loader
 * reports it in the message only ("too many open files").
 */
export function isOutOfDescriptors(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if ((code !== undefined && descriptorErrorCodes.has(code)) || /\b(EMFILE|ENFILE)\b|too many open files/i.test(current.message)) {
      return true;
    }
  }
  return false;
}

/** Absolute file-system paths: a `/` at the start or after a space, quote, bracket or `=`, then two or more segments. */
const absolutePathPattern = /(?<=^|[\s"'`([=])\/(?:[^\s"'`()[\]/]+\/)+([^\s"'`()[\],;]*)/g;

/**
 * `message` as a client may see it: each of `directories` replaced by `DATA_DIR`, and, for a
 * server error, any other absolute path cut to its last segment.
 */
export function redactPaths(message: string, directories: readonly string[], serverError: boolean): string {
  let redacted = message;
  for (const directory of [...directories].filter((entry) => entry.length > 1).sort((a, b) => b.length - a.length)) {
    redacted = redacted.split(directory.replace(/\/+$/, "")).join("DATA_DIR");
  }
  return serverError ? redacted.replace(absolutePathPattern, (_path, last: string) => last) : redacted;
}

const defaultUnsupportedMediaTypeMessage = () => "the request body must be JSON (Content-Type: application/json)";

function httpException(error: HTTPException, settings: DescribeErrorSettings, c: Context | undefined): DescribedError {
  const described = (code: DocqaErrorCode, message: string): DescribedError => ({ status: error.status, code, message, headers: {} });
  if (error.status === 413) return described("payload_too_large", error.message || "the request body is too large");
  if (error.status === 415)
    return described("unsupported_media_type", (settings.unsupportedMediaTypeMessage ?? defaultUnsupportedMediaTypeMessage)(c));
  if (error.message.includes("Malformed JSON")) return described("invalid_json", "the request body is not valid JSON");
  if (error.message.includes("Malformed FormData"))
    return described("invalid_request", "the request body is not valid multipart/form-data");
  return described(error.status === 401 ? "invalid_token" : "invalid_request", error.message || "invalid request");
}

/** The fields a failure is logged with: its code, message and stack, and its cause's. */
function logFields(component: string, code: DocqaErrorCode, error: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    component,
    code,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  };
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined) {
    fields.cause = cause instanceof Error ? cause.message : String(cause);
    if (cause instanceof Error && cause.stack) fields.cause_stack = cause.stack;
  }
  return fields;
}

/**
 * Describes `error` for a response or a Server-Sent Events `error` event, and logs it with its
 * code, message and stack (and its cause's): failures of the server (status 500 and above, and
 * anything but a `DocqaError` or `HTTPException`) at `error`, client errors at `debug`. A
 * `DocqaError` with `retryAfterSeconds`, and `resource_exhausted`, get a `Retry-After` header.
 * The message is redacted by {@link redactPaths} (module documentation).
 *
 * @param c the request, when there is one (passed to `unsupportedMediaTypeMessage`).
 */
export function describeError(error: unknown, settings: DescribeErrorSettings, c?: Context): DescribedError {
  const described = describeUnredacted(error, settings, c);
  const message = redactPaths(described.message, settings.privateDirectories?.() ?? [], described.status >= 500);
  return message === described.message ? described : { ...described, message };
}

function describeUnredacted(error: unknown, settings: DescribeErrorSettings, c: Context | undefined): DescribedError {
  if (DocqaError.isInstance(error)) {
    const status = errorStatus[error.code];
    const fields = logFields(settings.component, error.code, error);
    if (status >= 500) settings.logger.error(error.message, fields);
    else settings.logger.debug(error.message, fields);
    const headers: Record<string, string> = status === 401 ? { "WWW-Authenticate": "Bearer" } : {};
    if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    return { status, code: error.code, message: error.publicMessage, headers };
  }
  if (error instanceof HTTPException) {
    const described = httpException(error, settings, c);
    settings.logger.debug(described.message, logFields(settings.component, described.code, error));
    return described;
  }
  const message = (error as Error | undefined)?.message ?? String(error);
  if (isOutOfDescriptors(error)) {
    settings.logger.error(`out of file descriptors: ${message}`, logFields(settings.component, "resource_exhausted", error));
    return {
      status: errorStatus.resource_exhausted,
      code: "resource_exhausted",
      message: "the server has run out of file descriptors (EMFILE); retry later",
      headers: { "Retry-After": String(resourceExhaustedRetrySeconds) },
    };
  }
  settings.logger.error(`unhandled error: ${message}`, logFields(settings.component, "internal_error", error));
  return { status: 500, code: "internal_error", message: settings.internalErrorMessage ?? "internal server error", headers: {} };
}
