/**
 * @docqa/http: pieces shared by docqa's Hono adapters: the app factory of the endpoint sets
 * (error handling, 404/405, request limits, bearer authentication, rate limits, reference pages),
 * the error status table, FastAPI-compatible body handling, uploads streamed to disk, the
 * readiness route, the documents API routes, the answer wire derived from the result schema
 * (`resultWireOf`), the OpenAPI declarations both sets share, and the
 * one rate-limiter interface.
 */
export { allowedMethods } from "./allowed-methods.js";
export { type AuthenticatedUser, type AuthVariables, bearerAuth } from "./bearer-auth.js";
export { answerClientErrors, type ClientErrorSource, describeClientError } from "./client-errors.js";
export {
  type AuthenticatedRoute,
  createDocqaApp,
  type DocqaApp,
  type DocqaAppOptions,
  type DocqaEnv,
  type ErrorFormat,
  type ReferencePagesInfo,
  type RequestLimits,
  requestIdHeadersSchema,
  requestIdPattern,
} from "./create-docqa-app.js";
export {
  type DescribedError,
  type DescribeErrorSettings,
  describeError,
  isOutOfDescriptors,
  redactPaths,
  resourceExhaustedRetrySeconds,
} from "./describe-error.js";
export {
  type DocumentFieldNames,
  documentCursorFilter,
  documentFields,
  documentListFilters,
  documentListOf,
  documentListQueryOf,
  documentParams,
  type StoredDocumentShape,
  storedDocumentOf,
  storedDocumentSchemaOf,
} from "./document-schemas.js";
export {
  addDocumentRoutes,
  type DocumentRoutesOptions,
  type DocumentsWire,
  type DocumentsWireSettings,
  documentsWireOf,
} from "./documents-routes.js";
export { errorStatus } from "./error-status.js";
export { defaultJsonContentType } from "./json-body-defaults.js";
export { offlineReferencePages, referencePagesContentSecurityPolicy } from "./offline-reference-pages.js";
export {
  errorContentOf,
  jsonBody,
  jsonResponse,
  modelErrorResponses,
  type ResponseConfig,
  retryAfterHeaders,
  type SetResponses,
} from "./openapi-responses.js";
export {
  authenticatedUserKey,
  bearerTokenUserKey,
  createMemoryRateLimiter,
  createRateLimiters,
  defaultRateLimitPolicy,
  type MemoryRateLimiterSettings,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitOptions,
  type RateLimitPolicy,
  type RateLimitSetting,
  type RateLimitWindow,
  rateLimit,
  rateLimitedMessage,
  rateLimiterFromFlexible,
  rateLimitersFor,
} from "./rate-limit.js";
export {
  addReadinessRoute,
  type ReadinessRouteOptions,
  readinessCheckSchema,
  readinessResponseSchema,
} from "./readiness-route.js";
export {
  baseFileName,
  type ReceivedFile,
  type ReceivedUpload,
  type ReceiveUploadOptions,
  receiveUpload,
} from "./receive-upload.js";
export { mountReferencePages, type ReferencePagesSettings } from "./reference-pages.js";
export {
  defaultMaximumQueryCharacters,
  documentCursorPattern,
  meaningfulTextPattern,
  questionTextSchema,
} from "./request-text.js";
export {
  type ResultWire,
  type ResultWireOptions,
  resultWireOf,
  type ShownFields,
  type WireBody,
  type WireCase,
  type WireFieldOverride,
  type WireName,
  wireName,
} from "./result-wire.js";
export { loadServerConfig, resolveServerConfig, type ServerConfig, serverConfigSchema } from "./server-config.js";
