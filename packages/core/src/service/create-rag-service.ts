/**
 * `createRagService`: wires configuration, stores, models and the pipelines into a service. It
 * holds no request logic: `predict` and `search` run their stage lists (`pipeline/`), `upsert`
 * and the ingestion jobs live in `ingestion/` and run on an ingestion executor (worker threads,
 * or this thread; decision record 0006) behind the admission of `INGESTION_QUEUE_SIZE`; parts are
 * prepared by `prepareRuntime`.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { normalizePrincipal } from "../acl/principal.js";
import type { Answerer } from "../answering/answerer.js";
import type { DocqaConfig } from "../config/config-schema.js";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";
import { getDocument, listDocuments } from "../documents/list-documents.js";
import type { EmbeddingModelResolver } from "../embeddings/embeddings-for-model.js";
import { deleteDocuments } from "../ingestion/delete-documents.js";
import { parseDocumentMetadata } from "../ingestion/document-input.js";
import type { IndexingDependencies } from "../ingestion/index-documents.js";
import { createIngestionAdmission } from "../ingestion/ingestion-admission.js";
import { createInProcessExecutor, type IngestionExecutor } from "../ingestion/ingestion-executor.js";
import { createIngestionJobs } from "../ingestion/ingestion-jobs.js";
import { assertUpsertDocumentCount } from "../ingestion/upsert-documents.js";
import { createWorkerPoolExecutor, ingestionWorkerUrl } from "../ingestion/worker-pool-executor.js";
import type { JobStore } from "../jobs/job-store.js";
import { type AuditLog, auditLogFromLogger } from "../logging/audit-log.js";
import { createConsoleLogger, type Logger } from "../logging/logger.js";
import { createPerfLog, type PerfLog } from "../logging/perf-log.js";
import type { MemoryStore } from "../memory/memory-store.js";
import { defaultPredictStages, defaultSearchStages } from "../pipeline/default-stages.js";
import type { StageEdit } from "../pipeline/edit-stages.js";
import type { PredictState, RetrievalState } from "../pipeline/request-state.js";
import { runPredict, runSearch } from "../pipeline/run-predict.js";
import { createExtractiveSummarizer, type Summarizer } from "../raptor/summarizer.js";
import type { Reranker } from "../retrieval/reranker.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { createUncommittedSweeper, emptySweepReport, type SweepReport, type UncommittedSweeper } from "../stores/sweep-uncommitted.js";
import { isSweepable, type SweepableIndex } from "../stores/sweepable-index.js";
import type { TransactionalStore } from "../stores/vector-index.js";
import type { ServiceMetrics } from "../telemetry/service-metrics.js";
import { preloadServingModules } from "./preload-modules.js";
import { prepareRuntime } from "./prepare-runtime.js";
import type { RagService } from "./rag-service.js";
import { createReindexJobs } from "./reindex-jobs.js";
import { serviceHealth } from "./service-health.js";
import { assertStoresWritable, serviceReadiness } from "./service-readiness.js";
import { serviceStatistics } from "./service-statistics.js";

/** Options of {@link createRagService}. */
export interface RagServiceOptions {
  /**
   * Configuration: a {@link DocqaConfig} from `loadConfig`/`resolveConfig`, or overrides of the
   * defaults by section (`{ retrieval: { vectorTopK: 20 } }`), checked like `loadConfig`.
   */
  config?: DocqaConfigOverrides;
  /**
   * Stores: a {@link TransactionalStore} (such as `createEmbeddedStore()`), or a
   * {@link DocumentStores} bundle (`stagedDocumentStores` over server indexes). Default: from the
   * configuration (`storesFromConfig`): the embedded store under `DATA_DIR`, or the server
   * backends selected by `VECTORDB_URI` and `FULLTEXT_URI`.
   */
  stores?: DocumentStores | TransactionalStore;
  /**
   * Embeddings: default per `EMBED_PROVIDER`: transformers.js with `EMBED_MODEL_NAME`, or
   * `OpenAIEmbeddings` / `OllamaEmbeddings` (`embeddingsFromProvider`); `null` for BM25 only.
   */
  embeddings?: EmbeddingsInterface | null;
  /** Model id recorded with vectors of user-supplied embeddings. */
  embeddingModelId?: string;
  /**
   * Embeddings of models other than the configured one, by model id: the target of
   * `reindex({ model })`, and the model of an organisation whose index was built with another one
   * (its queries are embedded with that model). Return undefined to load the id with the
   * configured provider (`EMBED_PROVIDER`, `EMBED_MODEL_PATH`, `EMBED_DTYPE`), the default.
   */
  embeddingModels?: EmbeddingModelResolver | undefined;
  /**
   * Answerer; default the model answerer (`createModelAnswerer`, with the extractive answerer as
   * its fallback) when `RAG_LLM_PROVIDER` selects a usable chat model (`chatModelFromConfig`),
   * else the extractive answerer. A given answerer is used whatever the configuration; the chat
   * model then still decomposes questions and detects intents.
   */
  answerer?: Answerer;
  /**
   * Summariser of RAPTOR clusters; default the extractive summariser. A given summariser keeps
   * ingestion in the calling thread (it cannot cross to a worker thread).
   */
  summarizer?: Summarizer;
  /** Reranker used when `USE_RERANKER` is true. */
  reranker?: Reranker;
  /**
   * Conversation memory; default Redis when `CACHE_URL`/`CACHE_HOST` is set, else in this
   * process (see docs/memory.md).
   */
  memoryStore?: MemoryStore;
  /** Where ingestion jobs are kept; default Redis when `CACHE_URL`/`CACHE_HOST` is set, else SQLite at `DATA_DIR/jobs.sqlite`. */
  jobStore?: JobStore;
  /**
   * Edits of the request pipelines (docs/architecture.md): each receives the default stage list
   * and returns the one to run, for example `insertAfter("rerank", mmrStage())`. Default: the
   * lists as they are (`defaultPredictStages`, `defaultSearchStages`).
   *
   * @throws {DocqaError} `config_invalid` from `createRagService` when an edit names a stage that
   *   does not exist.
   */
  stages?: { predict?: StageEdit<PredictState>; search?: StageEdit<RetrievalState> };
  /** Logger; default JSON lines on standard error at `LOG_LEVEL`. */
  logger?: Logger;
  /**
   * The audit trail of document writes and deletes (one line per document: who, which document,
   * which organisation, the outcome; never content). Default `info` lines `audit` of the logger
   * (`auditLogFromLogger`).
   */
  audit?: AuditLog;
  /** PERF sink; default `PERF` lines on standard output when `PERF_LOG` is true. */
  perfLog?: PerfLog;
  /**
   * Called after every pass of the sweeper of uncommitted chunk versions (staged stores only)
   * with its report: the hook for a metric such as a counter of `chunksRemoved`. Each pass with
   * removals is also logged (`swept uncommitted chunk versions`).
   */
  onSweep?: ((report: SweepReport) => void) | undefined;
  /**
   * Receives metric events (stage latencies, answers, ingestion, embeddings, backend errors);
   * default none. `@docqa/observability`'s `createPrometheusMetrics().serviceMetrics` records
   * them with `prom-client`. Traces need no option: the library's OpenTelemetry spans are
   * exported by whatever tracer provider the application registers (docs/observability.md).
   */
  metrics?: ServiceMetrics;
}

/**
 * Creates a docqa service. Nothing is loaded until first use or {@link RagService.ready}, so
 * creating a service never throws for missing models or secrets.
 *
 * @throws {DocqaError} `config_invalid` when a stage edit names a stage that does not exist.
 * @example
 * ```ts
 * const service = createRagService({ config: loadConfig() });
 * await service.upsert({ orgId, principal, uploader: "ann@example.org", documents: { handbook: { title: "Handbook", content } } });
 * const { answer, sources } = await service.predict({ orgId, principal, query: "How many vacation days?" });
 * ```
 */
export function createRagService(options: RagServiceOptions = {}): RagService {
  const config = resolveConfig(options.config);
  const logger = options.logger ?? createConsoleLogger(config.logging.level);
  const audit = options.audit ?? auditLogFromLogger(logger);
  const perfLog = options.perfLog ?? createPerfLog(config.logging.perfLog);
  const predictStages = options.stages?.predict ? options.stages.predict(defaultPredictStages) : defaultPredictStages;
  const searchStages = options.stages?.search ? options.stages.search(defaultSearchStages) : defaultSearchStages;
  const prepared = prepareRuntime(config, options, logger);
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
  const reindexJobs = createReindexJobs({
    runtime: prepared.runtime,
    logger,
    // In the workers, a reindex embeds data-parallel and never holds the serving thread.
    embedDocuments: executor.mode === "workers" ? (texts, modelId) => executor.embedDocuments(texts, modelId) : undefined,
  });
  /** The sweeper of uncommitted chunk versions, on staged stores only; created once the stores are. */
  let sweeper: Promise<UncommittedSweeper | undefined> | undefined;
  const sweeperOf = (): Promise<UncommittedSweeper | undefined> => {
    sweeper ??= prepared.runtime().then(({ stores }) => {
      if (stores.writes !== "staged") return undefined;
      const indexes = [...new Set([stores.vector, stores.keyword])].filter(
        (index): index is NonNullable<typeof index> & SweepableIndex => index !== undefined && isSweepable(index),
      );
      return createUncommittedSweeper({
        indexes,
        registry: stores.registry,
        graceMs: config.stores.sweepGraceSeconds * 1000,
        logger,
        onSweep: (report) => {
          options.metrics?.swept?.({
            versionsRemoved: report.versionsRemoved,
            chunksRemoved: report.chunksRemoved,
            pending: report.pending,
            failures: report.errors.length,
            seconds: report.durationMs / 1000,
          });
          options.onSweep?.(report);
        },
      });
    });
    sweeper.catch(() => {
      sweeper = undefined;
    });
    return sweeper;
  };

  return {
    config,

    async ready() {
      await prepared.runtime();
      await preloadServingModules(config);
      (await sweeperOf())?.start(config.stores.sweepIntervalSeconds * 1000);
    },

    async sweep() {
      const started = new Date().toISOString();
      const active = await sweeperOf();
      return active ? active.sweep() : emptySweepReport(started);
    },

    async upsert(request) {
      assertUpsertDocumentCount(request.documents, config.ingestion.maxUpsertDocuments);
      const release = admission.admit();
      try {
        await prepared.runtime();
        return await executor.upsert({
          orgId: request.orgId,
          principal: request.principal,
          uploader: request.uploader,
          requestId: request.requestId,
          documents: request.documents,
          signal: request.signal,
        });
      } finally {
        release();
      }
    },

    checkIngestionCapacity() {
      admission.check();
    },

    async ingestFiles(request, ingestOptions) {
      return jobs.run(
        {
          orgId: request.orgId,
          files: request.files,
          principal: request.principal,
          uploader: request.uploader,
          requestId: request.requestId,
          metadata: parseDocumentMetadata(request.metadata ?? {}),
          uploadDirectory: request.uploadDirectory,
        },
        ingestOptions,
      );
    },

    async startIngestion(request) {
      return jobs.start({
        orgId: request.orgId,
        files: request.files,
        principal: request.principal,
        uploader: request.uploader,
        requestId: request.requestId,
        metadata: parseDocumentMetadata(request.metadata ?? {}),
        uploadDirectory: request.uploadDirectory,
      });
    },

    getIngestionJob(context, jobId) {
      return jobs.get(context.orgId, jobId);
    },

    resumeIngestions() {
      return jobs.resume();
    },

    async forgetUser(context) {
      const userName = normalizePrincipal(context.principal).userName;
      if (userName === "") return { deleted: 0 };
      const deleted = await (await (await prepared.runtime()).memory()).forget(context.orgId, userName);
      logger.info("conversation memory deleted", { component: "memory", org_id: context.orgId, conversations: deleted });
      return { deleted };
    },

    async predict(request) {
      return runPredict(predictStages, await prepared.runtime(), request, perfLog);
    },

    async search(request) {
      return runSearch(searchStages, await prepared.runtime(), request);
    },

    async detectIntent(request) {
      return (await prepared.intentClassifier()).classify(request.text, { signal: request.signal });
    },

    async deleteDocuments(context, docIds) {
      const { stores } = await prepared.runtime();
      return deleteDocuments(
        { config, stores, audit },
        { orgId: context.orgId, principal: context.principal, docIds, requestId: context.requestId },
      );
    },

    async deleteDocument(context, docId) {
      const { stores } = await prepared.runtime();
      return deleteDocuments(
        { config, stores, audit },
        { orgId: context.orgId, principal: context.principal, docIds: [docId], requireExisting: true, requestId: context.requestId },
      );
    },

    async listDocuments(request) {
      const { stores } = await prepared.runtime();
      return listDocuments(stores.registry, config.access.adminRoles, request.orgId, request.principal, request);
    },

    async getDocument(context, docId) {
      const { stores } = await prepared.runtime();
      return getDocument(stores.registry, config.access.adminRoles, context.orgId, context.principal, docId);
    },

    async health() {
      return serviceHealth(config, prepared, reindexJobs.running());
    },

    reindex(request, reindexOptions) {
      return reindexJobs.run(request, reindexOptions?.onProgress);
    },

    startReindex(request) {
      return reindexJobs.start(request);
    },

    reindexStatus(context) {
      return reindexJobs.status(context.orgId);
    },

    async readiness(readinessOptions) {
      return serviceReadiness(prepared, readinessOptions?.timeoutMs ?? config.stores.readinessTimeoutMs);
    },

    async statistics(statisticsOptions) {
      return serviceStatistics(prepared.snapshot().stores, statisticsOptions?.orgId);
    },

    async close() {
      await (await sweeper?.catch(() => undefined))?.stop();
      await reindexJobs.close();
      // Together: closing the executor stops the tasks that jobs wait for.
      await Promise.all([jobs.close(), executor.close()]);
      await prepared.close();
    },
  };
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
