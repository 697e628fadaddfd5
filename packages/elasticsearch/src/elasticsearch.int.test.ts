/**
 * The document stores contract and this backend's own cases against Elasticsearch at
 * `DOCQA_TEST_ELASTICSEARCH_URL` (no default: port 9200 usually serves OpenSearch in docqa's test
 * set-up). Skipped with a message when the variable is unset; when it is set in CI
 * (`CI=true`), an unreachable server fails the run.
 */
import { isContinuousIntegration } from "@docqa/core/testing";
import { describeSearchEngineIntegration } from "./describe-search-engine-integration.js";

const url = process.env.DOCQA_TEST_ELASTICSEARCH_URL;

await describeSearchEngineIntegration({
  engine: "elasticsearch",
  url,
  variable: "DOCQA_TEST_ELASTICSEARCH_URL",
  required: isContinuousIntegration() && url !== undefined,
});
