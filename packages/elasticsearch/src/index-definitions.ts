/**
 * Settings and mappings of the two per-organisation indexes, identical on Elasticsearch and
 * OpenSearch (every feature used is in both engines' default distributions).
 *
 * **Analyzer `docqa_english`** (the steps of `@docqa/core`'s `createEnglishAnalyzer`, built from
 * Lucene components, so BM25 terms match the embedded store's as closely as the engine allows):
 * tokenizer `standard` (Unicode word segmentation, UAX #29), then the token filters
 * 1. `cjk_width` (full-width Latin to ASCII, half-width Katakana to full width);
 * 2. `lowercase`;
 * 3. English possessive: `stemmer` with `language: possessive_english` (drops `'s`);
 * 4. remaining apostrophes dropped (`pattern_replace`, so `don't` → `dont`, as in core);
 * 5. `cjk_bigram` (overlapping bigrams of Han, Hiragana and Katakana runs; Hangul left whole);
 * 6. `stop` with core's `englishStopWords` (Lucene's 33-word English set);
 * 7. `length` ≤ 64 characters (drops hashes and base64 runs, as core does);
 * 8. `keyword_marker` on tokens with a character outside `a`–`z`, so that, as in core, only
 *    plain ASCII words are stemmed (`cafés` and `naïve` stay whole);
 * 9. `porter_stem` (Porter, 1980; Lucene's `PorterStemFilter`).
 *
 * Known differences from core's analyzer: no NFKC normalisation (it needs the ICU plugin;
 * `cjk_width` covers the common full-width forms), UAX #29 keeps `3.14` and `U.S.A` as single
 * tokens where core splits at punctuation. The integration test compares both analyzers on
 * sample text.
 *
 * **Similarity `docqa_bm25`**: Lucene's BM25 with `k1` and `b` from `BM25_K1` and `BM25_B`
 * (default 0.9 and 0.4, Anserini's BEIR setting, as the embedded store). Index settings are fixed
 * at creation: changing `BM25_K1` or `BM25_B` later affects new organisations only (or close the
 * index, update `index.similarity.docqa_bm25`, and reopen it).
 *
 * **Chunk mappings** (`dynamic: strict`, so a stray field fails the write instead of growing the
 * mapping):
 *
 * | Field | Type | Purpose |
 * |---|---|---|
 * | `chunk_id`, `doc_id`, `content_hash`, `source`, `owner_id` | keyword | the chunk record |
 * | `doc_version` | keyword | `<docId>\u001f<contentHash>`, so pruning keeps one version per document in one query |
 * | `chunk_index` | integer | the chunk record, tie-break of equal scores |
 * | `title` | text, analysed, BM25 | the chunk record, and the optional title boost |
 * | `text` | text, not indexed | the chunk record (its terms are indexed in `content`) |
 * | `content` | text, analysed, BM25, not in `_source` | `title` and `text` copied in: what a search scores, as the embedded store scores `indexedText` |
 * | `acl` | keyword, not indexed | the raw ACL string, for the final seven-rule check |
 * | `grants`, `denied` | keyword arrays | ACL pre-filter tokens (`chunkAccessTokens`) |
 * | `metadata` | object, `enabled: false` | the metadata, stored verbatim, never mapped |
 * | `meta` | nested `{ key, string, number, boolean }` | one entry per scalar metadata value, for filters |
 *
 * Metadata keys are values of `meta.key`, never field names, so any key (with dots, spaces,
 * quotes, `*`) is safe and the mapping never grows with new keys. Each value goes to the sub-field
 * of its JSON type, which gives filters the same-type semantics of `matchesCondition`: the
 * string `"7"` is not the number `7`. Arrays, objects and `null` are stored but not filterable
 * (the reference semantics never match them either). Strings and keys longer than
 * {@link maximumFilterableLength} characters are stored but not filterable (a keyword term is
 * limited to 32,766 bytes).
 */
import { englishStopWords } from "@docqa/core/retrieval";

/** Name of the analyzer defined in every chunk index. */
export const analyzerName = "docqa_english";
/** Name of the BM25 similarity defined in every chunk index. */
export const similarityName = "docqa_bm25";
/** Longest metadata key or string value, in characters, that filters can match (8,191 × 4 UTF-8 bytes < 32,766). */
export const maximumFilterableLength = 8191;

/** Settings of the indexes docqa creates. */
export interface IndexDefinitionSettings {
  /** Okapi BM25 term-frequency saturation (`BM25_K1`, default 0.9). */
  k1: number;
  /** Okapi BM25 length normalisation in [0, 1] (`BM25_B`, default 0.4). */
  b: number;
  /** Primary shards per index; default 1 (one organisation's chunks rarely need more). */
  shards: number;
  /** Replicas per index; undefined keeps the engine's default (1). */
  replicas?: number | undefined;
}

const keyword = { type: "keyword" } as const;

/** The `index.analysis` settings defining {@link analyzerName}. */
export function analysisSettings(): Record<string, unknown> {
  return {
    filter: {
      docqa_possessive: { type: "stemmer", language: "possessive_english" },
      docqa_apostrophes: { type: "pattern_replace", pattern: "['\u2019]", replacement: "" },
      docqa_cjk_bigram: { type: "cjk_bigram", ignored_scripts: ["hangul"] },
      docqa_stop: { type: "stop", stopwords: [...englishStopWords].sort() },
      docqa_length: { type: "length", min: 1, max: 64 },
      docqa_stem_ascii_only: { type: "keyword_marker", keywords_pattern: ".*[^a-z].*" },
    },
    analyzer: {
      [analyzerName]: {
        type: "custom",
        tokenizer: "standard",
        filter: [
          "cjk_width",
          "lowercase",
          // core's step 3a (diacritics of Latin letters folded); an index created before keeps its analysis.
          "asciifolding",
          "docqa_possessive",
          "docqa_apostrophes",
          "docqa_cjk_bigram",
          "docqa_stop",
          "docqa_length",
          "docqa_stem_ascii_only",
          "porter_stem",
        ],
      },
    },
  };
}

function indexSettings(settings: IndexDefinitionSettings, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number_of_shards: settings.shards,
    ...(settings.replicas === undefined ? {} : { number_of_replicas: settings.replicas }),
    ...extra,
  };
}

/**
 * The body of `PUT /<base>_<suffix>_v1`: settings (shards, analyzer, BM25 similarity), the chunk
 * mappings, and the alias `alias` (the name every request uses).
 */
export function chunkIndexDefinition(settings: IndexDefinitionSettings, alias: string): Record<string, unknown> {
  const analysed = { type: "text", analyzer: analyzerName, similarity: similarityName };
  return {
    settings: {
      index: indexSettings(settings, {
        analysis: analysisSettings(),
        similarity: { [similarityName]: { type: "BM25", k1: settings.k1, b: settings.b } },
      }),
    },
    mappings: {
      dynamic: "strict",
      properties: {
        chunk_id: keyword,
        doc_id: keyword,
        chunk_index: { type: "integer" },
        content_hash: keyword,
        doc_version: keyword,
        title: { ...analysed, copy_to: ["content"] },
        text: { type: "text", index: false, copy_to: ["content"] },
        content: analysed,
        source: keyword,
        owner_id: keyword,
        acl: { type: "keyword", index: false, doc_values: false },
        grants: keyword,
        denied: keyword,
        metadata: { type: "object", enabled: false },
        meta: {
          type: "nested",
          dynamic: "strict",
          properties: {
            key: keyword,
            string: { type: "keyword", ignore_above: maximumFilterableLength },
            number: { type: "double" },
            boolean: { type: "boolean" },
          },
        },
      },
    },
    aliases: { [alias]: {} },
  };
}

/**
 * The body of `PUT /<base>_<suffix>_registry_v1`: one document per committed document, and the
 * alias `alias`. Fields: `doc_id` (sorted on: listings page by it), `content_hash`,
 * `derived_from`, and what the document is: `title`, `acl` and `text_hash` (stored, not
 * indexed), `source`, `type`, `owner_id` (filters of listings), `grants`/`denied` (the ACL
 * pre-filter tokens, as on chunks), `chunk_count`, `updated_at` (epoch milliseconds).
 */
export function registryIndexDefinition(settings: IndexDefinitionSettings, alias: string): Record<string, unknown> {
  const stored = { type: "keyword", index: false, doc_values: false } as const;
  return {
    settings: { index: indexSettings(settings) },
    mappings: {
      dynamic: "strict",
      properties: {
        doc_id: keyword,
        content_hash: keyword,
        derived_from: keyword,
        title: stored,
        source: keyword,
        type: keyword,
        owner_id: keyword,
        acl: stored,
        grants: keyword,
        denied: keyword,
        text_hash: stored,
        chunk_count: { type: "integer" },
        updated_at: { type: "date", format: "epoch_millis" },
      },
    },
    aliases: { [alias]: {} },
  };
}
