/**
 * The retrieval configurations `docqa eval` compares on a BEIR data set: the service's own
 * configuration first ({@link serviceRetrievalConfiguration}), then the alternatives. Every
 * hybrid configuration states its candidate depth (chunks each retriever contributes to fusion),
 * since min-max and z-score normalisation depend on it.
 */
import type { DocqaConfig } from "../config/config-schema.js";
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
  const retrieval = config.retrieval;
  const vectorDepth = Math.max(retrieval.vectorTopK, retrieval.fusionCandidates);
  const keywordDepth = Math.max(retrieval.bm25TopK, retrieval.fusionCandidates);
  const candidates = `${vectorDepth} + ${keywordDepth} candidates`;
  return {
    name: serviceConfigurationName,
    description: `the service's configuration: weighted sum ${retrieval.weightVector}/${retrieval.weightBm25}, ${retrieval.scoreNormalization}, ${candidates}${retrieval.useReranker ? ", then the reranker" : ""}`,
    retrieval: {
      weightVector: retrieval.weightVector,
      weightBm25: retrieval.weightBm25,
      normalization: retrieval.scoreNormalization,
      fusion: "weighted",
      vectorTopK: retrieval.vectorTopK,
      bm25TopK: retrieval.bm25TopK,
      fusionCandidates: retrieval.fusionCandidates,
    },
    rerank: retrieval.useReranker,
    needsVectors: retrieval.weightVector > 0,
    raptor: false,
  };
}

/** Candidates per retriever of the alternative hybrid configurations. */
const candidates = 100;
/** Candidates per retriever of the deep configuration. */
const deepCandidates = 1000;

type Retrieval = RetrievalConfiguration["retrieval"];

/** Fusion of both retrievers at weights 0.5/0.5 over `depth` candidates each, whatever the service's `FUSION_CANDIDATES`. */
function hybrid(depth: number, method: { normalization: "min-max" | "z-score" } | { fusion: "rrf" }): Retrieval {
  const fusion = "fusion" in method ? method : { normalization: method.normalization, fusion: "weighted" as const };
  return { weightVector: 0.5, weightBm25: 0.5, ...fusion, vectorTopK: depth, bm25TopK: depth, fusionCandidates: 0 };
}

/** A configuration row; `needsVectors` follows the vector weight. */
function row(name: string, description: string, retrieval: Retrieval, options: { rerank?: boolean; raptor?: boolean } = {}) {
  return {
    name,
    description,
    retrieval,
    rerank: options.rerank ?? false,
    needsVectors: (retrieval.weightVector ?? 0) > 0,
    raptor: options.raptor ?? false,
  };
}

const perRetriever = (depth: number) => `${depth.toLocaleString("en")} candidates per retriever`;

/** Every alternative configuration `docqa eval` knows, by name; each sets its own candidate depth, whatever the service's. */
export const retrievalConfigurations: readonly RetrievalConfiguration[] = [
  row("bm25", "BM25 only", { weightVector: 0, weightBm25: 1 }),
  row("vector", "vector only", { weightVector: 1, weightBm25: 0 }),
  row(
    "hybrid-minmax",
    `weighted sum 0.5/0.5, min-max normalisation, ${perRetriever(candidates)}`,
    hybrid(candidates, { normalization: "min-max" }),
  ),
  row(
    "hybrid-zscore",
    `weighted sum 0.5/0.5, z-score normalisation, ${perRetriever(candidates)}`,
    hybrid(candidates, { normalization: "z-score" }),
  ),
  row(
    "hybrid-minmax-deep",
    `weighted sum 0.5/0.5, min-max normalisation, ${perRetriever(deepCandidates)}`,
    hybrid(deepCandidates, { normalization: "min-max" }),
  ),
  row("rrf", `reciprocal rank fusion (k = 60), weights 0.5/0.5, ${perRetriever(candidates)}`, hybrid(candidates, { fusion: "rrf" })),
  row(
    "hybrid-rerank",
    `weighted sum 0.5/0.5, min-max, ${perRetriever(candidates)}, then the reranker (needs USE_RERANKER=true and its model)`,
    hybrid(candidates, { normalization: "min-max" }),
    { rerank: true },
  ),
  row("bm25-raptor", "BM25 only, with RAPTOR summary nodes", { weightVector: 0, weightBm25: 1 }, { raptor: true }),
  row(
    "hybrid-raptor",
    `weighted sum 0.5/0.5, min-max, ${perRetriever(candidates)}, with RAPTOR summary nodes`,
    hybrid(candidates, { normalization: "min-max" }),
    { raptor: true },
  ),
];
