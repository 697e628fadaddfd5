/**
 * The retrieval configurations `docqa eval` compares on a BEIR data set: the service's own
 * configuration first ({@link serviceRetrievalConfiguration}), then the alternatives. Every
 * hybrid configuration states its candidate depth (chunks each retriever contributes to fusion),
 * since min-max and z-score normalisation depend on it.
 */
import type { DocqaConfig } from "../config/docqa-config.js";
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

/** The name of {@link serviceRetrievalConfiguration}'s row. */
export const serviceConfigurationName = "service";

/**
 * What the service does with `config`: its fusion, normalisation, weights and candidate depths
 * (`VECTOR_RETRIEVER_TOP_K`, `BM25_RETRIEVER_TOP_K`, `FUSION_CANDIDATES`), and its reranker setting, on the index
 * without RAPTOR summary nodes (`docqa eval --raptor` adds the RAPTOR rows). The document
 * ranking it yields is only as deep as the fused candidates (at most 60 chunks with the default
 * 30 + 30), so its recall@100 is a recall at that depth.
 */
export function serviceRetrievalConfiguration(config: DocqaConfig): RetrievalConfiguration {
  const vectorDepth = Math.max(config.vectorTopK, config.fusionCandidates);
  const keywordDepth = Math.max(config.bm25TopK, config.fusionCandidates);
  const candidates = `${vectorDepth} + ${keywordDepth} candidates`;
  return {
    name: serviceConfigurationName,
    description: `the service's configuration: weighted sum ${config.weightVector}/${config.weightBm25}, ${config.scoreNormalization}, ${candidates}${config.useReranker ? ", then the reranker" : ""}`,
    retrieval: {
      weightVector: config.weightVector,
      weightBm25: config.weightBm25,
      normalization: config.scoreNormalization,
      fusion: "weighted",
      vectorTopK: config.vectorTopK,
      bm25TopK: config.bm25TopK,
      fusionCandidates: config.fusionCandidates,
    },
    rerank: config.useReranker,
    needsVectors: config.weightVector > 0,
    raptor: false,
  };
}

/** Candidates per retriever of the alternative hybrid configurations. */
const candidates = 100;
/** Candidates per retriever of the deep configuration. */
const deepCandidates = 1000;

/** Every alternative configuration `docqa eval` knows, by name; each sets its own candidate depth, whatever the service's. */
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
    description: `weighted sum 0.5/0.5, min-max normalisation, ${candidates} candidates per retriever`,
    retrieval: {
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "min-max",
      fusion: "weighted",
      vectorTopK: candidates,
      bm25TopK: candidates,
      fusionCandidates: 0,
    },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-zscore",
    description: `weighted sum 0.5/0.5, z-score normalisation, ${candidates} candidates per retriever`,
    retrieval: {
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "z-score",
      fusion: "weighted",
      vectorTopK: candidates,
      bm25TopK: candidates,
      fusionCandidates: 0,
    },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-minmax-deep",
    description: `weighted sum 0.5/0.5, min-max normalisation, ${deepCandidates.toLocaleString("en")} candidates per retriever`,
    retrieval: {
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "min-max",
      fusion: "weighted",
      vectorTopK: deepCandidates,
      bm25TopK: deepCandidates,
      fusionCandidates: 0,
    },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "rrf",
    description: `reciprocal rank fusion (k = 60), weights 0.5/0.5, ${candidates} candidates per retriever`,
    retrieval: { weightVector: 0.5, weightBm25: 0.5, fusion: "rrf", vectorTopK: candidates, bm25TopK: candidates, fusionCandidates: 0 },
    rerank: false,
    needsVectors: true,
    raptor: false,
  },
  {
    name: "hybrid-rerank",
    description: `weighted sum 0.5/0.5, min-max, ${candidates} candidates per retriever, then the reranker (needs USE_RERANKER=true and its model)`,
    retrieval: {
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "min-max",
      fusion: "weighted",
      vectorTopK: candidates,
      bm25TopK: candidates,
      fusionCandidates: 0,
    },
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
    description: `weighted sum 0.5/0.5, min-max, ${candidates} candidates per retriever, with RAPTOR summary nodes`,
    retrieval: {
      weightVector: 0.5,
      weightBm25: 0.5,
      normalization: "min-max",
      fusion: "weighted",
      vectorTopK: candidates,
      bm25TopK: candidates,
      fusionCandidates: 0,
    },
    rerank: false,
    needsVectors: true,
    raptor: true,
  },
];
