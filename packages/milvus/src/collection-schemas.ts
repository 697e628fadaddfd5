/**
 * Schemas, indexes and recorded settings of the two collections docqa keeps per organisation:
 *
 * - the chunk collection `<VECTORDB_COLLECTION>_<organisation suffix>`, one row per chunk
 *   version, with a dense `embedding` (COSINE, HNSW), a BM25 function from `bm25_text` to the
 *   sparse `bm25_sparse` (left out when a search engine serves BM25: see
 *   {@link noKeywordIndex}), and the ACL fields `grants`/`denied`;
 * - the registry collection `<chunk collection>_registry`, one row per committed document.
 *
 * What a chunk collection was built with (embedding model, text analysis) is recorded in its
 * collection properties (keys `docqa.*`) and checked on every write and vector search.
 */
import type { EmbeddingModelInfo } from "@docqa/core/stores";
import { DataType, type FieldType, type FunctionObject, FunctionType, type KeyValuePair } from "@zilliz/milvus2-sdk-node";
import { maximumArrayCapacity, maximumVarCharBytes } from "./chunk-rows.js";

/** Version of the collection layout, recorded as `docqa.schema`. */
export const schemaVersion = "1";

/** What a chunk collection records about itself. */
export interface ChunkCollectionRecord {
  /** The embedding model of `embedding`, or `null` when created without embeddings. */
  embeddingModel: EmbeddingModelInfo | null;
  /**
   * How `bm25_text` is produced: `docqa:<analyzer name>` (analysed by docqa, for example
   * `docqa:english-porter-v2`) or `milvus:english` (raw text analysed by Milvus); `none` for a
   * collection without BM25 ({@link noKeywordIndex}).
   */
  textAnalysis: string;
  /** The Milvus tokenizer of `bm25_text`: `whitespace`, `standard` or `english` (analyzer type); `none` without BM25. */
  tokenizer: string;
}

/**
 * The `textAnalysis` and `tokenizer` recorded for a chunk collection created without BM25 (no
 * `bm25_text`, no `bm25_sparse`, no BM25 function or index): what docqa creates when a search
 * engine serves BM25 (`KEYWORD_STORE` elasticsearch or opensearch), so that Milvus neither
 * analyses text nor keeps term statistics that nothing searches.
 */
export const noKeywordIndex = "none";

/** Whether a chunk collection holds the BM25 fields and function. */
export function hasKeywordIndex(record: ChunkCollectionRecord): boolean {
  return record.textAnalysis !== noKeywordIndex;
}

/** HNSW build parameters of the dense index. */
export interface HnswBuildParameters {
  /** Graph degree M; default 16 (`HNSW_CONNECTIVITY`). */
  connectivity: number;
  /** Candidate list size while building (efConstruction); default 200. */
  construction: number;
}

/** BM25 parameters of the sparse index. */
export interface Bm25IndexParameters {
  /** Term-frequency saturation; default 0.9 (`BM25_K1`). */
  k1: number;
  /** Length normalisation; default 0.4 (`BM25_B`). */
  b: number;
}

/** One index to create. */
export interface IndexDefinition {
  field_name: string;
  index_type: string;
  metric_type?: string;
  params?: Record<string, number | string>;
}

/**
 * The analyzer parameters of `bm25_text` for a tokenizer: `whitespace` and `standard` (terms
 * already analysed by docqa) or `english` (Milvus's English analyzer: standard tokenizer,
 * lower-casing, English stemmer and stop words).
 */
export function analyzerParameters(tokenizer: string): Record<string, unknown> {
  return tokenizer === "english" ? { type: "english" } : { tokenizer };
}

/** A VarChar field of the largest length. */
const varChar = (name: string, extra: Partial<FieldType> = {}): FieldType => ({
  name,
  data_type: DataType.VarChar,
  max_length: maximumVarCharBytes,
  ...extra,
});

/** An Array<VarChar> field of the largest capacity (ACL tokens, document ids). */
const tokens = (name: string): FieldType => ({
  name,
  data_type: DataType.Array,
  element_type: DataType.VarChar,
  max_capacity: maximumArrayCapacity,
  max_length: maximumVarCharBytes,
});

/**
 * The fields of a chunk collection with `dimension`-dimensional embeddings; with `tokenizer`
 * {@link noKeywordIndex}, without the BM25 fields `bm25_text` and `bm25_sparse`.
 */
export function chunkCollectionFields(dimension: number, tokenizer: string): FieldType[] {
  const fields: FieldType[] = [
    varChar("id", { is_primary_key: true, autoID: false }),
    varChar("doc_id"),
    varChar("chunk_id"),
    varChar("content_hash"),
    { name: "chunk_index", data_type: DataType.Int64 },
    varChar("text"),
    varChar("title"),
    varChar("source"),
    varChar("owner_id"),
    varChar("acl"),
    tokens("grants"),
    tokens("denied"),
    { name: "metadata", data_type: DataType.JSON },
    { name: "has_embedding", data_type: DataType.Bool },
    { name: "embedding", data_type: DataType.FloatVector, dim: dimension },
  ];
  if (tokenizer === noKeywordIndex) return fields;
  return [
    ...fields,
    varChar("bm25_text", { enable_analyzer: true, analyzer_params: analyzerParameters(tokenizer) }),
    { name: "bm25_sparse", data_type: DataType.SparseFloatVector },
  ];
}

/** The BM25 function filling `bm25_sparse` from `bm25_text` (Milvus 2.5+ full-text search). */
export const bm25Function: FunctionObject = {
  name: "bm25_text_to_sparse",
  description: "BM25 term frequencies of bm25_text",
  type: FunctionType.BM25,
  input_field_names: ["bm25_text"],
  output_field_names: ["bm25_sparse"],
  params: {},
};

/**
 * The indexes of a chunk collection. `required` are the dense HNSW index (COSINE; Milvus searches
 * growing and small sealed segments by brute force, so small organisations get exact results)
 * and the sparse BM25 index (none when `bm25` is undefined: a collection without BM25);
 * `optional` are scalar INVERTED indexes that speed up filters, created when the server supports
 * them.
 */
export function chunkIndexes(
  hnsw: HnswBuildParameters,
  bm25: Bm25IndexParameters | undefined,
): { required: IndexDefinition[]; optional: IndexDefinition[] } {
  return {
    required: [
      {
        field_name: "embedding",
        index_type: "HNSW",
        metric_type: "COSINE",
        params: { M: hnsw.connectivity, efConstruction: hnsw.construction },
      },
      ...(bm25
        ? [
            {
              field_name: "bm25_sparse",
              index_type: "SPARSE_INVERTED_INDEX",
              metric_type: "BM25",
              params: { bm25_k1: bm25.k1, bm25_b: bm25.b },
            },
          ]
        : []),
    ],
    optional: [
      { field_name: "doc_id", index_type: "INVERTED" },
      { field_name: "grants", index_type: "INVERTED" },
      { field_name: "denied", index_type: "INVERTED" },
    ],
  };
}

/** Version of the registry collection's layout, recorded as its `docqa.registry` property. */
export const registryLayoutVersion = "2";

/**
 * The fields of a registry collection: the committed version, the derivation, and what the
 * document is (title, source, type, owner, ACL and its `grants`/`denied` tokens for listing by
 * principal, text hash, chunk count, commit time in milliseconds); a 2-dimensional placeholder
 * vector, because Milvus needs one.
 */
export function registryCollectionFields(): FieldType[] {
  return [
    varChar("doc_id", { is_primary_key: true, autoID: false }),
    varChar("content_hash"),
    tokens("derived_from"),
    varChar("title"),
    varChar("source"),
    varChar("type"),
    varChar("owner_id"),
    varChar("acl"),
    tokens("grants"),
    tokens("denied"),
    varChar("text_hash"),
    { name: "chunk_count", data_type: DataType.Int64 },
    { name: "updated_at", data_type: DataType.Int64 },
    { name: "placeholder", data_type: DataType.FloatVector, dim: 2 },
  ];
}

/** The registry fields a query reads back. */
export const registryOutputFields = [
  "doc_id",
  "content_hash",
  "derived_from",
  "title",
  "source",
  "type",
  "owner_id",
  "acl",
  "text_hash",
  "chunk_count",
  "updated_at",
];

/** The index of the registry's placeholder vector. */
export const registryIndex: IndexDefinition = { field_name: "placeholder", index_type: "FLAT", metric_type: "L2" };

/** The placeholder vector of every registry row. */
export const registryPlaceholderVector = [0, 0];

/** The collection properties recording `record`. */
export function recordProperties(record: ChunkCollectionRecord): Record<string, string> {
  return {
    "docqa.schema": schemaVersion,
    "docqa.embedding_model": record.embeddingModel ? JSON.stringify(record.embeddingModel) : "none",
    "docqa.text_analysis": record.textAnalysis,
    "docqa.bm25_tokenizer": record.tokenizer,
  };
}

/**
 * The record stored in a collection's properties, or `undefined` when the collection was not
 * created by docqa (no `docqa.schema` property) or by an unknown layout.
 */
export function readRecord(properties: readonly KeyValuePair[] | undefined): ChunkCollectionRecord | undefined {
  const values = new Map((properties ?? []).map((property) => [String(property.key), String(property.value)]));
  if (values.get("docqa.schema") !== schemaVersion) return undefined;
  const model = values.get("docqa.embedding_model");
  let embeddingModel: EmbeddingModelInfo | null = null;
  if (model && model !== "none") {
    const parsed = JSON.parse(model) as Partial<EmbeddingModelInfo>;
    if (typeof parsed.id !== "string" || typeof parsed.dimension !== "number") return undefined;
    embeddingModel = { id: parsed.id, dimension: parsed.dimension };
  }
  const textAnalysis = values.get("docqa.text_analysis");
  const tokenizer = values.get("docqa.bm25_tokenizer");
  if (!textAnalysis || !tokenizer) return undefined;
  return { embeddingModel, textAnalysis, tokenizer };
}
