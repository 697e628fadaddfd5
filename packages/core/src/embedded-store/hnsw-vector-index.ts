/**
 * Approximate nearest-neighbour search with HNSW (Malkov & Yashunin, 2018, "Efficient and robust
 * approximate nearest neighbor search using Hierarchical Navigable Small World graphs"), through
 * the `usearch` package (prebuilt native binaries shipped in the npm package). Used by the
 * embedded store beside its exact index for large organisations; see `VECTOR_INDEX`.
 */
import { createRequire } from "node:module";
import type { IdScore } from "../retrieval/top-k.js";
import { defaultHnswExpansionSearch, hnswExpansionSearchFor } from "../stores/vector-index.js";

/** HNSW parameters. */
export interface HnswSettings {
  /** Graph degree M (`HNSW_CONNECTIVITY`); default 16. */
  connectivity: number;
  /** Candidate list size while building, efConstruction; default 128. */
  expansionAdd: number;
  /**
   * Candidate list size while searching, ef (`HNSW_EXPANSION_SEARCH`); default (undefined) grows
   * with the graph: `hnswExpansionSearchFor(size)` (128 up to 100,000 vectors).
   */
  expansionSearch?: number | undefined;
}

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  remove(keys: bigint): number;
  search(vector: Float32Array, k: number, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  size(): number;
  save(path: string): void;
  load(path: string): void;
}

type UsearchModule = { Index: new (configuration: Record<string, unknown>) => UsearchIndex };

let loaded: UsearchModule | null | undefined;

function usearch(): UsearchModule | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)("usearch") as UsearchModule;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? null;
}

/** Whether the HNSW backend (`usearch`) can be loaded on this machine. */
export function isHnswAvailable(): boolean {
  return usearch() !== null;
}

/**
 * An HNSW graph over unit vectors, scored by inner product. Keys are non-negative integers (the
 * embedded store uses the chunks' SQLite row ids, which stay the same across restarts).
 */
export class HnswVectorIndex {
  private readonly index: UsearchIndex;
  /** `HNSW_EXPANSION_SEARCH` when set; else ef follows the graph's size. */
  private readonly expansionSearch: number | undefined;

  /** @throws {Error} when `usearch` cannot be loaded; check {@link isHnswAvailable} first. */
  constructor(
    readonly dimension: number,
    settings: HnswSettings,
  ) {
    const module = usearch();
    if (!module) throw new Error("usearch is not available");
    this.expansionSearch = settings.expansionSearch;
    this.index = new module.Index({
      dimensions: dimension,
      metric: "ip",
      quantization: "f32",
      connectivity: settings.connectivity,
      expansion_add: settings.expansionAdd,
      expansion_search: settings.expansionSearch ?? defaultHnswExpansionSearch,
    });
  }

  /** Number of vectors in the graph. */
  get size(): number {
    return Number(this.index.size());
  }

  /**
   * Adds unit vectors (`vectors` holds `keys.length` rows of `dimension` floats).
   *
   * @throws {TypeError} when a key is already in the graph (remove it first).
   */
  add(keys: readonly number[], vectors: Float32Array): void {
    if (keys.length === 0) return;
    this.index.add(
      BigUint64Array.from(keys, (key) => BigInt(key)),
      vectors,
      1,
    );
  }

  /**
   * Removes a key; a key not in the graph is ignored. Returns the vectors removed (0 or 1).
   * Removed keys stay removed through {@link save} and {@link load}; their vectors stay in the
   * graph's memory and file until a later addition takes their place.
   */
  remove(key: number): number {
    return Number(this.index.remove(BigInt(key)));
  }

  /**
   * Writes the graph and its vectors to `path` (usearch's own format), in one blocking call of
   * about the file's size in memory copies (a 100,000-vector graph of 384 dimensions is about
   * 170 MB). Not atomic and not synced: see `hnsw-snapshot.ts`, which is.
   *
   * @throws {TypeError} when the file cannot be written.
   */
  save(path: string): void {
    this.index.save(path);
  }

  /**
   * Replaces the graph by the one saved in `path`, read into memory in one blocking call. The
   * file's dimension and metric are not checked against this graph's: callers check them first.
   *
   * @throws {TypeError} when the file cannot be read or is truncated.
   */
  load(path: string): void {
    this.index.load(path);
  }

  /** The search list size ef of the next search: `HNSW_EXPANSION_SEARCH`, else {@link hnswExpansionSearchFor} of the graph's size. */
  get searchExpansion(): number {
    return this.expansionSearch ?? hnswExpansionSearchFor(this.size);
  }

  /**
   * The approximate `k` nearest keys with their inner products, best first. Explores
   * max(k, {@link searchExpansion}) candidates (usearch's ef is max(its expansion, the results
   * asked), so asking for ef results searches at ef whatever the graph was created with).
   */
  search(query: Float32Array, k: number): IdScore[] {
    const size = Math.max(1, this.size);
    const { keys, distances } = this.index.search(query, Math.min(Math.max(k, this.searchExpansion), size), 1);
    const results: IdScore[] = [];
    const count = Math.min(keys.length, k);
    for (let index = 0; index < count; index++) {
      // usearch's inner-product distance is 1 - dot.
      results.push({ id: Number(keys[index]), score: 1 - (distances[index] as number) });
    }
    return results;
  }
}
