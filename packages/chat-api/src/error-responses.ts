/**
 * Error handling of set B: every error, whatever its source, is answered with one body shape,
 * `{"error": {"code": "...", "message": "..."}}` (plus `details` for invalid fields), and the
 * status of the shared table `errorStatus` of `@docqa/http`.
 */
import { DocqaError, type Logger } from "@docqa/core";
import { errorStatus, type RateLimitDecision } from "@docqa/http";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { ErrorResponseBody } from "./schemas.js";

/** Builds an error response in set B's shape. */
export function errorBody(code: string, message: string, details?: ErrorResponseBody["error"]["details"]): ErrorResponseBody {
  return { error: details ? { code, message, details } : { code, message } };
}

/** The 400 response for a body, query or path parameter that failed schema validation. */
export function validationErrorResponse(c: Context, error: ZodError): Response {
  const details = error.issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join(".") || "(body)",
    message: issue.message,
  }));
  const message = details.map((detail) => `${detail.path}: ${detail.message}`).join("; ");
  return c.json(errorBody("invalid_request", message, details), 400);
}

/** The 429 response of the rate-limit middleware, in set B's shape. */
export function rateLimitedResponse(c: Context, decision: RateLimitDecision): Response {
  const window = decision.windowSeconds === 60 ? "minute" : decision.windowSeconds === 3600 ? "hour" : `${decision.windowSeconds} s`;
  return c.json(
    errorBody(
      "rate_limited",
      `rate limit exceeded: ${decision.limit} requests per ${window} per user; retry after ${decision.retryAfterSeconds} s`,
    ),
    429,
  );
}

function httpExceptionBody(error: HTTPException, c: Context): ErrorResponseBody {
  if (error.status === 413) return errorBody("payload_too_large", error.message || "the request body is too large");
  if (error.status === 415) {
    const contentType = c.req.header("Content-Type") ?? "none";
    return errorBody(
      "unsupported_media_type",
      `unsupported Content-Type (${contentType}): /api/chat and /api/search take application/json, /api/ingest takes multipart/form-data with the files in the field "files"`,
    );
  }
  if (error.message.includes("Malformed JSON")) return errorBody("invalid_json", "the request body is not valid JSON");
  if (error.message.includes("Malformed FormData"))
    return errorBody("invalid_request", "the request body is not valid multipart/form-data");
  return errorBody(error.status === 401 ? "invalid_token" : "invalid_request", error.message || "invalid request");
}

/** `app.onError` handler of set B. */
export function errorResponse(logger: Logger) {
  return (error: Error, c: Context): Response => {
    if (DocqaError.isInstance(error)) {
      const status = errorStatus[error.code];
      if (status >= 500) logger.error(error.message, { component: "chat-api", code: error.code, cause: String(error.cause ?? "") });
      const headers: Record<string, string> = status === 401 ? { "WWW-Authenticate": "Bearer" } : {};
      return c.json(errorBody(error.code, error.publicMessage), status, headers);
    }
    if (error instanceof HTTPException) return c.json(httpExceptionBody(error, c), error.status as ContentfulStatusCode);
    logger.error("unhandled error", { component: "chat-api", error: error.message, stack: error.stack });
    return c.json(errorBody("internal_error", "internal server error"), 500);
  };
}
