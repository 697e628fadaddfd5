/**
 * What crosses between the serving thread and the ingestion worker threads: the worker's start-up
 * data, the tasks, and their outcomes. Everything is structured-clonable; errors travel as
 * {@link SerializedError} because a thread boundary keeps only an error's message and stack, not
 * its `code`.
 */
import type { MessagePort } from "node:worker_threads";
import type { DocqaConfig } from "../config/config-schema.js";
import type { SerializedError } from "../errors/serialized-error.js";
import type { ShareOffer } from "./embedding-shares.js";
import type { FileIngestionRequest } from "./ingest-file.js";
import type { UpsertTask } from "./ingestion-executor.js";

/** Data each worker starts with. */
export interface IngestionWorkerData {
  /** The service's resolved configuration. */
  config: DocqaConfig;
  /** Name of the `BroadcastChannel` the workers log, audit and report metrics to (see `worker-log-channel.ts`). */
  logChannel: string;
  /**
   * Set to 1 (over shared memory) when the pool is closing: tasks then stop at their next
   * check, between embedding batches, so that no thread is terminated while a model runs (which
   * aborts the whole process with onnxruntime-node).
   */
  stop: Int32Array;
  /** Threads of the pool: a worker offers shares of large embedding calls to the others (`embedding-shares.ts`). */
  threads: number;
}

/** What a task that embeds carries: its end of the channel it offers embedding shares on (see `embedding-shares.ts`). */
export interface SharesPort {
  sharesPort?: MessagePort | undefined;
}

/**
 * What a file task carries to report its embedding progress while it runs: a port on which the
 * worker posts each `EmbeddingProgress` (a listener cannot cross threads).
 */
export interface ProgressPort {
  progressPort?: MessagePort | undefined;
}

/** A unit of work for a worker. */
export type IngestionTask =
  | ({ kind: "upsert" } & Omit<UpsertTask, "signal"> & SharesPort)
  | ({ kind: "file" } & Omit<FileIngestionRequest, "signal" | "onEmbeddingProgress"> & SharesPort & ProgressPort)
  | ({ kind: "plan-file" } & Omit<FileIngestionRequest, "signal" | "onEmbeddingProgress">)
  | ({ kind: "embed"; texts: readonly string[] /** Default the configured model. */; modelId?: string | undefined } & SharesPort)
  | ({ kind: "embed-share" } & Omit<ShareOffer, "id">);

/** The outcome of a task: its value, or its error. */
export type IngestionTaskOutcome<T = unknown> = { ok: true; value: T } | { ok: false; error: SerializedError };
