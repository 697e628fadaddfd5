/**
 * The document stores contract and this backend's own cases through the Elasticsearch client
 * (`@elastic/elasticsearch`): against Elasticsearch at `DOCQA_TEST_ELASTICSEARCH_URL` when set;
 * otherwise against the OpenSearch test server through the test-only compatibility proxy
 * (`startElasticsearchCompatibilityProxy`), because Elasticsearch cannot be installed on docqa's
 * CI machines. In CI (`CI=true`) a missing server fails the run.
 */
import { isContinuousIntegration } from "@docqa/core/testing";
import { afterAll } from "vitest";
import { describeSearchEngineIntegration } from "./describe-search-engine-integration.js";
import { startElasticsearchCompatibilityProxy } from "./testing/start-elasticsearch-compatibility-proxy.js";

const direct = process.env.DOCQA_TEST_ELASTICSEARCH_URL || undefined;
const openSearch = process.env.DOCQA_TEST_OPENSEARCH_URL || undefined;
const proxy = direct || !openSearch ? undefined : await startElasticsearchCompatibilityProxy(openSearch);
afterAll(() => proxy?.close());

await describeSearchEngineIntegration({
  engine: "elasticsearch",
  url: direct ?? proxy?.url,
  variable: direct ? "DOCQA_TEST_ELASTICSEARCH_URL" : "DOCQA_TEST_OPENSEARCH_URL (through the Elasticsearch compatibility proxy)",
  required: isContinuousIntegration(),
});
