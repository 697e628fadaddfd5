/**
 * @docqa/http: pieces shared by docqa's Hono adapters: bearer-JWT authentication, the error
 * status table, FastAPI-compatible body handling, offline reference pages, and per-user rate limits.
 */
export { type AuthenticatedUser, type AuthVariables, bearerAuth } from "./bearer-auth.js";
export { errorStatus } from "./error-status.js";
export { defaultJsonContentType } from "./json-body-defaults.js";
export { offlineReferencePages, referencePagesContentSecurityPolicy } from "./offline-reference-pages.js";
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
  rateLimit,
  rateLimiterFromFlexible,
} from "./rate-limit.js";
export { mountReferencePages, type ReferencePagesSettings } from "./reference-pages.js";
