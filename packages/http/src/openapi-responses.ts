/**
 * OpenAPI request and response declarations both endpoint sets share, whatever their error body
 * shape: a required JSON body, a JSON response, an error response of a set's error schema, the
 * chat model's failures (502, 504), the `Retry-After` header of a 503, and {@link SetResponses},
 * what a set passes to routes written once for both sets.
 */
import type { RouteConfig, z } from "@hono/zod-openapi";

/** One response of a route's `responses` (`@hono/zod-openapi`). */
export type ResponseConfig = RouteConfig["responses"][string];

/**
 * How a set declares responses in its OpenAPI document; routes shared by both sets (the documents
 * API) build theirs with it.
 */
export interface SetResponses {
  /** An error response with `description`, whose body is the set's error schema. */
  errorContent(description: string): ResponseConfig;
  /** A JSON response of `schema` with `description` (set B adds its `RateLimit-*` headers). */
  jsonResponse(schema: z.ZodType, description: string): ResponseConfig;
  /** The error responses every authenticated route of the set may answer, by status. */
  errors: Partial<Record<number, ResponseConfig>>;
}

/** A required JSON request body of `schema`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { "application/json": { schema } }, required: true } satisfies NonNullable<RouteConfig["request"]>["body"];
}

/** A JSON response of `schema` with `description`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/**
 * The error responses of a set: `errorContent(description)` is a response with `description`
 * whose body is `schema` (set A's `{"detail", "code"}`, set B's `{"error": {...}}`).
 */
export function errorContentOf<T extends z.ZodType>(schema: T) {
  return (description: string) => ({ content: { "application/json": { schema } }, description });
}

/** The OpenAPI `headers` of a 503 that may ask the client to wait (`ingestion_busy`, `resource_exhausted`). */
export const retryAfterHeaders = {
  "Retry-After": {
    schema: { type: "integer" as const },
    description: "With `ingestion_busy`, `model_busy` and `resource_exhausted`: seconds to wait.",
  },
};

/**
 * The 502 and 504 responses of a route that calls the chat model, each built by `errorContent`
 * (the set's error body schema with a description).
 */
export function modelErrorResponses<T>(errorContent: (description: string) => T): { 502: T; 504: T } {
  return {
    502: errorContent(
      "`model_unavailable`: the chat model stays down, keeps failing, rate-limits beyond the retry budget, or rejects the request.",
    ),
    504: errorContent("`model_timeout`: the chat model did not answer within `RAG_LLM_TIMEOUT_MS`."),
  };
}
