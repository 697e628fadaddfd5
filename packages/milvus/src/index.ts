/**
 * @docqa/milvus: the Milvus backend of docqa. One store is the vector index (dense embeddings,
 * COSINE), the keyword index (Milvus's BM25 function) and the document registry, with ACL
 * pre-filtering inside Milvus. Start with {@link milvusStoreFromConfig} or
 * {@link createMilvusStore}.
 */
export { type ChunkRow, chunkRowId, maximumArrayCapacity, maximumVarCharBytes } from "./chunk-rows.js";
export type { Bm25IndexParameters, ChunkCollectionRecord, HnswBuildParameters } from "./collection-schemas.js";
export {
  chunkFilterExpression,
  type FilterExpression,
  type FilterValueMode,
  milvusStringLiteral,
} from "./filter-expression.js";
export { createMilvusStore, MilvusStore, type MilvusStoreSettings } from "./milvus-store.js";
export { hnswConstruction, milvusStoreFromConfig, storeBackend } from "./milvus-store-from-config.js";
