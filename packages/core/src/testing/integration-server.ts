/**
 * The servers of an integration test run and the names its tests create in them. A run's servers
 * are the ones `scripts/services/start-all.sh` started on free ports and `scripts/services/env.sh`
 * exported (`DOCQA_TEST_REDIS_URL`, `DOCQA_TEST_MILVUS_URI`, `DOCQA_TEST_OPENSEARCH_URL`,
 * `DOCQA_TEST_ELASTICSEARCH_URL`): a test never falls back to a well-known port (6379, 19530,
 * 9200) where somebody else's server may run. Every collection, index and key a test creates
 * carries {@link testRunId}, and each test file removes its own at the end.
 */
import { randomBytes } from "node:crypto";
import { isTcpReachable } from "./is-tcp-reachable.js";
import { isContinuousIntegration } from "./shared-data.js";

/**
 * A server kind the integration tests use. `opensearch-cluster` is the three-node cluster of
 * `scripts/services/start-opensearch-cluster.sh` (its URL is the three nodes' URLs, comma-separated),
 * and `milvus-server` the Milvus server of `scripts/services/start-milvus-server.sh` (not milvus-lite),
 * are used by the cluster tests only (`npm run test:cluster`).
 */
export type IntegrationServerKind = "redis" | "milvus" | "opensearch" | "elasticsearch" | "opensearch-cluster" | "milvus-server";

/** The environment variable naming each kind's URL. */
export const integrationServerVariables: Readonly<Record<IntegrationServerKind, string>> = {
  redis: "DOCQA_TEST_REDIS_URL",
  milvus: "DOCQA_TEST_MILVUS_URI",
  opensearch: "DOCQA_TEST_OPENSEARCH_URL",
  elasticsearch: "DOCQA_TEST_ELASTICSEARCH_URL",
  "opensearch-cluster": "DOCQA_TEST_OPENSEARCH_CLUSTER_URLS",
  "milvus-server": "DOCQA_TEST_MILVUS_SERVER_URI",
};

const displayNames: Readonly<Record<IntegrationServerKind, string>> = {
  redis: "Redis",
  milvus: "Milvus",
  opensearch: "OpenSearch",
  elasticsearch: "Elasticsearch",
  "opensearch-cluster": "OpenSearch cluster node",
  "milvus-server": "Milvus server",
};

/** Where a test's server is, or why the test is skipped. */
export interface IntegrationServer {
  kind: IntegrationServerKind;
  /** The URL from the environment; undefined when the variable is unset. */
  url: string | undefined;
  /** True when the URL is set and accepts TCP connections. */
  available: boolean;
  /** One line saying why the tests are skipped, when they are. */
  skipReason: string | undefined;
}

/**
 * The server of `kind` for the integration tests of `testName` (used in the message). When the
 * variable is unset or the server does not accept connections, the tests skip: a one-line
 * warning says why and how to start the servers; under `CI=true` it throws instead, so CI fails
 * loudly rather than skipping.
 *
 * @throws {Error} in CI when the server is missing.
 */
export async function integrationServer(kind: IntegrationServerKind, testName: string): Promise<IntegrationServer> {
  const variable = integrationServerVariables[kind];
  const url = process.env[variable] || undefined;
  // Every node of a comma-separated list must accept connections.
  const available = url !== undefined && (await Promise.all(url.split(",").map((item) => isTcpReachable(item.trim())))).every(Boolean);
  const how =
    kind === "opensearch-cluster" || kind === "milvus-server"
      ? `start it with scripts/services/start-${kind}.sh, then source scripts/services/env.sh`
      : "start the servers with scripts/services/start-all.sh, then source scripts/services/env.sh";
  const skipReason = available
    ? undefined
    : url === undefined
      ? `${variable} is not set (${how})`
      : `no ${displayNames[kind]} accepts connections at ${url} (${variable}; ${how})`;
  if (skipReason && isContinuousIntegration()) throw new Error(`${testName}: ${skipReason}; CI=true requires it`);
  if (skipReason) console.warn(`[docqa] ${testName} skipped: ${skipReason}`);
  return { kind, url, available, skipReason };
}

let runId: string | undefined;

/**
 * An id for this test process, for names of collections, indexes and keys: `DOCQA_TEST_RUN_ID`
 * when set, else 8 random hexadecimal digits, the same for every call in the process. Two runs on
 * one machine (or one shared server) never use each other's names.
 */
export function testRunId(): string {
  runId ??= process.env.DOCQA_TEST_RUN_ID || randomBytes(4).toString("hex");
  return runId;
}

/**
 * A name unique to this run and call: `<prefix>_<run id>_<6 random hex digits>`, in lower case
 * letters, digits and underscores, so it is valid as a Milvus collection, an OpenSearch index and a
 * Redis key prefix alike.
 */
export function testName(prefix: string): string {
  return `${prefix}_${testRunId()}_${randomBytes(3).toString("hex")}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}
