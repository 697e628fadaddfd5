/**
 * Vitest projects: `unit` (fast, no servers), `integration` (`*.int.test.ts`, real Redis, Milvus
 * and OpenSearch started by `scripts/services/start-all.sh` on free ports; `.ci/run` starts them),
 * `integration-faults` (the integration tests that time a server's outage against
 * `STORE_TIMEOUT_MS`), `cluster` (`*.cluster.test.ts`: node failures of a three-node OpenSearch
 * cluster, `npm run test:cluster`), `models` (`*.models.test.ts`: real embedding models from
 * ../shared/data/models over whole benchmark sets, several minutes) and `llm` (`*.llm.test.ts`:
 * real language models, in process and on `llama-server`, one file at a time; `npm run test:llm`
 * after `npm run models:test-llm` and `scripts/services/start-llama-server.sh`).
 * `npm test` runs unit and integration files together in one pool of workers, then the fault
 * tests alone, so a busy CPU does not stretch the outages they time; `npm run test:models` runs the
 * models project and `npm run test:llm` the llm project, which `.ci/run` calls after `npm test`. Workspace packages resolve to their
 * sources, so tests need no build (the CLI's end-to-end tests run the build).
 *
 * Workers: Vitest's default is one less than the CPUs, a single worker on a 2-core machine, which
 * ran every file one after the other although many of the slow ones wait (on a `docqa` child
 * process, a server or a model) rather than compute. The default here is max(2, CPUs);
 * `DOCQA_TEST_WORKERS` overrides it. Integration tests run in parallel too: every collection,
 * index and key they create carries the run id (`testName` from `@docqa/core/testing`).
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const alias = {
  "@docqa/core/testing": source("./packages/core/src/testing/index.ts"),
  "@docqa/core/pipeline": source("./packages/core/src/pipeline/index.ts"),
  "@docqa/core/contract": source("./packages/core/src/contract/index.ts"),
  "@docqa/core/answering": source("./packages/core/src/answering/index.ts"),
  "@docqa/core/evaluation": source("./packages/core/src/evaluation/index.ts"),
  "@docqa/core/ingestion": source("./packages/core/src/ingestion/index.ts"),
  "@docqa/core/retrieval": source("./packages/core/src/retrieval/index.ts"),
  "@docqa/core/stores": source("./packages/core/src/stores/index.ts"),
  "@docqa/core/telemetry": source("./packages/core/src/telemetry/index.ts"),
  "@docqa/core": source("./packages/core/src/index.ts"),
  "@docqa/http/testing": source("./packages/http/src/testing/index.ts"),
  "@docqa/http": source("./packages/http/src/index.ts"),
  "@docqa/milvus": source("./packages/milvus/src/index.ts"),
  "@docqa/elasticsearch": source("./packages/elasticsearch/src/index.ts"),
  "@docqa/redis": source("./packages/redis/src/index.ts"),
  "@docqa/predict-api": source("./packages/predict-api/src/index.ts"),
  "@docqa/chat-api": source("./packages/chat-api/src/index.ts"),
  "@docqa/observability": source("./packages/observability/src/index.ts"),
  "@docqa/web-ui": source("./packages/web-ui/src/index.ts"),
};

const maxWorkers = Number(process.env.DOCQA_TEST_WORKERS) || Math.max(2, availableParallelism());
/** Integration tests that time an outage: run last, one at a time. */
const faultTests = [
  "packages/predict-api/src/backend-faults.int.test.ts",
  "packages/redis/src/redis-unavailable.int.test.ts",
  "packages/chat-api/src/readiness.int.test.ts",
  "packages/chat-api/src/sweep-leftovers.int.test.ts",
];

export default defineConfig({
  test: {
    maxWorkers,
    // One run id for every worker, a temporary directory per run, and a short refresh interval for this run's search-engine indexes.
    globalSetup: ["./vitest.global-setup.ts"],
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts"],
          exclude: [
            "**/*.int.test.ts",
            "**/*.models.test.ts",
            "**/*.llm.test.ts",
            "**/*.cluster.test.ts",
            "**/node_modules/**",
            "**/dist/**",
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["packages/*/src/**/*.int.test.ts"],
          exclude: [...faultTests, "**/node_modules/**", "**/dist/**"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration-faults",
          include: faultTests,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          // `*.cluster.test.ts`: the engines started for these tests only (`npm run test:cluster`,
          // which .ci/run calls after `npm test`): node failures of the three-node OpenSearch
          // cluster of scripts/services/start-opensearch-cluster.sh, and a real Milvus server
          // (start-milvus-server.sh); one file at a time, since one kills and restarts nodes.
          name: "cluster",
          include: ["packages/*/src/**/*.cluster.test.ts"],
          exclude: ["**/node_modules/**", "**/dist/**"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "models",
          include: ["packages/*/src/**/*.models.test.ts"],
          exclude: ["**/node_modules/**", "**/dist/**"],
          testTimeout: 1_800_000,
          hookTimeout: 1_800_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "llm",
          include: ["packages/*/src/**/*.llm.test.ts"],
          exclude: ["**/node_modules/**", "**/dist/**"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
