/**
 * Error handling of set A: FastAPI's body shape `{"detail": ...}` (existing clients were
 * written against a FastAPI service) plus a stable `code`. Body validation errors use FastAPI's
 * detail list (`type`, `loc`, `msg`) with status 400, as the spec's error table says
 * ("400 Invalid request parameters"), not FastAPI's 422.
 */
import { DocqaError, type DocqaErrorCode, type Logger } from "@docqa/core";
import { errorStatus } from "@docqa/http";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";

/** One FastAPI-style validation problem. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** Maps zod issues to FastAPI's detail list, locating each under `body`. */
export function validationDetails(error: ZodError): ValidationDetail[] {
  return error.issues.map((issue) => ({
    type: issue.code === "invalid_type" && issue.message.includes("undefined") ? "missing" : issue.code,
    loc: ["body", ...issue.path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment))],
    msg: issue.message,
  }));
}

/** The 400 response for a body that failed schema validation. */
export function validationErrorResponse(c: Context, error: ZodError): Response {
  return c.json({ detail: validationDetails(error), code: "invalid_request" satisfies DocqaErrorCode }, 400);
}

/** The status and body of a {@link DocqaError} or any other error, as set A reports it. */
export interface DescribedError {
  status: (typeof errorStatus)[DocqaErrorCode];
  body: { detail: string; code: DocqaErrorCode };
}

/**
 * Maps an error thrown by the service to its status (table `errorStatus`) and FastAPI-style body,
 * logging server-side failures. Anything but a {@link DocqaError} is a 500 `internal_error`
 * whose details are logged, not returned. Used for responses and for SSE `error` events.
 */
export function describeError(error: unknown, logger: Logger): DescribedError {
  if (DocqaError.isInstance(error)) {
    const status = errorStatus[error.code];
    if (status >= 500) logger.error(error.message, { component: "predict-api", code: error.code, cause: String(error.cause ?? "") });
    return { status, body: { detail: error.publicMessage, code: error.code } };
  }
  logger.error("unhandled error", { component: "predict-api", error: (error as Error)?.message, stack: (error as Error)?.stack });
  return { status: 500, body: { detail: "Internal Server Error", code: "internal_error" } };
}

/** `app.onError` handler of set A. */
export function errorResponse(logger: Logger) {
  return (error: Error, c: Context): Response => {
    if (DocqaError.isInstance(error)) {
      const { status, body } = describeError(error, logger);
      const headers: Record<string, string> = status === 401 ? { "WWW-Authenticate": "Bearer" } : {};
      return c.json(body, status, headers);
    }
    if (error instanceof HTTPException) {
      const code: DocqaErrorCode =
        error.status === 413
          ? "payload_too_large"
          : error.status === 415
            ? "unsupported_media_type"
            : error.message.includes("Malformed JSON")
              ? "invalid_json"
              : "invalid_request";
      const message =
        code === "invalid_json"
          ? "the request body is not valid JSON"
          : code === "unsupported_media_type"
            ? "the request body must be JSON (Content-Type: application/json)"
            : error.message || "invalid request";
      return c.json({ detail: message, code }, error.status);
    }
    const { status, body } = describeError(error, logger);
    return c.json(body, status);
  };
}
