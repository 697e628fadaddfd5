/**
 * The one table from docqa error codes to HTTP status codes, shared by every HTTP adapter.
 *
 * Model errors: `model_unavailable` is 502 Bad Gateway (the chat model, an upstream server, is
 * down, failing, rate-limiting beyond the retry budget, or rejecting the request) and
 * `model_timeout` 504 Gateway Timeout (RFC 9110 §15.6.3 and §15.6.5). The embedding model and
 * the reranker raise `model_unavailable` only while loading, which the service turns into
 * BM25-only retrieval or no reranking at start-up, so their failures do not reach clients.
 *
 * Overload: `ingestion_busy` and `model_busy` (the in-process model's queue is full) are 503
 * Service Unavailable with `Retry-After` (RFC 9110 §15.6.4: a temporary overload of the server,
 * not of the client's budget, which is 429 `rate_limited`), and so is `resource_exhausted` (the
 * process ran out of file descriptors). A header section too large for the server is 431 Request
 * Header Fields Too Large (RFC 6585 §5), `headers_too_large`.
 */
import type { DocqaErrorCode } from "@docqa/core";

/** HTTP status for each {@link DocqaErrorCode}. */
export const errorStatus: Readonly<
  Record<DocqaErrorCode, 400 | 401 | 403 | 404 | 405 | 408 | 413 | 415 | 429 | 431 | 500 | 502 | 503 | 504>
> = {
  config_invalid: 500,
  invalid_request: 400,
  invalid_json: 400,
  missing_token: 401,
  invalid_token: 401,
  token_expired: 401,
  auth_not_configured: 503,
  principal_mismatch: 403,
  forbidden: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_found: 404,
  method_not_allowed: 405,
  embedding_dimension_mismatch: 500,
  embedding_model_mismatch: 500,
  store_unavailable: 503,
  store_corrupt: 500,
  model_unavailable: 502,
  model_timeout: 504,
  model_busy: 503,
  rate_limited: 429,
  ingestion_busy: 503,
  too_many_documents: 413,
  too_many_files: 413,
  resource_exhausted: 503,
  headers_too_large: 431,
  request_timeout: 408,
  internal_error: 500,
  empty_file: 400,
  file_too_large: 413,
  unsupported_file_type: 415,
  content_type_mismatch: 415,
  corrupt_file: 400,
  password_protected: 400,
  no_text_layer: 400,
  invalid_encoding: 400,
  csv_ragged_rows: 400,
  json_too_deep: 400,
  archive_too_large: 413,
  too_many_pages: 413,
};
