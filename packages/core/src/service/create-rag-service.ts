/**
 * `createRagService`: wires configuration, stores, embeddings, the answerer and the job store
 * into the pipelines of the spec's `POST /upsert` and `POST /predict`, and file ingestion.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { normalizePrincipal } from "../acl/principal.js";
import { emptyContextAnswer } from "../answering/answer.js";
import type { Answerer, GeneratedAnswer } from "../answering/answerer.js";
import { buildContext } from "../answering/build-context.js";
import { createExtractiveAnswerer } from "../answering/extractive-answerer.js";
import { resolveCitations } from "../answering/resolve-citations.js";
import { sourceFromInput } from "../chunking/source-document.js";
import type { DocqaConfig } from "../config/docqa-config.js";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";
import { type EmbeddingState, prepareEmbeddings } from "../embeddings/prepare-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import { documentIdSchema, documentInputSchema } from "../ingestion/document-input.js";
import { type IndexingDependencies, indexDocuments } from "../ingestion/index-documents.js";
import { type FileSource, runIngestionJob } from "../ingestion/ingest-files.js";
import { classifyIntent } from "../intent/classify-intent.js";
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import { createConsoleLogger, type Logger } from "../logging/logger.js";
import { createPerfLog, type PerfLog } from "../logging/perf-log.js";
import { createExtractiveSummarizer, type Summarizer } from "../raptor/summarizer.js";
import { CrossEncoderReranker } from "../retrieval/cross-encoder-reranker.js";
import { normalizeQuery } from "../retrieval/normalize-query.js";
import type { Reranker } from "../retrieval/reranker.js";
import { type RetrievalSettings, retrieveChunks } from "../retrieval/retrieve-chunks.js";
import { type CacheStores, cacheStoresFromConfig } from "../stores/cache-stores-from-config.js";
import { type DocumentStores, transactionalDocumentStores } from "../stores/document-stores.js";
import { storesFromConfig } from "../stores/stores-from-config.js";
import type { TransactionalStore } from "../stores/vector-index.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type {
  IntentRequest,
  PredictRequest,
  PredictResult,
  RagService,
  RequestContext,
  SearchRequest,
  SearchResult,
  ServiceHealth,
  UpsertRequest,
  UpsertResult,
} from "./rag-service.js";

/** Options of {@link createRagService}. */
export interface RagServiceOptions {
  /** Configuration: a full {@link DocqaConfig} from `loadConfig`, or overrides of the defaults. */
  config?: DocqaConfig | DocqaConfigOverrides;
  /**
   * Stores: a {@link TransactionalStore} (such as `createEmbeddedStore()`), or a
   * {@link DocumentStores} bundle (`stagedDocumentStores` over server indexes). Default: from the
   * configuration (`storesFromConfig`): the embedded store under `DATA_DIR`, or the server
   * backends selected by `VECTORDB_URI` and `FULLTEXT_URI`.
   */
  stores?: DocumentStores | TransactionalStore;
  /** Embeddings: default per `EMBED_PROVIDER` (transformers.js with `EMBED_MODEL_NAME`); `null` for BM25 only. */
  embeddings?: EmbeddingsInterface | null;
  /** Model id recorded with vectors of user-supplied embeddings. */
  embeddingModelId?: string;
  /** Answerer; default the extractive answerer. */
  answerer?: Answerer;
  /** Summariser of RAPTOR clusters; default the extractive summariser. */
  summarizer?: Summarizer;
  /** Reranker used when `USE_RERANKER` is true. */
  reranker?: Reranker;
  /** Where ingestion jobs are kept; default Redis when `CACHE_URL`/`CACHE_HOST` is set, else SQLite at `DATA_DIR/jobs.sqlite`. */
  jobStore?: JobStore;
  /** Logger; default JSON lines on standard error at `LOG_LEVEL`. */
  logger?: Logger;
  /** PERF sink; default `PERF` lines on standard output when `PERF_LOG` is true. */
  perfLog?: PerfLog;
}

/**
 * Creates a docqa service. Nothing is loaded until first use or {@link RagService.ready}, so
 * creating a service never throws for missing models or secrets.
 *
 * @example
 * ```ts
 * const service = createRagService({ config: loadConfig() });
 * await service.upsert({ orgId, principal, uploader: "ann@example.org", documents: { handbook: { title: "Handbook", content } } });
 * const { answer, sources } = await service.predict({ orgId, principal, query: "How many vacation days?" });
 * ```
 */
export function createRagService(options: RagServiceOptions = {}): RagService {
  const config = isFullConfig(options.config) ? options.config : resolveConfig(options.config);
  const logger = options.logger ?? createConsoleLogger(config.logLevel);
  const perfLog = options.perfLog ?? createPerfLog(config.perfLog);
  let stores: DocumentStores | undefined =
    options.stores === undefined ? undefined : "visible" in options.stores ? options.stores : transactionalDocumentStores(options.stores);
  const answerer = options.answerer ?? createExtractiveAnswerer({ minimumCoverage: config.extractiveMinCoverage });
  const summarizer = options.summarizer ?? createExtractiveSummarizer({ maximumChars: config.raptorSummaryChars });
  const analyzer = createEnglishAnalyzer();
  // Jobs and conversation memory: the caller's job store, else SQLite or Redis per `CACHE_*`.
  let cacheStores: Promise<CacheStores> | undefined;
  const cache = (): Promise<CacheStores> => {
    cacheStores ??= cacheStoresFromConfig(config, logger).catch((error: unknown) => {
      cacheStores = undefined;
      throw error;
    });
    return cacheStores;
  };
  const jobs = async (): Promise<JobStore> => options.jobStore ?? (await cache()).jobStore;
  const uploadsDirectory = join(resolve(config.dataDir), "uploads");
  const backgroundJobs = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  let embeddingState: EmbeddingState | undefined;
  let readyPromise: Promise<void> | undefined;
  let rerankerWarned = false;
  // The configured reranker: the caller's, or the transformers.js cross-encoder when USE_RERANKER is on.
  let reranker: Reranker | undefined =
    options.reranker ??
    (config.useReranker
      ? new CrossEncoderReranker({
          modelName: config.rerankerModelName,
          localModelPath: config.rerankerModelPath,
          allowRemote: config.embedAllowRemote,
        })
      : undefined);

  const prepareReranker = async () => {
    if (!(reranker instanceof CrossEncoderReranker)) return;
    try {
      await reranker.load();
    } catch (error) {
      logger.warn(
        `reranker unavailable; results are not reranked: ${DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message}`,
        { component: "reranker" },
      );
      reranker = undefined;
      rerankerWarned = true;
    }
  };

  const prepareStores = async () => {
    stores ??= await storesFromConfig(config, logger);
  };

  const ready = (): Promise<void> => {
    readyPromise ??= Promise.all([
      prepareEmbeddings(config, { embeddings: options.embeddings, embeddingModelId: options.embeddingModelId }, logger),
      prepareReranker(),
      prepareStores(),
    ]).then(
      ([state]) => {
        embeddingState = state;
      },
      (error: unknown) => {
        readyPromise = undefined;
        throw error;
      },
    );
    return readyPromise;
  };

  const embeddings = (): EmbeddingState => embeddingState as EmbeddingState;
  /** The stores; call after {@link ready}. */
  const readyStores = (): DocumentStores => stores as DocumentStores;
  const indexing = (): IndexingDependencies => ({
    config,
    stores: readyStores(),
    embeddings: embeddings(),
    summarizer,
    analyzer,
    logger,
  });

  const retrievalSettings = (overrides: Partial<RetrievalSettings> = {}, rerank = config.useReranker): RetrievalSettings => {
    let rerankSettings: RetrievalSettings["reranker"];
    if (rerank) {
      if (reranker)
        rerankSettings = { reranker, topK: config.rerankTopK, threshold: config.rerankerScoreThreshold, depth: config.rerankDepth };
      else if (!rerankerWarned) {
        rerankerWarned = true;
        logger.warn("USE_RERANKER is true but no reranker is configured; results are not reranked", { component: "retrieval" });
      }
    }
    return {
      vectorTopK: config.vectorTopK,
      bm25TopK: config.bm25TopK,
      retrieverTopK: config.retrieverTopK,
      weightVector: config.weightVector,
      weightBm25: config.weightBm25,
      normalization: config.scoreNormalization,
      reranker: rerankSettings,
      ...overrides,
    };
  };

  const checkQuery = (raw: string): string => {
    const query = normalizeQuery(raw);
    if (query === "") throw new DocqaError("invalid_request", "the query is empty", { component: "service" });
    if (query.length > config.maxQueryChars) {
      throw new DocqaError(
        "invalid_request",
        `the query has ${query.length} characters; the limit is ${config.maxQueryChars} (MAX_QUERY_CHARS)`,
        {
          component: "service",
        },
      );
    }
    return query;
  };

  const newJob = (orgId: string, files: number): IngestionJob => ({
    jobId: randomUUID(),
    orgId,
    state: "queued",
    createdAt: new Date().toISOString(),
    files: { total: files, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
    documents: 0,
    chunks: 0,
    errors: [],
    warnings: [],
  });

  const runJob = async (
    job: IngestionJob,
    files: readonly FileSource[],
    uploader: string,
    metadata: Record<string, unknown>,
    onProgress?: Parameters<RagService["ingestFiles"]>[1],
  ) => {
    await ready();
    try {
      return await runIngestionJob({
        dependencies: indexing(),
        jobStore: await jobs(),
        job,
        files,
        uploader,
        metadata,
        onProgress: onProgress?.onProgress,
        signal: stopping.signal,
      });
    } catch (error) {
      if (stopping.signal.aborted) return job;
      job.state = "failed";
      job.failure = DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
      job.finishedAt = new Date().toISOString();
      await (await jobs()).save(job);
      return job;
    }
  };

  const runInBackground = (job: IngestionJob) => {
    const resume = job.resume;
    if (!resume) return;
    const files = resume.files.map((file) => ({ ...file, lastModified: file.lastModified ? new Date(file.lastModified) : undefined }));
    const task = runJob(job, files, resume.uploader, resume.metadata).then(async (finished) => {
      if (finished.state === "running" || finished.state === "queued") return;
      finished.resume = undefined;
      await (await jobs()).save(finished);
      await rm(join(uploadsDirectory, finished.jobId), { recursive: true, force: true });
    });
    const tracked = task.catch((error: unknown) =>
      logger.error("ingestion job failed", { component: "ingestion", job_id: job.jobId, error: (error as Error).message }),
    );
    backgroundJobs.add(tracked);
    void tracked.finally(() => backgroundJobs.delete(tracked));
  };

  const service: RagService = {
    config,
    ready,

    async upsert(request: UpsertRequest): Promise<UpsertResult> {
      const entries = Object.entries(request.documents ?? {});
      if (entries.length === 0) {
        throw new DocqaError("invalid_request", "documents must contain at least one document", { component: "service" });
      }
      const problems: string[] = [];
      for (const [docId, document] of entries) {
        const id = documentIdSchema.safeParse(docId);
        if (!id.success) problems.push(`documents[${JSON.stringify(docId)}]: ${id.error.issues[0]?.message}`);
        else if (docId.startsWith("raptor:"))
          problems.push(`documents[${JSON.stringify(docId)}]: the prefix "raptor:" is reserved for summary nodes`);
        const parsed = documentInputSchema.safeParse(document);
        if (!parsed.success) {
          for (const issue of parsed.error.issues)
            problems.push(`documents[${JSON.stringify(docId)}].${issue.path.join(".")}: ${issue.message}`);
        }
      }
      if (problems.length > 0) {
        throw new DocqaError("invalid_request", `invalid documents: ${problems.join("; ")}`, { component: "service", details: problems });
      }
      await ready();
      const result = await indexDocuments(indexing(), {
        orgId: request.orgId,
        uploader: request.uploader,
        documents: entries.map(([docId, document]) => sourceFromInput(docId, documentInputSchema.parse(document))),
        signal: request.signal,
      });
      const written = result.documents.filter((document) => document.status === "written").length;
      const numChunks = result.documents.reduce((sum, document) => sum + document.chunks, 0);
      logger.info("documents upserted", {
        component: "service",
        org_id: request.orgId,
        documents: entries.length,
        written,
        chunks: numChunks,
        summaries: result.summaries,
      });
      return { numChunks, written, unchanged: entries.length - written, summaries: result.summaries };
    },

    async ingestFiles(request, ingestOptions) {
      const job = newJob(request.orgId, request.files.length);
      await (await jobs()).save(job);
      const uploader = request.uploader ?? request.principal.userName;
      return runJob(job, request.files, uploader, request.metadata ?? {}, ingestOptions);
    },

    async startIngestion(request) {
      const job = newJob(request.orgId, request.files.length);
      const directory = join(uploadsDirectory, job.jobId);
      await mkdir(directory, { recursive: true });
      const files: NonNullable<IngestionJob["resume"]>["files"] = [];
      for (const [index, file] of request.files.entries()) {
        const name = file.name ?? (file.path ? file.path.split(/[\\/]/).at(-1) : undefined) ?? `file-${index}`;
        let path = file.path;
        if (file.bytes) {
          path = join(directory, `${index}`);
          await writeFile(path, file.bytes);
        }
        if (!path) throw new DocqaError("invalid_request", `file ${index} has neither bytes nor a path`, { component: "service" });
        files.push({ name, path, docId: file.docId ?? name, lastModified: file.lastModified?.toISOString() });
      }
      job.resume = { uploader: request.uploader ?? request.principal.userName, metadata: request.metadata ?? {}, files };
      await (await jobs()).save(job);
      runInBackground(structuredClone(job));
      const { resume: _internal, ...visible } = job;
      return visible;
    },

    async getIngestionJob(context: RequestContext, jobId: string) {
      const job = await (await jobs()).get(context.orgId, jobId);
      if (!job) return undefined;
      const { resume: _internal, ...visible } = job;
      return visible;
    },

    async resumeIngestions() {
      const unfinished = (await (await jobs()).unfinished()).filter((job) => job.resume !== undefined);
      for (const job of unfinished) {
        logger.info("resuming an interrupted ingestion job", { component: "ingestion", job_id: job.jobId });
        runInBackground(job);
      }
      return unfinished.length;
    },

    async predict(request: PredictRequest): Promise<PredictResult> {
      const started = performance.now();
      const requestId = request.requestId ?? randomUUID();
      perfLog({ event: "rag_start", ts: Date.now(), request_id: requestId });
      const originalQuery = request.query;
      const query = checkQuery(request.query);
      const threadId = request.threadId ?? randomUUID();
      const principal = normalizePrincipal(request.principal);
      await ready();

      const retrievalStarted = performance.now();
      const retrieval = await retrieveChunks(
        { stores: readyStores(), embeddings: embeddings(), logger },
        { orgId: request.orgId, principal, query, settings: retrievalSettings(), signal: request.signal },
      );
      const retrievalMs = Math.round(performance.now() - retrievalStarted);
      perfLog({
        event: "retrieval_done",
        ts: Date.now(),
        request_id: requestId,
        retrieval_ms: retrievalMs,
        docs_count: retrieval.chunks.length,
      });

      const contextStarted = performance.now();
      const context = buildContext(retrieval.chunks, config);
      const contextMs = Math.round(performance.now() - contextStarted);

      let generated: GeneratedAnswer;
      const llmStarted = performance.now();
      if (context.entries.length === 0 && config.skipLlmOnEmptyContext) {
        generated = {
          answer: emptyContextAnswer(),
          mode: "empty-context",
          model: answerer.name,
          abstained: true,
          numPredict: null,
          numCtx: null,
        };
      } else {
        generated = await answerer.answer({ question: query, context, signal: request.signal });
      }
      const llmMs = Math.round(performance.now() - llmStarted);

      const postStarted = performance.now();
      const resolved = resolveCitations(generated.answer, context.sources);
      const postMs = Math.round(performance.now() - postStarted);
      const totalMs = Math.round(performance.now() - started);
      perfLog({
        event: "rag_end",
        ts: Date.now(),
        total_ms: totalMs,
        request_id: requestId,
        query_hash: createHash("sha256").update(query).digest("hex").slice(0, 16),
        retrieval_ms: retrievalMs,
        context_ms: contextMs,
        llm_ms: llmMs,
        post_ms: postMs,
        docs_count: context.entries.length,
        context_chars: context.text.length,
        model: generated.model,
        num_predict: generated.numPredict,
        num_ctx: generated.numCtx,
        answer_mode: generated.mode,
      });
      return {
        answer: resolved.answer,
        sources: resolved.sources,
        query,
        originalQuery,
        input: originalQuery,
        threadId,
        answerMode: generated.mode,
        droppedCitations: resolved.unknownKeys,
        timings: { retrievalMs, contextMs, llmMs, postMs, totalMs },
      };
    },

    async search(request: SearchRequest): Promise<SearchResult> {
      const query = checkQuery(request.query);
      await ready();
      const limit = request.limit ?? config.retrieverTopK;
      const retrieval = await retrieveChunks(
        { stores: readyStores(), embeddings: embeddings(), logger },
        {
          orgId: request.orgId,
          principal: normalizePrincipal(request.principal),
          query,
          filter: { metadata: request.metadata },
          settings: retrievalSettings(
            {
              retrieverTopK: limit,
              vectorTopK: Math.max(config.vectorTopK, limit),
              bm25TopK: Math.max(config.bm25TopK, limit),
              ...request.retrieval,
            },
            request.rerank ?? config.useReranker,
          ),
          signal: request.signal,
        },
      );
      return { results: retrieval.chunks, total: retrieval.chunks.length };
    },

    async query(request: IntentRequest) {
      return classifyIntent(request.text);
    },

    async deleteDocuments(context: RequestContext, docIds: readonly string[]) {
      await ready();
      const derived = await readyStores().registry.derivedDocuments(context.orgId, docIds);
      await readyStores().write(context.orgId, [], { deleteDocIds: [...new Set([...docIds, ...derived])] });
    },

    async health(): Promise<ServiceHealth> {
      const state = embeddingState;
      const embeddingsHealth: ServiceHealth["embeddings"] = !state
        ? { status: "loading", model: config.embedModelName }
        : state.status === "ready"
          ? { status: "ready", model: state.model.id }
          : { status: state.status, model: config.embedModelName, detail: state.reason };
      return {
        status: state?.status === "unavailable" ? "degraded" : "ok",
        embeddings: embeddingsHealth,
        stores: stores
          ? { vector: stores.vector?.name ?? null, keyword: stores.keyword.name }
          : { vector: config.vectorStore === "none" ? null : config.vectorStore, keyword: config.keywordStore },
        answerer: answerer.name,
        reranker: config.useReranker && reranker ? reranker.name : null,
      };
    },

    async close() {
      stopping.abort();
      await Promise.allSettled([...backgroundJobs]);
      await stores?.close();
      await options.jobStore?.close();
      if (cacheStores) await (await cacheStores.catch(() => undefined))?.close();
    },
  };
  return service;
}

function isFullConfig(config: RagServiceOptions["config"]): config is DocqaConfig {
  return (
    config !== undefined && "jwt" in config && "cache" in config && "dataDir" in config && "vectorTopK" in config && "perfLog" in config
  );
}
