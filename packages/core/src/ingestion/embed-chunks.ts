/**
 * Embedding of chunks at ingestion: vectors already in the embedding cache are reused, identical
 * texts are embedded once, and the rest go to the model in slices of similar length (so that the
 * model's own batches need little padding), with progress and throughput after each slice.
 *
 * The function needs only the chunks, an embeddings object and the cache's location, so an
 * ingestion worker can call it as it is.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { type EmbeddingCache, type EmbeddingCacheSettings, openEmbeddingCache } from "../embeddings/embedding-cache.js";
import type { Logger } from "../logging/logger.js";
import { type DocumentVersion, indexedText } from "../stores/chunk-record.js";

/** Texts per call to the embeddings object: one progress step. */
export const embeddingSliceSize = 256;

/** Progress of {@link embedChunks}. */
export interface EmbeddingProgress {
  /** Chunks with a vector so far (embedded, cached, or a duplicate of either). */
  done: number;
  /** Chunks of the call. */
  total: number;
  /** Chunks whose vector the model computed so far (chunks with the same text share one computation). */
  embedded: number;
  /** Chunks whose vector came from the cache. */
  cached: number;
  /** Milliseconds spent in the model so far. */
  embeddingMs: number;
  /** Model throughput so far: `embedded` per second of `embeddingMs` (0 before the first slice). */
  chunksPerSecond: number;
}

/** Options of {@link embedChunks}. */
export interface EmbedChunksOptions {
  /** The embedding cache; without it every chunk is embedded. */
  cache?: EmbeddingCacheSettings | undefined;
  /** Called after the cache lookup and after each slice embedded. */
  onProgress?: ((progress: EmbeddingProgress) => void) | undefined;
  /** Told when the cache cannot be used (embedding goes on without it). */
  logger?: Logger | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Sets `embedding` on every chunk of `documents`, embedding the title and text together
 * (`indexedText`). Before each slice the event loop turns once (a model's forward pass may run
 * synchronously, so awaiting it alone never lets timers or I/O run), then `signal` is checked: a
 * stopping ingestion worker ends between slices, since terminating a thread while a model runs
 * would abort the process.
 *
 * @returns the final progress (counts and throughput).
 * @throws what the embeddings object throws; the vectors embedded before the failure stay cached.
 */
export async function embedChunks(
  documents: readonly DocumentVersion[],
  embeddings: EmbeddingsInterface,
  options: EmbedChunksOptions = {},
): Promise<EmbeddingProgress> {
  const chunks = documents.flatMap((document) => document.chunks);
  const texts = chunks.map((chunk) => indexedText(chunk));
  const progress: EmbeddingProgress = { done: 0, total: chunks.length, embedded: 0, cached: 0, embeddingMs: 0, chunksPerSecond: 0 };
  if (chunks.length === 0) return progress;
  const cache = openCache(options);
  try {
    const vectors = new Map<string, Float32Array>();
    const cached = safely(options, () => cache?.lookup(texts)) ?? new Map<number, Float32Array>();
    for (const [index, vector] of cached) vectors.set(texts[index] as string, vector);
    progress.cached = cached.size;
    const occurrences = new Map<string, number>();
    for (const text of texts) if (!vectors.has(text)) occurrences.set(text, (occurrences.get(text) ?? 0) + 1);
    const missing = [...occurrences.keys()].sort((left, right) => left.length - right.length);
    const report = () => {
      progress.done = progress.cached + progress.embedded;
      progress.chunksPerSecond = progress.embeddingMs > 0 ? (progress.embedded / progress.embeddingMs) * 1000 : 0;
      options.onProgress?.({ ...progress });
    };
    report();
    for (let start = 0; start < missing.length; start += embeddingSliceSize) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      const slice = missing.slice(start, start + embeddingSliceSize);
      const started = performance.now();
      const embedded = await embeddings.embedDocuments(slice);
      progress.embeddingMs += performance.now() - started;
      const entries = slice.map((text, index) => ({ text, vector: Float32Array.from(embedded[index] ?? []) }));
      for (const { text, vector } of entries) vectors.set(text, vector);
      safely(options, () => cache?.store(entries));
      for (const text of slice) progress.embedded += occurrences.get(text) as number;
      report();
    }
    chunks.forEach((chunk, index) => {
      // Each chunk gets its own array: chunks with the same text must not share one.
      chunk.embedding = (vectors.get(texts[index] as string) as Float32Array).slice();
    });
    return progress;
  } finally {
    cache?.close();
  }
}

function openCache(options: EmbedChunksOptions): EmbeddingCache | undefined {
  if (!options.cache || options.cache.maxEntries <= 0) return undefined;
  const settings = options.cache;
  return safely(options, () => openEmbeddingCache(settings));
}

/** Runs a cache operation; a failure is logged and ignored, since the cache only saves work. */
function safely<T>(options: EmbedChunksOptions, operation: () => T): T | undefined {
  try {
    return operation();
  } catch (error) {
    options.logger?.warn(`embedding cache unavailable; embedding without it: ${(error as Error).message}`, {
      component: "embeddings",
      path: options.cache?.path,
    });
    return undefined;
  }
}
