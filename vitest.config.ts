/**
 * Vitest projects: `unit` (fast, no servers), `integration` (`*.int.test.ts`, real Redis, Milvus
 * and OpenSearch started by `.ci/run`), both run by `npm test`, and `models` (`*.models.test.ts`,
 * real embedding models from ../shared/data/models over whole benchmark sets; several minutes),
 * run by `npm run test:models`, which `.ci/run` calls after `npm test`.
 * Workspace packages resolve to their sources, so tests need no build.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const alias = {
  "@docqa/core/testing": source("./packages/core/src/testing/index.ts"),
  "@docqa/core/contract": source("./packages/core/src/contract/index.ts"),
  "@docqa/core": source("./packages/core/src/index.ts"),
  "@docqa/http": source("./packages/http/src/index.ts"),
  "@docqa/milvus": source("./packages/milvus/src/index.ts"),
  "@docqa/elasticsearch": source("./packages/elasticsearch/src/index.ts"),
  "@docqa/redis": source("./packages/redis/src/index.ts"),
  "@docqa/predict-api": source("./packages/predict-api/src/index.ts"),
  "@docqa/chat-api": source("./packages/chat-api/src/index.ts"),
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.models.test.ts", "**/node_modules/**", "**/dist/**"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["packages/*/src/**/*.int.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "models",
          include: ["packages/*/src/**/*.models.test.ts"],
          testTimeout: 1_800_000,
          hookTimeout: 1_800_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
