/**
 * How known sentence-embedding model families expect to be used: pooling and the instruction
 * prefixes for queries and passages, from each model's card.
 */

/** Pooling of token vectors into one sentence vector. */
export type Pooling = "mean" | "cls";

/** Usage settings of an embedding model. */
export interface EmbeddingModelPreset {
  pooling: Pooling;
  /** Prepended to queries before embedding. */
  queryPrefix: string;
  /** Prepended to passages (chunks) before embedding. */
  documentPrefix: string;
}

const presets: readonly { pattern: RegExp; preset: EmbeddingModelPreset }[] = [
  // BAAI bge v1.5 model card: CLS pooling; the instruction is for short queries to passages.
  {
    pattern: /bge-(small|base|large)-en/i,
    preset: { pooling: "cls", queryPrefix: "Represent this sentence for searching relevant passages: ", documentPrefix: "" },
  },
  // intfloat e5 model card: mean pooling; "query: " and "passage: " prefixes are required.
  { pattern: /(^|\/)(multilingual-)?e5-/i, preset: { pooling: "mean", queryPrefix: "query: ", documentPrefix: "passage: " } },
  // sentence-transformers models (all-MiniLM, all-mpnet, gte): mean pooling, no prefixes.
  { pattern: /.*/, preset: { pooling: "mean", queryPrefix: "", documentPrefix: "" } },
];

/** The preset for `modelName`; unknown models get mean pooling and no prefixes. */
export function embeddingModelPreset(modelName: string): EmbeddingModelPreset {
  return (presets.find(({ pattern }) => pattern.test(modelName)) ?? (presets.at(-1) as (typeof presets)[number])).preset;
}
