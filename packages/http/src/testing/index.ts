/**
 * @docqa/http/testing: helpers for tests of docqa's endpoint sets (and of your own routes): the
 * route-test harness (an app over a test service), and a check of JSON values and Server-Sent
 * Events against the OpenAPI document an app serves.
 */
export { eventStreamProblems, parseEventStream, responseProblems, schemaProblems } from "./openapi-schema-problems.js";
export { createRouteTests, type RouteTest, type RouteTestOptions, type RouteTests } from "./route-tests.js";
