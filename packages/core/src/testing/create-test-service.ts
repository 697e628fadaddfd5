/**
 * A whole service for tests of code built on it (routes, metrics, pages): an embedded store in a
 * temporary directory, the deterministic embedder (64 dimensions), the extractive answerer, no
 * RAPTOR, in-memory ingestion jobs, silent logs. `close()` also removes the directory.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import { createRagService, type RagServiceOptions } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { DeterministicEmbeddings } from "./deterministic-embeddings.js";

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
  const temporary = options.config?.stores?.dataDir ? undefined : mkdtempSync(join(tmpdir(), "docqa-test-service-"));
  const config = resolveConfig(options.config, {
    stores: { dataDir: temporary },
    embeddings: { dimension: 64 },
    ingestion: { useRaptor: false },
    logging: { level: "silent" },
    models: { provider: "extractive" },
  });
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
