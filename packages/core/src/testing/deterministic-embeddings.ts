/**
 * A deterministic embedder for tests: feature hashing of analysed terms (Weinberger et al.,
 * 2009, "Feature Hashing for Large Scale Multitask Learning") into a fixed dimension, L2
 * normalised. Texts sharing terms get similar vectors, so tests exercise a real vector signal
 * without a model. Not a substitute for a sentence-embedding model.
 */
import { Embeddings } from "@langchain/core/embeddings";
import { type Analyzer, createEnglishAnalyzer } from "../text/analyzer.js";

/** Settings of {@link DeterministicEmbeddings}. */
export interface DeterministicEmbeddingsSettings {
  /** Vector dimension; default 64. */
  dimension?: number;
  /** Analyzer; default the English analyzer. */
  analyzer?: Analyzer;
  /** Record the texts of every `embedDocuments` call in `documentBatches`; default false. */
  record?: boolean;
}

/** Deterministic hashed bag-of-words embeddings. */
export class DeterministicEmbeddings extends Embeddings {
  readonly model: string;
  readonly dimension: number;
  private readonly analyzer: Analyzer;
  /** Number of `embedDocuments` and `embedQuery` calls, for assertions. */
  calls = 0;
  /** The texts of every `embedDocuments` call, in order, when created with `record: true`; else empty. */
  readonly documentBatches: string[][] = [];
  private readonly record: boolean;

  constructor(settings: DeterministicEmbeddingsSettings = {}) {
    super({});
    this.dimension = settings.dimension ?? 64;
    this.model = `docqa-deterministic-hash-${this.dimension}`;
    this.analyzer = settings.analyzer ?? createEnglishAnalyzer();
    this.record = settings.record ?? false;
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls++;
    if (this.record) this.documentBatches.push([...texts]);
    return texts.map((text) => this.vector(text));
  }

  override async embedQuery(text: string): Promise<number[]> {
    this.calls++;
    return this.vector(text);
  }

  private vector(text: string): number[] {
    const vector = new Array<number>(this.dimension).fill(0);
    for (const term of this.analyzer.analyze(text)) {
      const hash = fnv1a(term);
      const index = hash % this.dimension;
      vector[index] = (vector[index] as number) + ((hash >>> 16) & 1 ? 1 : -1);
    }
    const norm = Math.hypot(...vector);
    return norm === 0 ? vector.map((_, index) => (index === 0 ? 1 : 0)) : vector.map((value) => value / norm);
  }
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
