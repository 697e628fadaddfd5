/**
 * @docqa/chat-api: endpoint set B of docqa (`/health`, `/api/chat`, `/api/search`,
 * `/api/ingest`) as Hono routes, with per-user rate limits and offline reference pages.
 */

export { answerConfidence, type ConfidenceParts, type FusionWeights } from "./answer-confidence.js";
export { type ChatPredictRequest, type ChatRoutesOptions, chatRoutes } from "./chat-routes.js";
export * from "./documents-wire.js";
export { errorBody, rateLimitedResponse, setBErrors } from "./error-responses.js";
export { type RenderedAnswer, renderAnswer, sourceFileNames } from "./render-answer.js";
export * from "./schemas.js";
export { createdAtBound, searchConditions } from "./search-conditions.js";
