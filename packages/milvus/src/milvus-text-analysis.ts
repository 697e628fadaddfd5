/**
 * The text analysis of the Milvus store's BM25: the collection records whether its `bm25_text`
 * was analysed by docqa's analyzer (`docqa:<analyzer>`, terms joined by spaces) or is raw text
 * for Milvus's English analyzer (`milvus:english`); writes and queries follow the record.
 */

import { DocqaError } from "@docqa/core";
import { type Analyzer, englishAnalyzerNamed } from "@docqa/core/retrieval";
import { type ChunkRecord, indexedText } from "@docqa/core/stores";
import { hasKeywordIndex } from "./collection-schemas.js";
import type { ChunkCollection } from "./milvus-collections.js";

/** The BM25 text of chunks and queries for the collections of one store. */
export class MilvusTextAnalysis {
  /** Analyzers of collections built with an earlier analyzer, by name. */
  private readonly earlier = new Map<string, Analyzer>();

  /**
   * @param analyzer - docqa's analyzer (`TEXT_ANALYZER`).
   * @param keywordIndex - whether this store serves BM25 (`keywordIndex` setting).
   */
  constructor(
    private readonly analyzer: Analyzer,
    private readonly keywordIndex: boolean,
  ) {}

  /**
   * The `bm25_text` of a chunk, as the collection was built to expect: undefined for a collection
   * without BM25; empty when this store does not serve BM25 (`keywordIndex: false`) but the
   * collection was created with it, so that Milvus analyses nothing.
   */
  bm25Text(collection: ChunkCollection): ((chunk: ChunkRecord) => string) | undefined {
    if (!hasKeywordIndex(collection.record)) return undefined;
    if (!this.keywordIndex) return () => "";
    const analyzer = this.docqaAnalyzer(collection);
    return (chunk) => (analyzer ? analyzer.analyze(indexedText(chunk)).join(" ") : indexedText(chunk));
  }

  /**
   * The BM25 query text for `query`.
   *
   * @throws {DocqaError} `config_invalid` when the collection holds no BM25, or this store does not serve it.
   */
  bm25Query(collection: ChunkCollection, query: string): string {
    if (!hasKeywordIndex(collection.record) || !this.keywordIndex) {
      throw new DocqaError(
        "config_invalid",
        `collection ${collection.name} is not searched by BM25 here (a search engine serves BM25 for this deployment): search the keyword index of KEYWORD_STORE`,
        { component: "milvus" },
      );
    }
    const analyzer = this.docqaAnalyzer(collection);
    return analyzer ? analyzer.analyze(query).join(" ") : query;
  }

  /**
   * The docqa analyzer the collection was indexed with: this store's, or the earlier English
   * analyzer its record names (`docqa:english-porter-v1`, before diacritics were folded), so an
   * existing collection keeps being written and searched as it was built; undefined for Milvus's
   * English analyzer.
   */
  private docqaAnalyzer(collection: ChunkCollection): Analyzer | undefined {
    const recorded = collection.record.textAnalysis;
    if (recorded === "milvus:english") return undefined;
    if (recorded === `docqa:${this.analyzer.name}`) return this.analyzer;
    const name = recorded.startsWith("docqa:") ? recorded.slice("docqa:".length) : undefined;
    const earlier = name === undefined ? undefined : (this.earlier.get(name) ?? englishAnalyzerNamed(name));
    if (name !== undefined && earlier !== undefined) {
      this.earlier.set(name, earlier);
      return earlier;
    }
    throw new DocqaError(
      "config_invalid",
      `collection ${collection.name} was indexed with text analysis ${recorded}; this store analyses with docqa:${this.analyzer.name}: re-ingest into another VECTORDB_COLLECTION`,
      { component: "milvus" },
    );
  }
}
