/**
 * @docqa/http/testing: helpers for tests of docqa's endpoint sets (and of your own routes): a
 * check of JSON values and Server-Sent Events against the OpenAPI document an app serves.
 */
export { eventStreamProblems, parseEventStream, responseProblems, schemaProblems } from "./openapi-schema-problems.js";
