/**
 * Any LangChain document compressor that reranks (for example a hosted reranker such as
 * `CohereRerank` from `@langchain/cohere`) as a docqa {@link Reranker}.
 */

import { Document } from "@langchain/core/documents";
import type { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { Reranker } from "./reranker.js";

/**
 * Wraps a LangChain `BaseDocumentCompressor`. Each returned document's `metadata.relevanceScore`
 * (the convention of LangChain's rerankers) becomes the chunk's score; chunks the compressor drops
 * score `-Infinity`, so they fall below any threshold.
 *
 * @example
 * ```ts
 * import { CohereRerank } from "@langchain/cohere";
 * const reranker = createCompressorReranker(new CohereRerank({ model: "rerank-english-v3.0" }));
 * createRagService({ reranker, config: { ...loadConfig(), useReranker: true } });
 * ```
 */
export function createCompressorReranker(compressor: BaseDocumentCompressor, name = "langchain-compressor"): Reranker {
  return {
    name,
    async score(query, chunks: readonly ChunkRecord[], signal) {
      signal?.throwIfAborted();
      const documents = chunks.map((chunk, index) => new Document({ pageContent: chunk.text, metadata: { docqaIndex: index } }));
      const kept = await compressor.compressDocuments(documents, query);
      const scores = chunks.map(() => Number.NEGATIVE_INFINITY);
      for (const document of kept) {
        const index = document.metadata.docqaIndex;
        const score = document.metadata.relevanceScore;
        if (typeof index === "number" && typeof score === "number") scores[index] = score;
      }
      return scores;
    },
  };
}
