/**
 * How an ingestion worker gets help embedding (see `embeddings/data-parallel-embeddings.ts`): each
 * task the pool runs carries one end of a `MessageChannel`; the worker offers shares of its
 * texts on it, the serving thread turns each offer into an `embed-share` task of the pool (which
 * runs on an idle worker, or waits and is then skipped once the offering worker has taken the
 * share back), and posts the vectors back on the same channel. The serving thread only forwards
 * messages; vectors travel as transferred `Float32Array` buffers.
 */
import type { MessagePort } from "node:worker_threads";
import type { EmbeddingHelpers } from "../embeddings/data-parallel-embeddings.js";

/** An offer, from the offering worker to the serving thread. */
export interface ShareOffer {
  id: number;
  texts: readonly string[];
  /** The call's claim slots (shared memory); see `DataParallelEmbeddings`. */
  claims: Int32Array;
  index: number;
  /** The model to embed with; default the configured one. */
  modelId?: string | undefined;
}

/** A share's vectors, flattened: `dimension` floats per text, in the share's order. */
export interface EmbeddedShare {
  vectors: Float32Array;
  dimension: number;
}

/** The answer to an offer: the vectors, or none when the share was skipped or failed. */
interface ShareAnswer {
  id: number;
  share?: EmbeddedShare | undefined;
}

/**
 * The offering side, in a worker: helpers that post offers on `port` (`count` of them, the pool's
 * other threads) to embed with `modelId` (default the configured model). Pending offers resolve
 * undefined when the port closes.
 */
export function helpersThroughPort(port: MessagePort, count: number, modelId?: string): EmbeddingHelpers {
  let nextId = 0;
  const pending = new Map<number, (share: EmbeddedShare | undefined) => void>();
  port.on("message", (answer: ShareAnswer) => {
    pending.get(answer.id)?.(answer.share);
    pending.delete(answer.id);
  });
  port.on("close", () => {
    for (const resolve of pending.values()) resolve(undefined);
    pending.clear();
  });
  return {
    count,
    async offer(texts, claims, index) {
      const id = nextId++;
      const share = await new Promise<EmbeddedShare | undefined>((resolve) => {
        pending.set(id, resolve);
        port.postMessage({ id, texts, claims, index, modelId } satisfies ShareOffer);
      });
      return share ? unflatten(share) : undefined;
    },
  };
}

/**
 * The serving thread's side: answers every offer arriving on `port` with `embedShare` (which runs
 * the share on the pool and resolves undefined when it was skipped or failed). Returns a function
 * that closes the port once the offering task has finished.
 */
export function relayShareOffers(port: MessagePort, embedShare: (offer: ShareOffer) => Promise<EmbeddedShare | undefined>): () => void {
  port.on("message", (offer: ShareOffer) => {
    void embedShare(offer)
      .catch(() => undefined)
      .then((share) => {
        const answer: ShareAnswer = { id: offer.id, share };
        port.postMessage(answer, share ? [share.vectors.buffer as ArrayBuffer] : []);
      });
  });
  return () => port.close();
}

/** Flattens vectors of one dimension into one transferable buffer. */
export function flattenShare(vectors: readonly (readonly number[])[]): EmbeddedShare {
  const dimension = vectors[0]?.length ?? 0;
  const flat = new Float32Array(vectors.length * dimension);
  vectors.forEach((vector, row) => {
    flat.set(vector, row * dimension);
  });
  return { vectors: flat, dimension };
}

function unflatten(share: EmbeddedShare): Float32Array[] {
  const rows = share.dimension === 0 ? 0 : share.vectors.length / share.dimension;
  return Array.from({ length: rows }, (_, row) => share.vectors.subarray(row * share.dimension, (row + 1) * share.dimension));
}
