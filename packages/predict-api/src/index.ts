/**
 * @docqa/predict-api: endpoint set A of docqa as Hono routes.
 */

export * from "./documents-wire.js";
export { type SetAErrorBody, setAErrors, type ValidationDetail, validationDetails } from "./error-responses.js";
export { extractQuery, type PredictRoutesOptions, predictResponse, predictRoutes } from "./predict-routes.js";
export * from "./schemas.js";
