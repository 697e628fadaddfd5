/**
 * Vitest global setup of the integration projects: one run id for every test process, and a short
 * refresh interval for the search-engine indexes this run creates.
 *
 * - `DOCQA_TEST_RUN_ID` is set (unless the caller set it) before the workers start, so every test
 *   file names its collections, indexes and keys with the same run id (`testName` from
 *   `@docqa/core/testing`).
 * - On the OpenSearch (and Elasticsearch) test servers, and the three-node cluster of the cluster
 *   tests when it runs, an index template matching `*_<run id>_*`
 *   gives this run's indexes `index.refresh_interval: 100ms` instead of the engine's 1 s. docqa
 *   writes with `refresh=wait_for` (searchable when acknowledged), which waits for the next
 *   scheduled refresh: about 1 s per write on a default index, and the search-engine tests write
 *   thousands of times. The tests still check that every write is searchable when acknowledged;
 *   only the wait for it is shorter. On a single-node server the template also gives them
 *   `index.number_of_replicas: 0`, as a single-node deployment is set up (`FULLTEXT_REPLICAS=0`):
 *   a replica could never be placed, the indexes would stay yellow, and the keyword index's health
 *   check would report the cluster degraded. The template is removed at the end of the run. A
 *   server that refuses it (for example one with an overlapping template of the same priority)
 *   only makes the run slower, with a warning.
 * - `TMPDIR` points at a directory of this run, removed when the run ends, so the data directories
 *   and files the tests create with `os.tmpdir()` (thousands per run, the CLI's child processes'
 *   included) never pile up on the machine, even from a test that fails before its own clean-up.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Refresh interval of this run's indexes (the engine default is 1 s). */
const refreshInterval = "100ms";
/** Priority of the template: above the engines' built-in ones (100, 200 in Elasticsearch 8). */
const templatePriority = 537;

export default async function setup(): Promise<() => Promise<void>> {
  process.env.DOCQA_TEST_RUN_ID ||= randomBytes(4).toString("hex");
  const runDirectory = mkdtempSync(join(tmpdir(), `docqa-test-run-${process.env.DOCQA_TEST_RUN_ID}-`));
  process.env.TMPDIR = runDirectory;
  const runId = process.env.DOCQA_TEST_RUN_ID;
  const template = `docqa_test_refresh_${runId}`.toLowerCase();
  const servers = [
    process.env.DOCQA_TEST_OPENSEARCH_URL,
    process.env.DOCQA_TEST_ELASTICSEARCH_URL,
    process.env.DOCQA_TEST_OPENSEARCH_CLUSTER_URLS?.split(",")[0],
  ].filter((url): url is string => Boolean(url));
  const installed: string[] = [];
  for (const url of servers) {
    const singleNode = await fetch(`${url}/_cluster/health`, { signal: AbortSignal.timeout(10_000) }).then(
      async (response) => ((await response.json()) as { number_of_nodes?: unknown }).number_of_nodes === 1,
      () => false,
    );
    const body = {
      index_patterns: [`*_${runId}_*`.toLowerCase()],
      priority: templatePriority,
      template: { settings: { "index.refresh_interval": refreshInterval, ...(singleNode ? { "index.number_of_replicas": 0 } : {}) } },
      _meta: { description: "docqa integration tests: shorter refresh wait for this run's indexes" },
    };
    const answer = await fetch(`${url}/_index_template/${template}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }).then(
      async (response) => (response.ok ? undefined : `HTTP ${response.status} ${(await response.text()).slice(0, 300)}`),
      (error: unknown) => String(error),
    );
    if (answer === undefined) installed.push(url);
    else console.warn(`[docqa] no refresh template on ${url} (${answer}); search-engine tests wait 1 s per write`);
  }
  return async () => {
    rmSync(runDirectory, { recursive: true, force: true });
    for (const url of installed) {
      await fetch(`${url}/_index_template/${template}`, { method: "DELETE", signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    }
  };
}
