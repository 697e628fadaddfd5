/**
 * The stores a configuration selects: the embedded store (default), or server engines whose
 * packages are loaded on demand, so that `@docqa/core` does not depend on their clients:
 *
 * | Configuration | Vector index | Keyword index and registry | Package |
 * |---|---|---|---|
 * | neither `VECTORDB_URI` nor `FULLTEXT_URI` | embedded | embedded | `@docqa/core` |
 * | `VECTORDB_URI` only | Milvus | Milvus (BM25 function) | `@docqa/milvus` |
 * | both | Milvus | Elasticsearch or OpenSearch | `@docqa/milvus`, `@docqa/elasticsearch` |
 * | `FULLTEXT_URI` and `VECTOR_STORE=none` | none | Elasticsearch or OpenSearch | `@docqa/elasticsearch` |
 */
import type { DocqaConfig } from "../config/config-schema.js";
import { embeddedStoreFromConfig } from "../embedded-store/embedded-store-from-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { type DocumentStores, stagedDocumentStores, transactionalDocumentStores } from "./document-stores.js";
import type { KeywordIndex, StagedIndex, StagedRegistry, VectorIndex } from "./vector-index.js";

/** A Milvus store: vector index, BM25 keyword index and registry (what `@docqa/milvus` creates). */
export type ServerVectorStore = VectorIndex & KeywordIndex & StagedIndex & StagedRegistry;
/** A search-engine index: BM25 keyword index and registry (what `@docqa/elasticsearch` creates). */
export type ServerKeywordStore = KeywordIndex & StagedIndex & StagedRegistry;

/** The export of `@docqa/milvus` used here. */
export interface MilvusPackage {
  milvusStoreFromConfig(config: DocqaConfig, logger: Logger): ServerVectorStore;
}

/** The export of `@docqa/elasticsearch` used here. */
export interface SearchEnginePackage {
  searchEngineIndexFromConfig(config: DocqaConfig, logger: Logger): ServerKeywordStore;
}

/** Whether `config` selects the embedded store (for both indexes). */
export function usesEmbeddedStore(config: DocqaConfig): boolean {
  return config.stores.vector === "embedded" && config.stores.keyword === "embedded";
}

/**
 * Creates the stores `config` selects. Server clients connect lazily, so this does not fail
 * when a server is down.
 *
 * @param options.inMemoryIndexes - for the embedded store: false opens it for writing only
 *   (ingestion worker threads, see `createEmbeddedStore`); default true.
 * @throws {DocqaError} `config_invalid` when a selected backend's package is not installed.
 */
export async function storesFromConfig(
  config: DocqaConfig,
  logger: Logger,
  options: { inMemoryIndexes?: boolean } = {},
): Promise<DocumentStores> {
  if (usesEmbeddedStore(config)) {
    return transactionalDocumentStores(embeddedStoreFromConfig(config, logger, options));
  }
  const milvus =
    config.stores.vector === "milvus" || config.stores.keyword === "milvus"
      ? (await importBackend<MilvusPackage>("@docqa/milvus", "VECTORDB_URI")).milvusStoreFromConfig(config, logger)
      : undefined;
  const keyword =
    config.stores.keyword === "search-engine"
      ? (await importBackend<SearchEnginePackage>("@docqa/elasticsearch", "FULLTEXT_URI")).searchEngineIndexFromConfig(config, logger)
      : milvus;
  if (!keyword) {
    throw new DocqaError("config_invalid", `no keyword store for KEYWORD_STORE=${config.stores.keyword}`, { component: "config" });
  }
  return stagedDocumentStores({
    vector: config.stores.vector === "milvus" ? milvus : undefined,
    keyword,
    registry: keyword,
    logger,
  });
}

/**
 * Imports a backend package by name.
 *
 * @throws {DocqaError} `config_invalid` naming the package to install and the variable that
 *   selected it.
 */
export async function importBackend<T>(name: string, variable: string): Promise<T> {
  try {
    return (await import(/* @vite-ignore */ name)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new DocqaError("config_invalid", `${variable} selects a backend in ${name}, which is not installed: npm install ${name}`, {
        component: "config",
        cause: error,
      });
    }
    throw error;
  }
}
