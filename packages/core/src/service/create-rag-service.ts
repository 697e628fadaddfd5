/**
 * `createRagService`: wires configuration, stores, embeddings, the chat model, the answerer and
 * the job store into the pipelines of the spec's `POST /upsert`, `POST /predict` and
 * `POST /query`, and file ingestion.
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
import type { IngestionJob } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";
import { createConsoleLogger, type Logger } from "../logging/logger.js";
import { createPerfLog, type PerfLog, type RagEndEvent } from "../logging/perf-log.js";
import { type ConversationMemory, createConversationMemory } from "../memory/conversation-memory.js";
import { createTokenCounter } from "../memory/count-tokens.js";
import type { ConversationTurn, MemoryStore } from "../memory/memory-store.js";
import { rewriteFollowUp } from "../memory/rewrite-follow-up.js";
import { type ChatModelChoice, chatModelFromConfig } from "../models/chat-model-from-config.js";
import { createModelAnswerer } from "../models/create-model-answerer.js";
import {
  createModelIntentClassifier,
  createRuleIntentClassifier,
  type IntentClassifier,
} from "../models/create-model-intent-classifier.js";
import { decomposeQuestion } from "../models/decompose-question.js";
import { embeddingsFromProvider } from "../models/embeddings-from-provider.js";
import type { StructuredOutputMethod } from "../models/invoke-structured.js";
import { mergeSubqueryResults, retrieveSubqueries } from "../models/merge-subquery-results.js";
import { condenseHistory, type HistoryTurn } from "../models/prompts.js";
import { streamModelAnswer } from "../models/stream-model-answer.js";
import { createExtractiveSummarizer, type Summarizer } from "../raptor/summarizer.js";
import { CrossEncoderReranker } from "../retrieval/cross-encoder-reranker.js";
import { normalizeQuery } from "../retrieval/normalize-query.js";
import type { Reranker } from "../retrieval/reranker.js";
import { type RetrievalSettings, type RetrievedChunk, retrieveChunks } from "../retrieval/retrieve-chunks.js";
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
  /**
   * Embeddings: default per `EMBED_PROVIDER`: transformers.js with `EMBED_MODEL_NAME`, or
   * `OpenAIEmbeddings` / `OllamaEmbeddings` (`embeddingsFromProvider`); `null` for BM25 only.
   */
  embeddings?: EmbeddingsInterface | null;
  /** Model id recorded with vectors of user-supplied embeddings. */
  embeddingModelId?: string;
  /**
   * Answerer; default the model answerer (`createModelAnswerer`, with the extractive answerer as
   * its fallback) when `RAG_LLM_PROVIDER` selects a usable chat model (`chatModelFromConfig`),
   * else the extractive answerer. A given answerer is used whatever the configuration; the chat
   * model then still decomposes questions and detects intents.
   */
  answerer?: Answerer;
  /** Summariser of RAPTOR clusters; default the extractive summariser. */
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
  const extractiveAnswerer = createExtractiveAnswerer({ minimumCoverage: config.extractiveMinCoverage });
  // Replaced by the model answerer once `prepareChatModel` finds a usable chat model.
  let answerer: Answerer = options.answerer ?? extractiveAnswerer;
  // The `model` of PERF lines and results when the answerer is not called (empty context).
  let answererModel = answerer.name;
  let intentClassifier: IntentClassifier = createRuleIntentClassifier();
  let chatChoice: ChatModelChoice | undefined;
  let chatModelPromise: Promise<ChatModelChoice> | undefined;
  const structuredOutputMethod = structuredOutputMethods[config.llmStructuredOutput];
  // Query decomposition and intent detection are short calls: at most 10 s (or RAG_LLM_TIMEOUT_MS).
  const auxiliaryTimeoutMs = Math.min(10_000, config.llmTimeoutMs);
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
  // Conversation memory (docs/memory.md): created on first use; a store that cannot even be
  // created (Redis package missing) fails the request like any configuration error.
  let conversationMemory: Promise<ConversationMemory> | undefined;
  const memory = (): Promise<ConversationMemory> => {
    conversationMemory ??= (async () =>
      createConversationMemory({
        store: options.memoryStore ?? (await cache()).memoryStore,
        sessionTimeoutSeconds: config.sessionTimeoutSeconds,
        threadTimeoutSeconds: config.threadTimeoutSeconds,
        maxSessionTokens: config.maxSessionTokens,
        countTokens: await createTokenCounter(config.llmProvider === "ollama" ? config.localLlmModel : config.generatorModel),
        logger,
      }))().catch((error: unknown) => {
      conversationMemory = undefined;
      throw error;
    });
    return conversationMemory;
  };
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

  /** Embeddings per `EMBED_PROVIDER`: provider embeddings for `openai`/`ollama`, else `prepareEmbeddings`' own choice. */
  const prepareEmbeddingState = async (): Promise<EmbeddingState> => {
    if (options.embeddings === undefined && (config.embedProvider === "openai" || config.embedProvider === "ollama")) {
      let reason: string | undefined;
      const recording: Logger = {
        ...logger,
        warn: (message, fields) => {
          reason = message;
          logger.warn(message, fields);
        },
      };
      const provided = await embeddingsFromProvider(config, { logger: recording });
      if (!provided) {
        return { status: "unavailable", reason: reason ?? `EMBED_PROVIDER is ${config.embedProvider} but no embeddings could be built` };
      }
      return prepareEmbeddings(
        config,
        { embeddings: provided, embeddingModelId: options.embeddingModelId ?? config.embedModelName },
        logger,
      );
    }
    return prepareEmbeddings(config, { embeddings: options.embeddings, embeddingModelId: options.embeddingModelId }, logger);
  };

  /**
   * Chooses the chat model once (`chatModelFromConfig`; it logs why when there is none) and
   * builds the model answerer and the model intent classifier on it. Never throws.
   */
  const prepareChatModel = (): Promise<ChatModelChoice> => {
    chatModelPromise ??= chatModelFromConfig(config, { logger, timeoutMs: config.llmTimeoutMs + clientTimeoutMarginMs })
      .catch((error: unknown): ChatModelChoice => {
        const reason = `the chat model could not be created: ${(error as Error).message}`;
        logger.warn(`no chat model; answers use the extractive answerer: ${reason}`, { component: "models" });
        return { status: "disabled", reason };
      })
      .then((choice) => {
        chatChoice = choice;
        if (choice.status === "ready") {
          if (!options.answerer) {
            answerer = createModelAnswerer({
              model: choice.model,
              modelName: choice.modelName,
              numPredict: choice.numPredict,
              numCtx: choice.numCtx,
              structuredOutputMethod,
              resilience: { timeoutMs: config.llmTimeoutMs, maxRetries: config.llmMaxRetries },
              logger,
              fallback: extractiveAnswerer,
            });
            answererModel = choice.modelName;
          }
          intentClassifier = createModelIntentClassifier(choice.model, {
            modelName: choice.modelName,
            structuredOutputMethod,
            resilience: { timeoutMs: auxiliaryTimeoutMs, maxRetries: 0 },
            logger,
          });
          logger.info("chat model ready", { component: "models", provider: choice.provider, model: choice.modelName });
        }
        return choice;
      });
    return chatModelPromise;
  };

  const ready = (): Promise<void> => {
    readyPromise ??= Promise.all([prepareEmbeddingState(), prepareReranker(), prepareStores(), prepareChatModel()]).then(
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
      fusionCandidates: config.fusionCandidates,
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

    async forgetUser(context: RequestContext) {
      const userName = normalizePrincipal(context.principal).userName;
      if (userName === "") return { deleted: 0 };
      const deleted = await (await memory()).forget(context.orgId, userName);
      logger.info("conversation memory deleted", { component: "memory", org_id: context.orgId, conversations: deleted });
      return { deleted };
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
      const question = checkQuery(request.query);
      const principal = normalizePrincipal(request.principal);
      await ready();
      const model = chatChoice?.status === "ready" ? chatChoice : undefined;

      // Step 2 and memory: the thread's history (stored turns win; a client's `history` is used
      // when the thread has none), then a follow-up rewritten into a standalone query.
      const conversations = principal.userName === "" ? undefined : await memory();
      const conversation = conversations
        ? await conversations.begin({ orgId: request.orgId, userName: principal.userName, threadId: request.threadId })
        : { threadId: request.threadId ?? randomUUID(), history: [], continued: false };
      const threadId = conversation.threadId;
      const history: ConversationTurn[] =
        conversation.history.length > 0
          ? conversation.history
          : historyTurns(request.history ?? []).map((turn) => ({ ...turn, createdAt: 0 }));
      const rewritten = await rewriteFollowUp(question, history, { model: model?.model, signal: request.signal });
      const query = checkQuery(rewritten.query);

      // Steps 4 to 6 for the question, and for its sub-queries when it asks several things.
      // Every retrieval applies the ACL rules itself (`retrieveChunks`).
      const retrievalStarted = performance.now();
      const dependencies = { stores: readyStores(), embeddings: embeddings(), logger };
      const settings = retrievalSettings();
      const retrieve = (text: string, topK = settings.retrieverTopK) =>
        retrieveChunks(dependencies, {
          orgId: request.orgId,
          principal,
          query: text,
          settings: { ...settings, retrieverTopK: topK },
          signal: request.signal,
        });
      const [retrieval, decomposition] = await Promise.all([
        retrieve(query),
        config.useQueryDecomposition
          ? decomposeQuestion(query, {
              model: model?.model,
              modelName: model?.modelName,
              structuredOutputMethod,
              maxSubqueries: config.queryDecompositionN,
              resilience: { timeoutMs: auxiliaryTimeoutMs, maxRetries: Math.min(1, config.llmMaxRetries) },
              signal: request.signal,
              logger,
            })
          : undefined,
      ]);
      const subqueries = distinctSubqueries(decomposition?.subqueries ?? [], query, config.maxQueryChars);
      let chunks: RetrievedChunk[] = retrieval.chunks;
      if (subqueries.length > 0) {
        const perSubquery = await retrieveSubqueries(subqueries, async (text) => (await retrieve(text, config.subqueryTopK)).chunks, {
          topK: config.subqueryTopK,
          concurrency: config.maxRetrievalThreads,
          signal: request.signal,
        });
        chunks = mergeSubqueryResults([retrieval.chunks, perSubquery.merged]);
      }
      const retrievalMs = Math.round(performance.now() - retrievalStarted);
      perfLog({
        event: "retrieval_done",
        ts: Date.now(),
        request_id: requestId,
        retrieval_ms: retrievalMs,
        docs_count: chunks.length,
      });

      const contextStarted = performance.now();
      const context = buildContext(chunks, config);
      const contextMs = Math.round(performance.now() - contextStarted);

      let generated: GeneratedAnswer;
      const llmStarted = performance.now();
      if (context.entries.length === 0 && config.skipLlmOnEmptyContext) {
        generated = {
          answer: emptyContextAnswer(),
          mode: "empty-context",
          model: answererModel,
          abstained: true,
          numPredict: null,
          numCtx: null,
          fallbackReason: null,
        };
      } else {
        const answerRequest = {
          question: query,
          context,
          history: history.length > 0 ? condenseHistory(history) : undefined,
          subqueries: config.subqueryReasoningEnabled && subqueries.length > 0 ? subqueries : undefined,
          signal: request.signal,
        };
        generated = request.onToken ? await streamedAnswer(answerer, answerRequest, request.onToken) : await answerer.answer(answerRequest);
      }
      const llmMs = Math.round(performance.now() - llmStarted);

      const postStarted = performance.now();
      const resolved = resolveCitations(generated.answer, context.sources);
      const postMs = Math.round(performance.now() - postStarted);
      const totalMs = Math.round(performance.now() - started);
      const fallbackReason = generated.fallbackReason ?? null;
      const promptVersion = "promptVersion" in generated && typeof generated.promptVersion === "string" ? generated.promptVersion : null;
      const end: RagEndEvent = {
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
        fallback_reason: fallbackReason,
        prompt_version: promptVersion,
        query_rewrite: rewritten.method,
      };
      perfLog(end);
      // Step 9: memory is updated after the response is built, in the background.
      conversations?.record(
        { orgId: request.orgId, userName: principal.userName, threadId },
        {
          question,
          rewrittenQuery: query === question ? undefined : query,
          answer: resolved.answer.callout_answer,
          citedDocIds: [...new Set(Object.values(resolved.sources).map((source) => String(source.metadata.doc_id)))],
          createdAt: Date.now(),
        },
      );
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
        subqueries,
        generation: {
          model: generated.model,
          numPredict: generated.numPredict,
          numCtx: generated.numCtx,
          fallbackReason,
          promptVersion,
        },
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
      await prepareChatModel();
      return intentClassifier.classify(request.text, { signal: request.signal });
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
        chatModel: !chatChoice
          ? { status: "loading" }
          : chatChoice.status === "ready"
            ? { status: "ready", provider: chatChoice.provider, model: chatChoice.modelName }
            : { status: "disabled", detail: chatChoice.reason },
        reranker: config.useReranker && reranker ? reranker.name : null,
      };
    },

    async close() {
      stopping.abort();
      await Promise.allSettled([...backgroundJobs]);
      await stores?.close();
      await options.jobStore?.close();
      if (conversationMemory) await (await conversationMemory.catch(() => undefined))?.settled();
      if (cacheStores) await (await cacheStores.catch(() => undefined))?.close();
    },
  };
  return service;
}

/** `RAG_LLM_STRUCTURED_OUTPUT` values and the LangChain methods they select (`auto`: the model's default). */
const structuredOutputMethods: Record<DocqaConfig["llmStructuredOutput"], StructuredOutputMethod | undefined> = {
  auto: undefined,
  function_calling: "functionCalling",
  json_schema: "jsonSchema",
  json_mode: "jsonMode",
};

/**
 * Milliseconds the OpenAI client's own timeout exceeds `RAG_LLM_TIMEOUT_MS`, so that docqa's
 * per-attempt timeout (`callWithResilience`) fires first and the client's is only a backstop.
 */
const clientTimeoutMarginMs = 5_000;

/**
 * The sub-queries worth retrieving: normalised, non-empty, at most `maxChars` long, neither the
 * question itself nor a repeat (case-insensitive).
 */
function distinctSubqueries(subqueries: readonly string[], question: string, maxChars: number): string[] {
  const seen = new Set([question.toLowerCase()]);
  const kept: string[] = [];
  for (const subquery of subqueries) {
    const text = normalizeQuery(subquery).slice(0, maxChars);
    if (text === "" || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    kept.push(text);
  }
  return kept;
}

/**
 * Pairs conversation messages into turns: each user message with the assistant messages that
 * follow it (joined); assistant messages before any user message form a turn with an empty question.
 */
function historyTurns(messages: NonNullable<PredictRequest["history"]>): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (message.role === "user") turns.push({ question: message.content, answer: "" });
    else if (last) last.answer = last.answer === "" ? message.content : `${last.answer}\n${message.content}`;
    else turns.push({ question: "", answer: message.content });
  }
  return turns;
}

/**
 * Answers through the answerer's stream (`streamModelAnswer`): tokens go to `onToken`, the final
 * event's answer is returned. An answerer without streaming yields only its final answer.
 */
async function streamedAnswer(
  answerer: Answerer,
  request: Parameters<Answerer["answer"]>[0],
  onToken: (text: string) => void,
): Promise<GeneratedAnswer> {
  for await (const event of streamModelAnswer(answerer, request)) {
    if (event.type === "token") onToken(event.text);
    else return event.generated;
  }
  throw new DocqaError("internal_error", "the answer stream ended without a final answer", { component: "service" });
}

function isFullConfig(config: RagServiceOptions["config"]): config is DocqaConfig {
  return (
    config !== undefined && "jwt" in config && "cache" in config && "dataDir" in config && "vectorTopK" in config && "perfLog" in config
  );
}
