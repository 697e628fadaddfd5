/**
 * A per-process cache of passage vectors for the answer's dense signal (`rankEvidence`): the
 * sentences of the context are embedded as passages with every question, and the questions of one
 * organisation keep retrieving the same passages, so most of those sentences were embedded
 * before. Bounded by entries and bytes (an LRU of `lru-cache`); only the texts not cached are sent
 * to the model, in one `embedDocuments` call, so a cached answer's vectors are the ones the model
 * gave for the same text.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { LRUCache } from "lru-cache";

/** Passage vectors kept by default (`DENSE_CACHE_ENTRIES`). */
export const defaultPassageCacheEntries = 20_000;
/** Largest `DENSE_CACHE_ENTRIES`: `lru-cache` allocates its index for `max` entries up front. */
export const maximumPassageCacheEntries = 10_000_000;
/** Megabytes the cache holds at most by default (`DENSE_CACHE_MAX_MB`). */
export const defaultPassageCacheMegabytes = 64;
/**
 * Bytes an entry costs besides its vector and key, as counted against the byte bound: the
 * typed array's and the LRU's bookkeeping (an estimate, about 200 bytes on V8).
 */
export const passageCacheEntryOverhead = 200;

/** Bounds of a {@link PassageVectorCache}. */
export interface PassageVectorCacheSettings {
  /** Vectors kept at most (`DENSE_CACHE_ENTRIES`); below 1 nothing is kept and every text is embedded. */
  maxEntries: number;
  /** Bytes kept at most: vectors, keys (2 bytes a character) and {@link passageCacheEntryOverhead} per entry. */
  maxBytes: number;
}

/** What a lookup is keyed by besides the text. */
export interface PassageVectorScope {
  /**
   * Identity of the vectors: the model and every setting that changes them (weights precision,
   * pooling, normalisation, passage prefix; `EmbeddingState.identity`). Two models never share entries.
   */
  model: string;
  /** The organisation asking; entries are never shared across organisations. */
  organisation: string;
}

/** Counters since the cache was created. */
export interface PassageVectorCacheStats {
  /** Texts found in the cache. */
  hits: number;
  /** Texts another call was already embedding (shared, not embedded again). */
  shared: number;
  /** Texts sent to the model. */
  misses: number;
  /** Vectors held now. */
  entries: number;
  /** Bytes held now, as counted against `maxBytes`. */
  bytes: number;
}

/** A vector as stored: float32 when every component is a float32 (transformers.js output), else float64. */
type StoredVector = Float32Array | Float64Array;

/**
 * Passage vectors keyed by (model identity, organisation, exact text).
 *
 * Keyed by organisation too: a vector is a function of the public model and the text, so it holds
 * nothing secret, but a cache shared across organisations would answer one organisation faster
 * when another has already asked about the same sentence, a timing signal of what another
 * organisation's documents hold. The cache is internal to the service (`Runtime.passageVectors`);
 * no API reads or lists it.
 *
 * Vectors are returned exactly as the model gave them (copies; float32 components are stored as
 * float32, any other as float64), so answers are the same with the cache and without it when the
 * model's vector of a text does not depend on the texts embedded beside it. (The int8 models'
 * do, slightly: their activations are quantised per batch; docs/answering.md.)
 * Concurrent calls share the texts one of them is already embedding; a failed model call caches
 * nothing and fails every call waiting for it.
 *
 * @example
 * ```ts
 * const cache = new PassageVectorCache({ maxEntries: 20_000, maxBytes: 64 * 2 ** 20 });
 * const vectors = await cache.embedDocuments(embeddings, sentences, { model: "Xenova/bge-small-en-v1.5@q8", organisation: "acme" });
 * ```
 */
export class PassageVectorCache {
  private readonly cache: LRUCache<string, StoredVector> | undefined;
  private readonly pending = new Map<string, Promise<StoredVector>>();
  /** A short number per model identity, so that keys do not repeat the identity's characters. */
  private readonly models = new Map<string, number>();
  private counts = { hits: 0, shared: 0, misses: 0 };

  constructor(settings: PassageVectorCacheSettings) {
    this.cache =
      settings.maxEntries >= 1 && settings.maxBytes >= 1
        ? new LRUCache<string, StoredVector>({
            max: Math.floor(settings.maxEntries),
            maxSize: Math.floor(settings.maxBytes),
            sizeCalculation: (vector, key) => vector.byteLength + key.length * 2 + passageCacheEntryOverhead,
          })
        : undefined;
  }

  /**
   * The passage vectors of `texts` (`embeddings.embedDocuments`), in order: cached ones from the
   * cache, the others from one `embedDocuments` call with each distinct text once.
   *
   * @throws whatever `embeddings.embedDocuments` throws (nothing is cached then), and an `Error`
   *   when it returns another number of vectors than texts.
   */
  async embedDocuments(embeddings: EmbeddingsInterface, texts: readonly string[], scope: PassageVectorScope): Promise<number[][]> {
    const vectors = new Array<StoredVector | undefined>(texts.length);
    const waits: Promise<void>[] = [];
    const missTexts: string[] = [];
    const missKeys: string[] = [];
    const positions = new Map<string, number>();
    const wanted: { index: number; position: number }[] = [];
    let model = this.models.get(scope.model);
    if (model === undefined) this.models.set(scope.model, (model = this.models.size));
    texts.forEach((text, index) => {
      // Lengths make the key unambiguous whatever characters the organisation id holds.
      const key = `${model}:${scope.organisation.length}:${scope.organisation}${text}`;
      const cached = this.cache?.get(key);
      if (cached) {
        this.counts.hits++;
        vectors[index] = cached;
        return;
      }
      const pending = this.pending.get(key);
      if (pending) {
        this.counts.shared++;
        waits.push(pending.then((vector) => void (vectors[index] = vector)));
        return;
      }
      let position = positions.get(key);
      if (position === undefined) {
        position = missTexts.length;
        positions.set(key, position);
        missTexts.push(text);
        missKeys.push(key);
      }
      wanted.push({ index, position });
    });
    this.counts.misses += missTexts.length;
    if (missTexts.length > 0) waits.push(this.embedMisses(embeddings, missTexts, missKeys, wanted, vectors));
    await Promise.all(waits);
    return vectors.map((vector) => Array.from(vector as StoredVector));
  }

  /** Counters and size (for benchmarks and tests). */
  stats(): PassageVectorCacheStats {
    return { ...this.counts, entries: this.cache?.size ?? 0, bytes: this.cache?.calculatedSize ?? 0 };
  }

  /** Drops every vector (counters are kept). */
  clear(): void {
    this.cache?.clear();
  }

  private async embedMisses(
    embeddings: EmbeddingsInterface,
    texts: string[],
    keys: readonly string[],
    wanted: readonly { index: number; position: number }[],
    vectors: (StoredVector | undefined)[],
  ): Promise<void> {
    const batch = embeddings.embedDocuments(texts).then((rows) => {
      if (rows.length !== texts.length) throw new Error(`the embedding model returned ${rows.length} vectors for ${texts.length} texts`);
      return rows.map(storedVector);
    });
    const promises = keys.map((key, position) => {
      const promise = batch.then((rows) => rows[position] as StoredVector);
      // Rejections reach this call through `batch` and the waiting calls through their own `then`.
      promise.catch(() => {});
      this.pending.set(key, promise);
      return promise;
    });
    try {
      const rows = await batch;
      keys.forEach((key, position) => {
        this.cache?.set(key, rows[position] as StoredVector);
      });
      for (const { index, position } of wanted) vectors[index] = rows[position];
    } finally {
      keys.forEach((key, position) => {
        if (this.pending.get(key) === promises[position]) this.pending.delete(key);
      });
    }
  }
}

/** `vector` as a typed array that holds every component exactly. */
function storedVector(vector: readonly number[]): StoredVector {
  for (const value of vector) if (Math.fround(value) !== value && !Number.isNaN(value)) return Float64Array.from(vector);
  return Float32Array.from(vector);
}
