/**
 * `createRagService`: wires configuration, stores, models and the pipelines into a service. It
 * holds no request logic: `predict` and `search` run their stage lists (`pipeline/`), `upsert`
 * and the ingestion jobs live in `ingestion/` and run on an ingestion executor (worker threads,
 * or this thread; decision record 0006) behind the admission of `INGESTION_QUEUE_SIZE`; parts are
 * prepared by `prepareRuntime`, the ingestion side by `serviceIngestion`, the sweeper by `lazySweeper`.
 */
import { normalizePrincipal } from "../acl/principal.js";
import { resolveConfig } from "../config/load-config.js";
import { getDocument, listDocuments } from "../documents/list-documents.js";
import { deleteDocuments } from "../ingestion/delete-documents.js";
import { parseDocumentMetadata } from "../ingestion/document-input.js";
import { assertUpsertDocumentCount } from "../ingestion/upsert-documents.js";
import { auditLogFromLogger } from "../logging/audit-log.js";
import { createConsoleLogger } from "../logging/logger.js";
import { createPerfLog } from "../logging/perf-log.js";
import { defaultPredictStages, defaultSearchStages } from "../pipeline/default-stages.js";
import { runPredict, runSearch } from "../pipeline/run-predict.js";
import { emptySweepReport } from "../stores/sweep-uncommitted.js";
import { preloadServingModules } from "./preload-modules.js";
import { prepareRuntime } from "./prepare-runtime.js";
import type { RagService } from "./rag-service.js";
import type { RagServiceOptions } from "./rag-service-options.js";
import { createReindexJobs } from "./reindex-jobs.js";
import { serviceHealth } from "./service-health.js";
import { serviceIngestion } from "./service-ingestion.js";
import { serviceReadiness } from "./service-readiness.js";
import { serviceStatistics } from "./service-statistics.js";
import { lazySweeper } from "./service-sweeper.js";

export type { RagServiceOptions } from "./rag-service-options.js";

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
  const { executor, admission, jobs } = serviceIngestion(config, options, prepared, { logger, audit });
  const reindexJobs = createReindexJobs({
    runtime: prepared.runtime,
    logger,
    // In the workers, a reindex embeds data-parallel and never holds the serving thread.
    embedDocuments: executor.mode === "workers" ? (texts, modelId) => executor.embedDocuments(texts, modelId) : undefined,
  });
  const sweeper = lazySweeper(config, options, prepared, logger);

  return {
    config,

    async ready() {
      await prepared.runtime();
      await preloadServingModules(config);
      (await sweeper.get())?.start(config.stores.sweepIntervalSeconds * 1000);
    },

    async sweep() {
      const started = new Date().toISOString();
      const active = await sweeper.get();
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
      await sweeper.stop();
      await reindexJobs.close();
      // Together: closing the executor stops the tasks that jobs wait for.
      await Promise.all([jobs.close(), executor.close()]);
      await prepared.close();
    },
  };
}
