/**
 * Error bodies of set B: every error, whatever its source, is answered with one body shape,
 * `{"error": {"code": "...", "message": "..."}}` (plus `details` for invalid fields). Statuses
 * and codes come from `@docqa/http`'s `createDocqaApp` (the shared table `errorStatus`).
 */
import { type ErrorFormat, type RateLimitDecision, rateLimitedMessage } from "@docqa/http";
import type { Context } from "hono";
import type { ZodError } from "zod";
import type { ErrorResponseBody } from "./schemas.js";

/** Builds an error response in set B's shape. */
export function errorBody(code: string, message: string, details?: ErrorResponseBody["error"]["details"]): ErrorResponseBody {
  return { error: details ? { code, message, details } : { code, message } };
}

/** The 400 body for a body, query or path parameter that failed schema validation. */
function validationErrorBody(error: ZodError): ErrorResponseBody {
  const details = error.issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join(".") || "(body)",
    message: issue.message,
  }));
  const message = details.map((detail) => `${detail.path}: ${detail.message}`).join("; ");
  return errorBody("invalid_request", message, details);
}

/** The 429 response of the rate-limit middleware, in set B's shape. */
export function rateLimitedResponse(c: Context, decision: RateLimitDecision): Response {
  return c.json(errorBody("rate_limited", rateLimitedMessage(decision)), 429);
}

/** Set B's {@link ErrorFormat}. */
export const setBErrors: ErrorFormat = {
  body: (code, message) => errorBody(code, message),
  validation: validationErrorBody,
  unsupportedMediaTypeMessage: (c) =>
    `unsupported Content-Type (${c?.req.header("Content-Type") ?? "none"}): /api/chat and /api/search take application/json, /api/ingest takes multipart/form-data with the files in the field "files"`,
  internalErrorMessage: "internal server error",
};
