/**
 * Reindex jobs of a service (`reindex`, `startReindex`, `reindexStatus`): which vector index and
 * which model a job uses, one job per organisation at a time in this process (the index refuses a
 * second one running elsewhere), the organisation's index model remembered once the job switched
 * it, and jobs stopped when the service closes (they resume on the next run).
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { Runtime } from "../pipeline/runtime.js";
import { reindexOrganisation } from "../stores/reindex-organisation.js";
import { isReindexable, type ReindexableIndex, type ReindexJob } from "../stores/reindexable-index.js";
import { type EmbeddingModelInfo, sameModel } from "../stores/vector-index.js";

/** Input of `RagService.reindex` and `RagService.startReindex`. */
export interface ReindexRequest {
  orgId: string;
  /** The embedding model to rebuild with; default the configured one (`EMBED_MODEL_NAME`). */
  model?: string | undefined;
  /** Stops the job (it ends `failed`, and a later job for the same model resumes). */
  signal?: AbortSignal | undefined;
}

/** What an organisation's vector index holds, and its latest reindex job. */
export interface ReindexStatus {
  orgId: string;
  /** The configured embedding model, when one is loaded. */
  configuredModel: EmbeddingModelInfo | null;
  /** The model of the organisation's live vectors; `null` when its chunks have no vectors. */
  indexModel: EmbeddingModelInfo | null;
  /**
   * `current` (the configured model), `other_model` (queries are embedded with the index's model
   * when it can be loaded, else BM25 alone), `no_vectors` (BM25 alone), `empty` (no chunks), or
   * `none` (the deployment has no vector index).
   */
  vectors: "current" | "other_model" | "no_vectors" | "empty" | "none";
  /** The latest reindex job, running or finished, of any process. */
  job: ReindexJob | null;
}

/** The reindex jobs of a service. */
export interface ReindexJobs {
  /** Runs a job to its end (see `RagService.reindex`). */
  run(request: ReindexRequest, onProgress?: (job: ReindexJob) => void): Promise<ReindexJob>;
  /** Starts a job in the background and returns it once recorded (see `RagService.startReindex`). */
  start(request: ReindexRequest): Promise<ReindexJob>;
  /** The organisation's vector index and latest job. */
  status(orgId: string): Promise<ReindexStatus>;
  /** Jobs running in this process. */
  running(): number;
  /** Stops running jobs and waits for them. */
  close(): Promise<void>;
}

/** Settings of {@link createReindexJobs}. */
export interface ReindexJobsSettings {
  runtime: () => Promise<Runtime>;
  logger: Logger;
  /**
   * Embeds a job's chunks off the serving thread (the ingestion workers' `embedDocuments`), so that
   * a reindex never holds the event loop; resolves undefined when the model is not available
   * there. Without it, the serving thread's embeddings of the model are used.
   */
  embedDocuments?: ((texts: readonly string[], modelId: string) => Promise<number[][] | undefined>) | undefined;
}

/**
 * The embeddings a reindex job embeds its chunks with: `settings.embedDocuments` when given
 * (queries, which a job never embeds, stay with `local`), else `local`.
 */
function jobEmbeddings(settings: ReindexJobsSettings, local: EmbeddingsInterface, modelId: string): EmbeddingsInterface {
  const delegate = settings.embedDocuments;
  if (!delegate) return local;
  return {
    async embedDocuments(texts) {
      const vectors = await delegate(texts, modelId);
      if (!vectors) throw new DocqaError("model_unavailable", `the ingestion workers cannot load ${modelId}`, { component: "reindex" });
      return vectors;
    },
    embedQuery: (text) => local.embedQuery(text),
  };
}

/** Creates the reindex jobs of a service. */
export function createReindexJobs(settings: ReindexJobsSettings): ReindexJobs {
  const active = new Map<string, Promise<ReindexJob>>();
  const stopping = new AbortController();

  const indexOf = (runtime: Runtime): ReindexableIndex => {
    const index = runtime.stores.vector;
    if (!index) {
      throw new DocqaError(
        "invalid_request",
        "this deployment has no vector index (VECTOR_STORE=none): its BM25 index does not depend on the embedding model, so there is nothing to reindex",
        { component: "reindex" },
      );
    }
    if (!isReindexable(index))
      throw new DocqaError("invalid_request", `the ${index.name} vector index cannot be reindexed`, { component: "reindex" });
    return index;
  };

  const launch = async (request: ReindexRequest, onProgress?: (job: ReindexJob) => void, onStart?: (job: ReindexJob) => void) => {
    if (active.has(request.orgId)) {
      throw new DocqaError("invalid_request", `a reindex of organisation ${request.orgId} is already running in this process`, {
        component: "reindex",
      });
    }
    const runtime = await settings.runtime();
    const index = indexOf(runtime);
    const modelId =
      request.model ?? (runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : runtime.config.embeddings.modelName);
    if (!modelId)
      throw new DocqaError("invalid_request", "no embedding model given and none configured (EMBED_MODEL_NAME)", { component: "reindex" });
    const target = await runtime.embeddingsFor(modelId);
    if (target.status !== "ready") {
      throw new DocqaError("model_unavailable", `cannot reindex with ${modelId}: ${target.reason}`, { component: "reindex" });
    }
    const signal = request.signal ? AbortSignal.any([stopping.signal, request.signal]) : stopping.signal;
    const job = reindexOrganisation({
      orgId: request.orgId,
      index,
      stores: runtime.stores,
      embeddings: jobEmbeddings(settings, target.embeddings, target.model.id),
      model: target.model,
      onProgress,
      onStart,
      signal,
      logger: settings.logger,
    }).then((finished) => {
      if (finished.state === "succeeded") runtime.indexModels.record(request.orgId, finished.model);
      return finished;
    });
    active.set(request.orgId, job);
    void job.catch(() => undefined).finally(() => active.delete(request.orgId));
    return { job };
  };

  return {
    async run(request, onProgress) {
      return (await launch(request, onProgress)).job;
    },

    async start(request) {
      let started: (job: ReindexJob) => void = () => {};
      const recorded = new Promise<ReindexJob>((resolve) => {
        started = resolve;
      });
      const { job } = await launch(request, undefined, (first) => started(first));
      job.catch((error: unknown) =>
        settings.logger.error("reindex failed", { component: "reindex", org_id: request.orgId, error: (error as Error).message }),
      );
      // Resolves with the recorded job, or with the finished one when it ended without starting
      // (already current) or failed before recording.
      return Promise.race([recorded, job]);
    },

    async status(orgId) {
      const runtime = await settings.runtime();
      const configuredModel = runtime.embeddings.status === "ready" ? runtime.embeddings.model : null;
      const index = runtime.stores.vector;
      if (!index || !isReindexable(index)) return { orgId, configuredModel, indexModel: null, vectors: "none", job: null };
      const [indexModel, job] = await Promise.all([index.vectorModel(orgId), index.reindexJob(orgId)]);
      const vectors =
        indexModel === undefined
          ? "empty"
          : indexModel === null
            ? "no_vectors"
            : configuredModel && sameModel(indexModel, configuredModel)
              ? "current"
              : "other_model";
      return { orgId, configuredModel, indexModel: indexModel ?? null, vectors, job: job ?? null };
    },

    running: () => active.size,

    async close() {
      stopping.abort();
      await Promise.allSettled([...active.values()]);
    },
  };
}
