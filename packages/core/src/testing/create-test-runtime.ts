/**
 * A pipeline runtime for tests of stages, yours included: an embedded store in a temporary
 * directory, the deterministic embedder (64 dimensions) unless told otherwise, the extractive
 * answerer, in-process conversation memory, and the given documents already indexed.
 */
import { rm } from "node:fs/promises";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { Answerer } from "../answering/answerer.js";
import type { DocqaConfigOverrides } from "../config/load-config.js";
import type { DocumentInput } from "../ingestion/document-input.js";
import { parseUpsertDocuments, upsertDocuments } from "../ingestion/upsert-documents.js";
import { auditLogFromLogger } from "../logging/audit-log.js";
import { silentLogger } from "../logging/logger.js";
import { createInMemoryMemoryStore } from "../memory/in-memory-memory-store.js";
import type { Runtime } from "../pipeline/runtime.js";
import { createExtractiveSummarizer } from "../raptor/summarizer.js";
import type { Reranker } from "../retrieval/reranker.js";
import { prepareRuntime } from "../service/prepare-runtime.js";
import { DeterministicEmbeddings } from "./deterministic-embeddings.js";
import { testConfig } from "./test-config.js";

/** Options of {@link createTestRuntime}. */
export interface TestRuntimeOptions {
  /**
   * Configuration overrides by section; `stores.dataDir` defaults to a new temporary directory,
   * `embeddings.dimension` to 64, `ingestion.useRaptor` to false (see `testConfig`).
   */
  config?: DocqaConfigOverrides;
  /** Embeddings; default `new DeterministicEmbeddings()` (64 dimensions); `null` for BM25 only. */
  embeddings?: EmbeddingsInterface | null;
  answerer?: Answerer;
  reranker?: Reranker;
  /** Documents indexed before the runtime is returned, in organisation `orgId`. */
  documents?: Record<string, DocumentInput>;
  /** Organisation of `documents`; default `org`. */
  orgId?: string;
  /** Owner of `documents` without `metadata.owner_id`; default `owner@example.org`. */
  uploader?: string;
}

/** A runtime and how to dispose of it. */
export interface TestRuntime {
  runtime: Runtime;
  /** Closes the stores and removes the temporary directory. */
  close(): Promise<void>;
}

/**
 * Creates a runtime for stage tests.
 *
 * @example
 * ```ts
 * const { runtime, close } = await createTestRuntime({ documents: { a: { title: "A", content: "Alpha text." } } });
 * const state = createSearchState(runtime, { orgId: "org", principal, query: "alpha" });
 * await runStages(defaultSearchStages, state, runtime);
 * ```
 */
export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const { config, temporary } = testConfig(options.config, "docqa-test-runtime-");
  const prepared = prepareRuntime(
    config,
    {
      embeddings:
        options.embeddings === undefined ? new DeterministicEmbeddings({ dimension: config.embeddings.dimension }) : options.embeddings,
      answerer: options.answerer,
      reranker: options.reranker,
      memoryStore: createInMemoryMemoryStore(),
    },
    silentLogger,
  );
  const runtime = await prepared.runtime();
  if (options.documents) {
    await upsertDocuments(
      {
        config,
        stores: runtime.stores,
        embeddings: runtime.embeddings,
        summarizer: createExtractiveSummarizer({ maximumChars: config.ingestion.raptorSummaryChars }),
        analyzer: runtime.analyzer,
        logger: silentLogger,
        audit: auditLogFromLogger(silentLogger),
      },
      {
        orgId: options.orgId ?? "org",
        // An administrator, so fixtures may name any owner in metadata.owner_id.
        principal: { userName: options.uploader ?? "owner@example.org", roles: config.access.adminRoles.slice(0, 1), groups: [] },
        documents: parseUpsertDocuments(options.documents),
      },
    );
  }
  return {
    runtime,
    async close() {
      await prepared.close();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
}
