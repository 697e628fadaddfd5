/**
 * @docqa/core/retrieval: the building blocks of retrieval for pipeline stage authors (query
 * normalisation, the English analyzer, score normalisation, fusion, top-k, sentence splitting, the
 * query embedding cache).
 */

export { defaultQueryCacheSize, QueryCachedEmbeddings } from "../embeddings/query-cached-embeddings.js";
export { type Analyzer, createEnglishAnalyzer, type EnglishAnalyzerOptions, englishAnalyzerNamed } from "../text/analyzer.js";
export { englishStopWords } from "../text/english-stop-words.js";
export { splitBlocks, splitSentences, stripMarkup } from "../text/split-sentences.js";
export { type FusedChunk, fuseReciprocalRank, fuseWeighted, type WeightedLists } from "./fuse-results.js";
export { normalizeQuery } from "./normalize-query.js";
export { normalizeScores, standardNormalCdf } from "./normalize-scores.js";
export { type RetrievalSettings, type RetrievedChunk, retrievalSettingsFromConfig } from "./retrieval-settings.js";
export { type IdScore, TopK } from "./top-k.js";
