/**
 * OpenAPI response declarations both endpoint sets share, whatever their error body shape: the
 * chat model's failures (502, 504) and the `Retry-After` header of a 503.
 */

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
