/**
 * The one error class of docqa. Every failure the library reports carries a stable
 * {@link DocqaErrorCode}, a message that names the component and says what to do, and the
 * original `cause`. HTTP adapters map codes to status codes in one table; the core knows
 * nothing of HTTP.
 */

const marker = Symbol.for("docqa.error");

/**
 * Stable, machine-readable error codes. Clients may branch on these; they never change meaning.
 *
 * - `config_invalid`: a configuration value failed validation at start-up.
 * - `invalid_request`: a request field is missing, of the wrong type, or out of range.
 * - `invalid_json`: the request body is not valid JSON.
 * - `missing_token`, `invalid_token`, `token_expired`: bearer JWT problems (HTTP 401).
 * - `auth_not_configured`: `JWT_SECRET` is unset (HTTP 503, spec "Authentication" 4).
 * - `principal_mismatch`: the body names a different user than the token (HTTP 403).
 * - `forbidden`: the principal may not do this to this resource, for example replace or delete a
 *   document it does not own (the write rules of `docs/access-control.md`; HTTP 403). Nothing
 *   was written.
 * - `payload_too_large`: a body or document exceeds a configured size limit.
 * - `unsupported_media_type`: the request body or an uploaded file is of a type not accepted.
 * - `not_found`: a route or resource does not exist.
 * - `method_not_allowed`: the route exists, but not for the request's method (HTTP 405).
 * - `embedding_dimension_mismatch`: `EMBED_DIMENSION` disagrees with the model or the index.
 * - `embedding_model_mismatch`: an index holds vectors of another embedding model.
 * - `store_unavailable`: a store (embedded database, Milvus, OpenSearch, Redis) failed or timed out.
 * - `store_corrupt`: the embedded store's files could not be opened.
 * - `model_unavailable`: a model could not be loaded or reached. For the chat model (HTTP 502):
 *   the provider stays down, keeps failing, rate-limits beyond the retry budget, or rejects the
 *   request (`details.reason`). The embedding model and the reranker also raise it when their
 *   files cannot be loaded, but the service catches that at start-up (BM25-only retrieval, no
 *   reranking), so it never reaches a client of the service.
 * - `model_timeout`: the chat model did not answer within `RAG_LLM_TIMEOUT_MS` (HTTP 504).
 * - `model_busy`: the in-process model (`RAG_LLM_PROVIDER=llama-cpp`) is generating
 *   `LOCALLLM_SEQUENCES` answers and `LOCALLLM_QUEUE_SIZE` more calls wait; retry after
 *   `retryAfterSeconds` (HTTP 503 with `Retry-After`).
 * - `rate_limited`: the user's request budget is spent (`RATE_LIMIT_PER_MINUTE`/`_PER_HOUR`; HTTP 429).
 * - `ingestion_busy`: `INGESTION_QUEUE_SIZE` ingestion requests are already accepted and not
 *   finished; retry after `retryAfterSeconds` (HTTP 503 with `Retry-After`).
 * - `too_many_documents`: an `/upsert` holds more than `MAX_UPSERT_DOCUMENTS` documents (HTTP 413).
 * - `too_many_files`: an upload holds more than `MAX_UPLOAD_FILES` files (HTTP 413).
 * - `resource_exhausted`: the process ran out of an operating-system resource while serving the
 *   request, such as file descriptors (EMFILE, ENFILE); retry later, or raise the limit
 *   (`ulimit -n`; HTTP 503 with `Retry-After`).
 * - `headers_too_large`: the request's header section is larger than the HTTP server accepts
 *   (Node's `maxHeaderSize`, 16 KiB by default; HTTP 431, RFC 6585 section 5).
 * - `request_timeout`: the request was not received within the server's time limit (HTTP 408).
 * - `internal_error`: a bug; the cause holds the details.
 *
 * File ingestion (a file is rejected, the rest of its batch goes on):
 * - `empty_file`: the file has no content, or only whitespace.
 * - `file_too_large`: larger than `MAX_UPLOAD_BYTES`, more text than `MAX_EXTRACTED_CHARS`, or a
 *   parse that took its ingestion thread past `INGESTION_WORKER_HEAP_MB`.
 * - `unsupported_file_type`: an extension no loader reads (`supportedExtensions`).
 * - `content_type_mismatch`: the content is not what the extension says (a `.pdf` that is a zip).
 * - `corrupt_file`: the file cannot be parsed (truncated PDF or DOCX, invalid JSON, broken CSV quoting).
 * - `password_protected`: the PDF needs a password to open.
 * - `no_text_layer`: the PDF has no extractable text (scanned images; OCR is not performed).
 * - `invalid_encoding`: text that is neither UTF-8, UTF-16 nor a recognised legacy encoding.
 * - `csv_ragged_rows`: CSV rows whose number of fields differs from the header's.
 * - `json_too_deep`: JSON (a file or a request body) nested deeper than `MAX_JSON_DEPTH` (64 levels).
 * - `archive_too_large`: a DOCX (zip) with more entries than `MAX_ARCHIVE_ENTRIES`, or whose parts
 *   inflate beyond `MAX_ARCHIVE_ENTRY_BYTES` (one part), beyond their declared sizes,
 *   `MAX_ARCHIVE_BYTES` (the parts read together) or `MAX_COMPRESSION_RATIO` (a zip bomb).
 * - `too_many_pages`: a PDF with more pages than `MAX_PDF_PAGES`.
 */
export type DocqaErrorCode =
  | "config_invalid"
  | "invalid_request"
  | "invalid_json"
  | "missing_token"
  | "invalid_token"
  | "token_expired"
  | "auth_not_configured"
  | "principal_mismatch"
  | "forbidden"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_found"
  | "method_not_allowed"
  | "embedding_dimension_mismatch"
  | "embedding_model_mismatch"
  | "store_unavailable"
  | "store_corrupt"
  | "model_unavailable"
  | "model_timeout"
  | "model_busy"
  | "rate_limited"
  | "ingestion_busy"
  | "too_many_documents"
  | "too_many_files"
  | "resource_exhausted"
  | "headers_too_large"
  | "request_timeout"
  | "internal_error"
  | "empty_file"
  | "file_too_large"
  | "unsupported_file_type"
  | "content_type_mismatch"
  | "corrupt_file"
  | "password_protected"
  | "no_text_layer"
  | "invalid_encoding"
  | "csv_ragged_rows"
  | "json_too_deep"
  | "archive_too_large"
  | "too_many_pages";

/** Options of {@link DocqaError}. */
export interface DocqaErrorOptions {
  /** The component that failed, for example `"embedded-store"` or `"auth"`; shown in the message. */
  component?: string;
  /** The underlying error, always kept. */
  cause?: unknown;
  /** Structured details safe to show to a client (for example validation issues). */
  details?: unknown;
  /** Seconds after which retrying may succeed (`ingestion_busy`, `model_busy`); HTTP adapters send it as `Retry-After`. */
  retryAfterSeconds?: number | undefined;
}

/**
 * Error thrown by every docqa package.
 *
 * @example
 * ```ts
 * try { await service.predict(request); }
 * catch (error) { if (DocqaError.isInstance(error) && error.code === "invalid_request") ... }
 * ```
 */
export class DocqaError extends Error {
  /** Stable error code; see {@link DocqaErrorCode}. */
  readonly code: DocqaErrorCode;
  /** Component that raised the error, if known. */
  readonly component: string | undefined;
  /** Client-safe structured details, if any. */
  readonly details: unknown;
  /** Seconds after which retrying may succeed, when the failure is temporary (`ingestion_busy`, `model_busy`). */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: DocqaErrorCode, message: string, options: DocqaErrorOptions = {}) {
    const prefix = options.component ? `[docqa] [${options.component}] ` : "[docqa] ";
    super(prefix + message, options.cause === undefined ? undefined : { cause: options.cause });
    Object.defineProperty(this, marker, { value: true, enumerable: false });
    this.name = "DocqaError";
    this.code = code;
    this.component = options.component;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The message without the `[docqa] [component]` prefix, for client-facing bodies. */
  get publicMessage(): string {
    return this.message.replace(/^\[docqa\] (\[[^\]]+\] )?/, "");
  }

  /**
   * True when `value` is a {@link DocqaError}, even one created by another copy of this package
   * (the check uses a `Symbol.for` marker, not `instanceof`).
   */
  static isInstance(value: unknown): value is DocqaError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
