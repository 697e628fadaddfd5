/**
 * A whole service for tests of code built on it (routes, metrics, pages): an embedded store in a
 * temporary directory, the deterministic embedder (64 dimensions), the extractive answerer, no
 * RAPTOR, in-memory ingestion jobs, silent logs. `close()` also removes the directory.
 */
import { rm } from "node:fs/promises";
import type { DocqaConfigOverrides } from "../config/load-config.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import { createRagService, type RagServiceOptions } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { DeterministicEmbeddings } from "./deterministic-embeddings.js";
import { testConfig } from "./test-config.js";

/** Options of {@link createTestService}: any option of `createRagService`, the configuration as overrides of the test defaults. */
export interface TestServiceOptions extends Omit<RagServiceOptions, "config"> {
  /** Overrides of the test configuration (`dataDir` a new temporary directory, dimension 64, no RAPTOR, silent, extractive). */
  config?: DocqaConfigOverrides;
}

/**
 * Creates a service for tests.
 *
 * @example
 * ```ts
 * const service = createTestService({ metrics });
 * await service.upsert({ orgId, principal, uploader, documents: { a: { title: "A", content: "Alpha text." } } });
 * ```
 */
export function createTestService(options: TestServiceOptions = {}): RagService {
  const { config, temporary } = testConfig(options.config, "docqa-test-service-");
  const service = createRagService({
    jobStore: createInMemoryJobStore(),
    ...options,
    config,
    embeddings:
      options.embeddings === undefined ? new DeterministicEmbeddings({ dimension: config.embeddings.dimension }) : options.embeddings,
  });
  return {
    ...service,
    async close() {
      await service.close();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
}
