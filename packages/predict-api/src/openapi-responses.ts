/**
 * Set A's responses in its OpenAPI document: the error body (`{"detail", "code"}`) with the
 * prose of each status the authenticated routes may answer, the chat model's failures, and the
 * 200 response of a prediction route (JSON or Server-Sent Events).
 * Routes written once for both sets take them as {@link setAResponses}.
 */
import { errorContentOf, jsonResponse, modelErrorResponses, retryAfterHeaders, type SetResponses } from "@docqa/http";
import type { z } from "@hono/zod-openapi";
import { errorResponseSchema } from "./schemas.js";

/** An error response of set A with `description`. */
export const errorContent = errorContentOf(errorResponseSchema);

/** The error responses of every authenticated route of set A, by status. */
export const authErrors = {
  400: errorContent(
    "Invalid request parameters (FastAPI-style `detail` list for body validation errors); a JSON body nested deeper than `MAX_JSON_DEPTH` (`json_too_deep`).",
  ),
  401: errorContent("Missing, invalid or expired bearer token."),
  403: errorContent(
    "`principal_mismatch`: `user_info.user_name` (or `user_email`) differs from the token's `email`; `forbidden`: the write rules refuse the request (docs/access-control.md).",
  ),
  413: errorContent(
    "Request body larger than `MAX_REQUEST_BYTES` (`payload_too_large`); for `/upsert`, more documents than `MAX_UPSERT_DOCUMENTS` (`too_many_documents`) or a document longer than `MAX_EXTRACTED_CHARS` (`payload_too_large`).",
  ),
  415: errorContent("A body that is not JSON (`Content-Type` other than `application/json`; `unsupported_media_type`)."),
  429: {
    ...errorContent("Rate limit exceeded (`rate_limited`; only with `RATE_LIMIT_SET_A=true`): wait `Retry-After` seconds."),
    headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait." } },
  },
  500: errorContent("Server error."),
  503: {
    ...errorContent(
      "`JWT_SECRET` is not configured, a store is unavailable, the server ran out of file descriptors (`resource_exhausted`, with `Retry-After`), (`/upsert`) `INGESTION_QUEUE_SIZE` ingestion requests are in progress (`ingestion_busy`, with `Retry-After`), or the in-process model is busy (`model_busy`, with `Retry-After`).",
    ),
    headers: retryAfterHeaders,
  },
};

/** The chat model's failures (502, 504) of `/predict` and `/testpredict`. */
export const modelErrors = modelErrorResponses(errorContent);

/**
 * The 200 response of a prediction route: the JSON body, or Server-Sent Events, whose `schema`
 * describes one event (`streamEventJsonSchema`; OpenAPI 3.1 has no `itemSchema`).
 */
export const predictionContent = (
  schema: z.ZodType,
  eventSchemaName: "PredictStreamEvent" | "TestPredictStreamEvent",
  description: string,
) => ({
  content: {
    "application/json": { schema },
    "text/event-stream": {
      schema: { $ref: `#/components/schemas/${eventSchemaName}` },
      example:
        'event: token\ndata: {"text":"{\\"callout_answer\\": \\"New"}\n\nevent: final\ndata: {"answer":{"callout_answer":"New employees get 20 days. [Source: doc_1]","positive_list":[],"negative_list":[],"info_list":[],"keywords":[]},"sources":{},"thread_id":"0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60"}\n\n',
    },
  },
  description: `${description} With \`Accept: text/event-stream\` or \`"stream": true\`: Server-Sent Events, \`token\` events (\`{"text": ...}\`, a preview of the model's output) then one \`final\` event whose data is the JSON body; an error after the first event is an \`error\` event (\`{"detail", "code"}\`). Each event is \`${eventSchemaName}\`.`,
});

/** Set A's responses for routes written once for both sets. */
export const setAResponses: SetResponses = { errorContent, jsonResponse, errors: authErrors };
