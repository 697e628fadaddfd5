/**
 * The ingestion worker thread, run by the pool of `worker-pool-executor.ts` (piscina): it
 * validates, parses, chunks, embeds and writes, so the serving thread only routes requests.
 * Each worker prepares once, from the service's configuration: its own embedding model (loaded
 * once per worker, and any other model an organisation's index holds, loaded on first use), the
 * extractive RAPTOR summariser, and the server stores' clients. The
 * embedded store is opened for writing only (no in-memory indexes) for each task and closed
 * after it, so a worker holds no file open between tasks; the serving thread's store replays
 * the committed writes (`DocumentStores.refresh`). Writes stay atomic per document and are
 * durable when a task resolves. Logs, audit lines and `indexed` metric events go to the service's
 * logger, audit log and metrics through a `BroadcastChannel`.
 * A task's large embedding calls are shared with the pool's idle workers (`embed-share` tasks,
 * see `embedding-shares.ts` and `DataParallelEmbeddings`).
 * When the pool closes, a flag in shared memory stops tasks at their next check (between steps,
 * and between model calls of at most 64 texts, `StoppableEmbeddings`); the pool waits for every task
 * to end before the threads do, so a thread is never terminated while the embedding model runs.
 */
import type { MessagePort } from "node:worker_threads";
import { workerData } from "piscina";
import { DataParallelEmbeddings, shareOffered, shareTaken } from "../embeddings/data-parallel-embeddings.js";
import { embeddingStateFromConfig } from "../embeddings/embedding-state-from-config.js";
import { createEmbeddingModelLoader } from "../embeddings/embeddings-for-model.js";
import { OrganisationIndexModels } from "../embeddings/organisation-index-models.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { DocqaError } from "../errors/docqa-error.js";
import { serializeError } from "../errors/serialized-error.js";
import type { Logger } from "../logging/logger.js";
import { createExtractiveSummarizer } from "../raptor/summarizer.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { storesFromConfig, usesEmbeddedStore } from "../stores/stores-from-config.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { flattenShare, helpersThroughPort } from "./embedding-shares.js";
import type { IndexingDependencies } from "./index-documents.js";
import { ingestFile, planFile } from "./ingest-file.js";
import { runUpsertTask } from "./ingestion-executor.js";
import type { IngestionTask, IngestionTaskOutcome, IngestionWorkerData } from "./ingestion-tasks.js";
import { StoppableEmbeddings } from "./stoppable-embeddings.js";
import { createWorkerChannel } from "./worker-log-channel.js";

const { config, logChannel, stop, threads } = workerData as IngestionWorkerData;
const { logger, audit, metrics } = createWorkerChannel(logChannel, config.logging.level);
/** Aborted once the pool is closing (see `IngestionWorkerData.stop`); tasks check it between steps. */
const stopping = new AbortController();
/**
 * Reads the pool's stop flag from shared memory (no event loop turn needed, unlike a timer) and
 * aborts `stopping` once it is set; true when the pool is closing.
 */
function stopRequested(): boolean {
  if (!stopping.signal.aborted && Atomics.load(stop, 0) === 1) {
    stopping.abort(new DocqaError("store_unavailable", "the service is stopping: retry the ingestion", { component: "ingestion-worker" }));
    clearInterval(watch);
  }
  return stopping.signal.aborted;
}
const watch = setInterval(stopRequested, 50);
watch.unref();
/** Throws the stop reason once the pool is closing; checked when a task starts and between model calls. */
function throwIfStopping(): void {
  if (stopRequested()) stopping.signal.throwIfAborted();
}
/** The serving thread has already warned about the embedding model; the workers say it at `debug`. */
const quietLogger: Logger = { ...logger, warn: logger.debug };

interface WorkerParts {
  embeddings: EmbeddingState;
  /** Server stores, shared by the worker's tasks; undefined for the embedded store (opened per task). */
  serverStores: DocumentStores | undefined;
}

let parts: Promise<WorkerParts> | undefined;
const prepare = (): Promise<WorkerParts> => {
  parts ??= (async () => ({
    embeddings: (preparedEmbeddings = await embeddingStateFromConfig(config, {}, quietLogger)),
    serverStores: usesEmbeddedStore(config) ? undefined : await storesFromConfig(config, logger),
  }))().catch((error: unknown) => {
    parts = undefined;
    throw error;
  });
  return parts;
};
/**
 * Organisations whose index holds another embedding model or none, as this thread has seen them,
 * and the other models' embeddings, loaded once per thread: a write to such an organisation is
 * embedded with its index's model, or stored without vectors (`writeDocuments`).
 */
let preparedEmbeddings: EmbeddingState | undefined;
const indexModels = new OrganisationIndexModels(
  () => (preparedEmbeddings?.status === "ready" ? preparedEmbeddings.model : undefined),
  logger,
);
const loadModel = createEmbeddingModelLoader(config, { configured: async () => (await prepare()).embeddings, logger });
/** This thread's embeddings of `modelId` (loaded once), stopping between model calls once the pool is closing. */
const embeddingsFor = async (modelId: string): Promise<EmbeddingState> => stoppable(await loadModel(modelId));
function stoppable(embeddings: EmbeddingState): EmbeddingState {
  return embeddings.status === "ready"
    ? { ...embeddings, embeddings: new StoppableEmbeddings(embeddings.embeddings, throwIfStopping) }
    : embeddings;
}
const summarizer = createExtractiveSummarizer({ maximumChars: config.ingestion.raptorSummaryChars });
const analyzer = createEnglishAnalyzer();

/**
 * The embeddings a task embeds with: with a shares port, large calls are spread over the pool's
 * other threads (`DataParallelEmbeddings`); without one, this thread's model alone. Either way the
 * thread's own model calls stop once the pool is closing.
 */
function taskEmbeddings(embeddings: EmbeddingState, sharesPort: MessagePort | undefined, modelId?: string): EmbeddingState {
  const own = stoppable(embeddings);
  if (own.status !== "ready" || !sharesPort) return own;
  return {
    ...own,
    embeddings: new DataParallelEmbeddings(own.embeddings, helpersThroughPort(sharesPort, threads - 1, modelId)),
  };
}

/** This thread's embeddings of `modelId` (default the configured model), stopping once the pool is closing. */
async function embeddingsOf(modelId: string | undefined): Promise<EmbeddingState> {
  return modelId ? embeddingsFor(modelId) : stoppable((await prepare()).embeddings);
}

/** Runs `work` with the worker's indexing dependencies; an embedded store is opened for the task and closed after it. */
async function withDependencies<T>(
  sharesPort: MessagePort | undefined,
  work: (dependencies: IndexingDependencies) => Promise<T>,
): Promise<T> {
  const { embeddings: prepared, serverStores } = await prepare();
  const embeddings = taskEmbeddings(prepared, sharesPort);
  const stores = serverStores ?? (await storesFromConfig(config, logger, { inMemoryIndexes: false }));
  try {
    return await work({ config, stores, embeddings, indexModels, embeddingsFor, summarizer, analyzer, logger, audit, metrics });
  } finally {
    if (!serverStores) await stores.close();
  }
}

async function run(task: IngestionTask): Promise<unknown> {
  // A task queued before the pool began closing starts here: it ends at once.
  throwIfStopping();
  try {
    switch (task.kind) {
      case "upsert":
        return await withDependencies(task.sharesPort, (dependencies) => runUpsertTask(dependencies, { ...task, signal: stopping.signal }));
      case "file": {
        const { progressPort, sharesPort, ...request } = task;
        return await withDependencies(sharesPort, (dependencies) =>
          ingestFile(dependencies, {
            ...request,
            signal: stopping.signal,
            onEmbeddingProgress: progressPort ? (progress) => progressPort.postMessage(progress) : undefined,
          }),
        );
      }
      case "plan-file": {
        const { kind: _kind, ...request } = task;
        return await withDependencies(undefined, (dependencies) => planFile(dependencies, { ...request, signal: stopping.signal }));
      }
      case "embed": {
        const embeddings = taskEmbeddings(
          task.modelId ? await loadModel(task.modelId) : (await prepare()).embeddings,
          task.sharesPort,
          task.modelId,
        );
        if (embeddings.status !== "ready") return undefined;
        const vectors = await embeddings.embeddings.embedDocuments([...task.texts]);
        logger.debug("texts embedded", { component: "ingestion-worker", texts: vectors.length, model: embeddings.model.id });
        return vectors;
      }
      case "embed-share": {
        // Another worker offered this share; it may have taken it back meanwhile (then skip it).
        // The model is loaded before the share is taken, so that a thread still starting never
        // keeps the offering worker waiting.
        const embeddings = await embeddingsOf(task.modelId);
        if (embeddings.status !== "ready") return undefined;
        if (Atomics.compareExchange(task.claims, task.index, shareOffered, shareTaken) !== shareOffered) return undefined;
        return flattenShare(await embeddings.embeddings.embedDocuments([...task.texts]));
      }
    }
  } finally {
    if (task.kind !== "embed-share" && task.kind !== "plan-file") task.sharesPort?.close();
    if (task.kind === "file") task.progressPort?.close();
  }
}

/** Piscina's entry: runs one task and returns its outcome (errors included, with their codes). */
export default async function runIngestionTask(task: IngestionTask): Promise<IngestionTaskOutcome> {
  try {
    return { ok: true, value: await run(task) };
  } catch (error) {
    if (!DocqaError.isInstance(error) || error.code === "internal_error") {
      logger.error(`ingestion task failed: ${(error as Error).message}`, {
        component: "ingestion-worker",
        task: task.kind,
        code: DocqaError.isInstance(error) ? error.code : "internal_error",
        error: (error as Error).message,
        stack: (error as Error).stack,
      });
    }
    return { ok: false, error: serializeError(error) };
  }
}
