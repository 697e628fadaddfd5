/**
 * The ingestion side of a service: the executor (worker threads or this thread; decision record
 * 0006), the admission of `INGESTION_QUEUE_SIZE`, and the ingestion jobs.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { IndexingDependencies } from "../ingestion/index-documents.js";
import { createIngestionAdmission, type IngestionAdmission } from "../ingestion/ingestion-admission.js";
import { createInProcessExecutor, type IngestionExecutor } from "../ingestion/ingestion-executor.js";
import { createIngestionJobs, type IngestionJobs } from "../ingestion/ingestion-jobs.js";
import { createWorkerPoolExecutor, ingestionWorkerUrl } from "../ingestion/worker-pool-executor.js";
import type { AuditLog } from "../logging/audit-log.js";
import type { Logger } from "../logging/logger.js";
import { createExtractiveSummarizer } from "../raptor/summarizer.js";
import type { PreparedRuntime } from "./prepare-runtime.js";
import type { RagServiceOptions } from "./rag-service-options.js";
import { assertStoresWritable } from "./service-readiness.js";

/** What {@link serviceIngestion} creates. */
export interface ServiceIngestion {
  executor: IngestionExecutor;
  admission: IngestionAdmission;
  jobs: IngestionJobs;
}

/**
 * Creates the executor, admission and jobs of a service. Jobs are accepted only while every
 * store they write answers within `READINESS_TIMEOUT_MS`.
 */
export function serviceIngestion(
  config: DocqaConfig,
  options: RagServiceOptions,
  prepared: Pick<PreparedRuntime, "runtime" | "jobStore">,
  { logger, audit }: { logger: Logger; audit: AuditLog },
): ServiceIngestion {
  const summarizer = options.summarizer ?? createExtractiveSummarizer({ maximumChars: config.ingestion.raptorSummaryChars });
  const indexing = async (): Promise<IndexingDependencies> => {
    const runtime = await prepared.runtime();
    return {
      config,
      stores: runtime.stores,
      embeddings: runtime.embeddings,
      indexModels: runtime.indexModels,
      embeddingsFor: runtime.embeddingsFor,
      summarizer,
      analyzer: runtime.analyzer,
      logger,
      audit,
      metrics: runtime.metrics,
    };
  };
  const executor = ingestionExecutor(config, options, { logger, audit }, indexing, async (orgId) => {
    await (await prepared.runtime()).stores.refresh(orgId);
  });
  /** Refuses an ingestion (503) unless every store it writes answers within `READINESS_TIMEOUT_MS`. */
  const acceptIngestion = async () => {
    const [runtime, jobStore] = await Promise.all([prepared.runtime(), prepared.jobStore()]);
    await assertStoresWritable({ stores: runtime.stores, jobStore }, config.stores.readinessTimeoutMs);
  };
  const admission = createIngestionAdmission({ limit: config.ingestion.queueSize, concurrency: executor.threads });
  const jobs = createIngestionJobs({
    dataDir: config.stores.dataDir,
    jobStore: prepared.jobStore,
    executor,
    // A job keeps at most as many files in flight as the pool has threads, so that other requests
    // are not queued behind a whole job; in this thread, MAX_INGESTION_THREADS files interleave.
    concurrency: executor.mode === "workers" ? executor.threads : config.ingestion.maxIngestionThreads,
    admission,
    accept: acceptIngestion,
    traceContent: config.logging.traceContent,
    metrics: options.metrics,
    logger,
  });
  return { executor, admission, jobs };
}

/**
 * The service's ingestion executor: worker threads when `INGESTION_WORKERS` is true, the service
 * builds its own stores and embeddings from the configuration (objects given in `options`
 * cannot cross to another thread), and the worker entry is built; else the calling thread.
 */
function ingestionExecutor(
  config: DocqaConfig,
  options: RagServiceOptions,
  { logger, audit }: { logger: Logger; audit: AuditLog },
  indexing: () => Promise<IndexingDependencies>,
  refresh: (orgId: string) => Promise<void>,
): IngestionExecutor {
  const ownParts =
    options.stores === undefined &&
    options.embeddings === undefined &&
    options.embeddingModelId === undefined &&
    options.embeddingModels === undefined &&
    options.summarizer === undefined;
  if (!config.ingestion.workers || !ownParts) return createInProcessExecutor(indexing);
  const workerUrl = ingestionWorkerUrl();
  if (!workerUrl) {
    logger.warn("the ingestion worker (dist/ingestion-worker.js) is not built; ingestion runs in the serving thread", {
      component: "ingestion",
    });
    return createInProcessExecutor(indexing);
  }
  return createWorkerPoolExecutor({ config, logger, audit, metrics: options.metrics, refresh, workerUrl });
}
