/**
 * A per-process cache of query embeddings: a repeated question (the same text, after query
 * normalisation) skips the model's forward pass. Bounded, least recently used entries go first.
 */
import { Embeddings, type EmbeddingsInterface } from "@langchain/core/embeddings";
import { LRUCache } from "lru-cache";

/** Query embeddings kept by default: 1,000 vectors of 768 floats are about 6 MB. */
export const defaultQueryCacheSize = 1000;

/**
 * Wraps an embeddings object so that `embedQuery` results are cached (bounded LRU, keyed by the
 * exact text); `embedDocuments` passes through. Concurrent calls for the same text share one
 * computation; a failed computation is not cached.
 *
 * @example
 * ```ts
 * const embeddings = new QueryCachedEmbeddings(new TransformersEmbeddings({ modelName }), 500);
 * ```
 */
export class QueryCachedEmbeddings extends Embeddings {
  /** The wrapped embeddings. */
  readonly inner: EmbeddingsInterface;
  private readonly cache: LRUCache<string, Promise<number[]>>;

  /**
   * @param inner - the embeddings to wrap.
   * @param maxEntries - queries kept; default {@link defaultQueryCacheSize}; at least 1.
   */
  constructor(inner: EmbeddingsInterface, maxEntries: number = defaultQueryCacheSize) {
    super({});
    this.inner = inner;
    this.cache = new LRUCache({ max: Math.max(1, maxEntries) });
  }

  override embedDocuments(texts: string[]): Promise<number[][]> {
    return this.inner.embedDocuments(texts);
  }

  override async embedQuery(text: string): Promise<number[]> {
    let vector = this.cache.get(text);
    if (!vector) {
      vector = this.inner.embedQuery(text);
      this.cache.set(text, vector);
      vector.catch(() => {
        if (this.cache.peek(text) === vector) this.cache.delete(text);
      });
    }
    // A copy, so that a caller changing its vector cannot change the cached one.
    return [...(await vector)];
  }
}
