/**
 * The document stores contract and this backend's own cases against OpenSearch at
 * `DOCQA_TEST_OPENSEARCH_URL` (set by scripts/services/env.sh; no default port). In CI (`CI=true`) a
 * missing server fails the run; elsewhere the suite is skipped with a message.
 */
import { isContinuousIntegration } from "@docqa/core/testing";
import { describeSearchEngineIntegration } from "./describe-search-engine-integration.js";

await describeSearchEngineIntegration({
  engine: "opensearch",
  url: process.env.DOCQA_TEST_OPENSEARCH_URL || undefined,
  variable: "DOCQA_TEST_OPENSEARCH_URL",
  required: isContinuousIntegration(),
});
