/**
 * Set B's responses in its OpenAPI document: the error body (`{"error": {"code", "message"}}`)
 * with the prose of each status the `/api` routes may answer, the `RateLimit-*` headers every
 * `/api` response carries, and the chat model's failures. Routes written once for both sets take
 * them as {@link setBResponses}.
 */
import { errorContentOf, modelErrorResponses, retryAfterHeaders, type SetResponses } from "@docqa/http";
import type { z } from "@hono/zod-openapi";
import { errorResponseSchema } from "./schemas.js";

/** An error response of set B with `description`. */
export const errorContent = errorContentOf(errorResponseSchema);

/** The `RateLimit-*` headers (IETF draft "RateLimit header fields for HTTP") of every `/api` response. */
export const rateLimitHeaders = {
  "RateLimit-Limit": { schema: { type: "integer" as const }, description: "Requests allowed in the window closest to exhaustion." },
  "RateLimit-Remaining": { schema: { type: "integer" as const }, description: "Requests left in that window." },
  "RateLimit-Reset": { schema: { type: "integer" as const }, description: "Seconds until that window resets." },
  "RateLimit-Policy": { schema: { type: "string" as const }, description: "The windows, for example `100;w=60, 1000;w=3600`." },
};

/** The error responses of every `/api` route of set B, by status. */
export const errors = {
  400: errorContent("Invalid request parameters (`invalid_request`, `invalid_json`); `details` lists invalid fields."),
  401: errorContent("Missing, invalid or expired bearer token (`missing_token`, `invalid_token`, `token_expired`)."),
  413: errorContent(
    "Request body larger than `MAX_REQUEST_BYTES` (an upload: `MAX_UPLOAD_REQUEST_BYTES`) (`payload_too_large`); an uploaded file larger than `MAX_UPLOAD_BYTES` (`file_too_large`); more files than `MAX_UPLOAD_FILES` (`too_many_files`).",
  ),
  415: errorContent(
    "Wrong `Content-Type` (`unsupported_media_type`) or an uploaded file of an unsupported type (`unsupported_file_type`).",
  ),
  429: {
    ...errorContent("Rate limit exceeded (`rate_limited`): wait `Retry-After` seconds."),
    headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait." }, ...rateLimitHeaders },
  },
  500: errorContent("Server error (`internal_error`)."),
  503: {
    ...errorContent(
      "`JWT_SECRET` is not configured (`auth_not_configured`), a store or model is unavailable, the server ran out of file descriptors (`resource_exhausted`, with `Retry-After`), `INGESTION_QUEUE_SIZE` ingestion requests are in progress (`ingestion_busy`, with `Retry-After`), or the in-process model is busy (`model_busy`, with `Retry-After`).",
    ),
    headers: retryAfterHeaders,
  },
};

/** The chat model's failures (`POST /api/chat`). */
export const modelErrors = modelErrorResponses(errorContent);

/** A JSON response of `schema` with `description`, carrying the `RateLimit-*` headers. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description: `${description} Carries the \`RateLimit-*\` headers.`,
  headers: rateLimitHeaders,
});

/** Set B's responses for routes written once for both sets. */
export const setBResponses: SetResponses = { errorContent, jsonResponse, errors };
