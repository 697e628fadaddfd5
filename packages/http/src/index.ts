/**
 * @docqa/http: pieces shared by docqa's Hono adapters: bearer-JWT authentication, the error
 * status table, FastAPI-compatible body handling, and offline reference pages.
 */
export { type AuthenticatedUser, type AuthVariables, bearerAuth } from "./bearer-auth.js";
export { errorStatus } from "./error-status.js";
export { defaultJsonContentType } from "./json-body-defaults.js";
export { mountReferencePages, type ReferencePagesSettings } from "./reference-pages.js";
