/**
 * The retrieval configurations `docqa eval` compares on a BEIR data set.
 */
import type { SearchRequest } from "../service/rag-service.js";

/** A named retrieval configuration. */
export interface RetrievalConfiguration {
  name: string;
  description: string;
  retrieval: NonNullable<SearchRequest["retrieval"]>;
  rerank: boolean;
  /** Needs an embedding model. */
  needsVectors: boolean;
  /** Needs the corpus ingested with RAPTOR summary nodes. */
  raptor: boolean;
}

/** Every configuration `docqa eval` knows, by name. */
export const retrievalConfigurations: readonly RetrievalConfiguration[] = [
  {
    name: "bm25",
    description: "BM25 only",
    retrieval: { weightVector: 0, weightBm25: 1 },
    rerank: false,
    needsVectors: false,
    raptor: false,
  },
  {
    name: "vector",
    description: "vector only",
    retrieval: { weightVector: 1, weightBm25: 0 },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-minmax",
    description: "weighted sum 0.5/0.5, min-max normalisation",
    retrieval: { weightVector: 0.5, weightBm25: 0.5, normalization: "min-max", fusion: "weighted" },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-zscore",
    description: "weighted sum 0.5/0.5, z-score normalisation",
    retrieval: { weightVector: 0.5, weightBm25: 0.5, normalization: "z-score", fusion: "weighted" },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-minmax-deep",
    description: "weighted sum 0.5/0.5, min-max normalisation over 1,000 candidates per retriever",
    retrieval: { weightVector: 0.5, weightBm25: 0.5, normalization: "min-max", fusion: "weighted", vectorTopK: 1000, bm25TopK: 1000 },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "rrf",
    description: "reciprocal rank fusion (k = 60), weights 0.5/0.5",
    retrieval: { weightVector: 0.5, weightBm25: 0.5, fusion: "rrf" },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-rerank",
    description: "weighted sum 0.5/0.5, min-max, then the reranker",
    retrieval: { weightVector: 0.5, weightBm25: 0.5 },
    rerank: true,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "bm25-raptor",
    description: "BM25 only, with RAPTOR summary nodes",
    retrieval: { weightVector: 0, weightBm25: 1 },
    rerank: false,
    needsVectors: false,
    raptor: true,
  },
  {
    name: "hybrid-raptor",
    description: "weighted sum 0.5/0.5, min-max, with RAPTOR summary nodes",
    retrieval: { weightVector: 0.5, weightBm25: 0.5 },
    rerank: false,
    needsVectors: true,
    raptor: true,
  },
];
