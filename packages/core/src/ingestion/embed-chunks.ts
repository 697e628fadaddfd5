/**
 * Embedding of chunks at ingestion, in batches.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { type DocumentVersion, indexedText } from "../stores/chunk-record.js";

/** Chunks embedded per call to the embeddings object. */
const batchSize = 64;

/**
 * Sets `embedding` on every chunk of `documents`, embedding the title and text together. Between
 * batches the event loop turns once (a model's forward pass may run synchronously, so awaiting it
 * alone never lets timers or I/O run), then `signal` is checked: a stopping ingestion worker ends
 * between batches, since terminating a thread while a model runs would abort the process.
 */
export async function embedChunks(
  documents: readonly DocumentVersion[],
  embeddings: EmbeddingsInterface,
  signal?: AbortSignal,
): Promise<void> {
  const chunks = documents.flatMap((document) => document.chunks);
  for (let start = 0; start < chunks.length; start += batchSize) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    const batch = chunks.slice(start, start + batchSize);
    const vectors = await embeddings.embedDocuments(batch.map((chunk) => indexedText(chunk)));
    batch.forEach((chunk, index) => {
      chunk.embedding = Float32Array.from(vectors[index] ?? []);
    });
  }
}
