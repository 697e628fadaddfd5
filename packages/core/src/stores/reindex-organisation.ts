/**
 * Rebuilds one organisation's vector index with another embedding model while it keeps serving
 * (`service.reindex`, `docqa reindex`): the live chunks of committed versions are embedded with
 * the new model in batches and written to a target beside the live index; chunks written
 * meanwhile are caught up (the target is asked again until nothing is pending); then the live
 * index switches to the target atomically (a switch that finds a newer write catches up and tries
 * again). After the switch, chunks that other processes wrote through the old index while they
 * had not yet seen the switch are copied over, and the old index is removed. Reads and writes go
 * on all along: until the switch they use the live index (queries embedded with its model, or
 * BM25 alone when it holds none), after it the new one.
 *
 * Progress is saved with the index every {@link progressIntervalMs} (a heartbeat), so any process
 * can read the job (`ReindexableIndex.reindexJob`).
 */
import { randomUUID } from "node:crypto";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { type ChunkRecord, indexedText } from "./chunk-record.js";
import type { DocumentStores } from "./document-stores.js";
import type { ReindexableIndex, ReindexJob } from "./reindexable-index.js";
import { type EmbeddingModelInfo, sameModel } from "./vector-index.js";

/** Milliseconds between two saves of a running job's progress. */
export const progressIntervalMs = 2_000;

/** What {@link reindexOrganisation} runs on. */
export interface ReindexRun {
  orgId: string;
  /** The organisation's vector index (the live index and its targets). */
  index: ReindexableIndex;
  /** The service's stores: the registry decides which chunks are committed (staged stores). */
  stores: DocumentStores;
  /** The new model's embeddings and identity. */
  embeddings: EmbeddingsInterface;
  model: EmbeddingModelInfo;
  /** Chunks embedded per call; default 64. */
  batchSize?: number | undefined;
  /** Called after every batch and phase change with the job (a copy). */
  onProgress?: ((job: ReindexJob) => void) | undefined;
  /** Stops the job: it ends `failed` ("stopped"), and a later job for the same model resumes where possible. */
  signal?: AbortSignal | undefined;
  logger: Logger;
  /** The job id; default a new UUID. */
  jobId?: string | undefined;
  /** Called with the job once the target is prepared and the job recorded (before any chunk is copied). */
  onStart?: ((job: ReindexJob) => void) | undefined;
}

/**
 * Runs a reindex job to its end and returns it: `succeeded`, or `failed` with the reason (the
 * live index is then unchanged). An organisation whose index already holds `model` succeeds at
 * once with nothing processed.
 *
 * @throws {DocqaError} `invalid_request` when the organisation has no chunks, or another job for it
 *   is running; `store_unavailable` when the job cannot even start.
 */
export async function reindexOrganisation(run: ReindexRun): Promise<ReindexJob> {
  const { orgId, index, stores, model, logger } = run;
  const fromModel = await index.vectorModel(orgId);
  if (fromModel === undefined) {
    throw new DocqaError("invalid_request", `organisation ${orgId} has no chunks: nothing to reindex`, { component: "reindex" });
  }
  const now = () => new Date().toISOString();
  const total = await (stores.vector ?? stores.keyword).count(orgId);
  const job: ReindexJob = {
    jobId: run.jobId ?? randomUUID(),
    orgId,
    model,
    fromModel,
    state: "running",
    phase: "copying",
    total,
    processed: 0,
    startedAt: now(),
    updatedAt: now(),
  };
  if (fromModel && sameModel(fromModel, model)) {
    return { ...job, state: "succeeded", phase: undefined, finishedAt: now() };
  }
  const target = await index.beginReindex(orgId, job);
  run.onStart?.({ ...job });
  const batchSize = Math.max(1, run.batchSize ?? 64);
  const registry = stores.writes === "staged" ? stores.registry : undefined;
  let lastSave = Date.now();
  const report = async (force = false) => {
    job.updatedAt = now();
    if (force || Date.now() - lastSave >= progressIntervalMs) {
      lastSave = Date.now();
      await target.save(job);
    }
    run.onProgress?.({ ...job });
  };
  /** Embeds and writes what the target lacks until nothing is pending. */
  const copyPending = async () => {
    for (;;) {
      run.signal?.throwIfAborted();
      const batch = await target.pending(batchSize, registry);
      if (batch.length === 0) return;
      await embedInto(batch, run.embeddings, model);
      await target.write(batch);
      job.processed += batch.length;
      if (job.phase === "copying" && job.processed >= job.total) job.phase = "catching_up";
      await report();
    }
  };

  let activated = false;
  try {
    for (let attempt = 1; ; attempt++) {
      await copyPending();
      job.phase = "switching";
      await report(true);
      if (await target.activate()) break;
      logger.debug("a write came in before the switch; catching up", { component: "reindex", org_id: orgId, attempt });
      job.phase = "catching_up";
    }
    activated = true;
    logger.info("reindex switched the organisation's vector index", {
      component: "reindex",
      org_id: orgId,
      model: model.id,
      chunks: job.processed,
    });
    job.phase = "retiring";
    await report(true);
    if (target.settleMs > 0) {
      await sleep(target.settleMs, run.signal);
      await copyPending();
    }
    await target.retire();
    job.state = "succeeded";
    job.phase = undefined;
    job.finishedAt = now();
    await report(true);
    return { ...job };
  } catch (error) {
    const stopped = run.signal?.aborted === true;
    if (activated && stopped) {
      // Switched already: the new index is live; only the old one's removal was skipped.
      job.state = "succeeded";
      job.phase = undefined;
      job.finishedAt = now();
      await target.save(job).catch(() => undefined);
      return { ...job };
    }
    if (!activated && !stopped) await target.discard().catch(() => undefined);
    job.state = "failed";
    job.phase = undefined;
    job.finishedAt = now();
    job.failure = stopped
      ? "stopped before the switch (the service was closed); run docqa reindex again to resume"
      : DocqaError.isInstance(error)
        ? error.publicMessage
        : (error as Error).message;
    logger.warn("reindex failed; the organisation's live index is unchanged", { component: "reindex", org_id: orgId, error: job.failure });
    await target.save(job).catch(() => undefined);
    run.onProgress?.({ ...job });
    return { ...job };
  }
}

/**
 * Sets each chunk's `embedding` to its vector by `model` (title and text, as ingestion embeds).
 *
 * @throws {DocqaError} `embedding_dimension_mismatch` when the model returns vectors of another dimension.
 */
async function embedInto(chunks: ChunkRecord[], embeddings: EmbeddingsInterface, model: EmbeddingModelInfo): Promise<void> {
  const vectors = await embeddings.embedDocuments(chunks.map((chunk) => indexedText(chunk)));
  chunks.forEach((chunk, position) => {
    const vector = vectors[position] ?? [];
    if (vector.length !== model.dimension) {
      throw new DocqaError(
        "embedding_dimension_mismatch",
        `${model.id} returned a ${vector.length}-dimensional vector, expected ${model.dimension}`,
        {
          component: "reindex",
        },
      );
    }
    chunk.embedding = Float32Array.from(vector);
  });
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
