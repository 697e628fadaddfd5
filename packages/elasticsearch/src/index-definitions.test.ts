import { englishStopWords } from "@docqa/core/retrieval";
import { describe, expect, it } from "vitest";
import { analyzerName, chunkIndexDefinition, registryIndexDefinition, similarityName } from "./index-definitions.js";

describe("chunkIndexDefinition", () => {
  const definition = chunkIndexDefinition({ k1: 0.9, b: 0.4, shards: 1 }, "docs_bm25_org") as {
    settings: {
      index: Record<string, unknown> & {
        analysis: { analyzer: Record<string, { filter: string[]; tokenizer: string }>; filter: Record<string, Record<string, unknown>> };
      };
    };
    mappings: { dynamic: string; properties: Record<string, Record<string, unknown>> };
    aliases: Record<string, unknown>;
  };

  it("uses BM25 with the configured k1 and b, and the documented English analyzer", () => {
    expect(definition.settings.index.similarity).toEqual({ [similarityName]: { type: "BM25", k1: 0.9, b: 0.4 } });
    expect(definition.settings.index.number_of_shards).toBe(1);
    expect(definition.settings.index).not.toHaveProperty("number_of_replicas");
    const analyzer = definition.settings.index.analysis.analyzer[analyzerName];
    expect(analyzer?.tokenizer).toBe("standard");
    expect(analyzer?.filter).toEqual([
      "cjk_width",
      "lowercase",
      "asciifolding",
      "docqa_possessive",
      "docqa_apostrophes",
      "docqa_cjk_bigram",
      "docqa_stop",
      "docqa_length",
      "docqa_stem_ascii_only",
      "porter_stem",
    ]);
    expect(new Set(definition.settings.index.analysis.filter.docqa_stop?.stopwords as string[])).toEqual(new Set(englishStopWords));
    const builtIn = ["cjk_width", "lowercase", "asciifolding", "porter_stem"];
    for (const filter of analyzer?.filter ?? []) {
      expect(builtIn.includes(filter) || filter in definition.settings.index.analysis.filter, filter).toBe(true);
    }
    expect(definition.settings.index.analysis.filter.docqa_stem_ascii_only).toEqual({
      type: "keyword_marker",
      keywords_pattern: ".*[^a-z].*",
    });
  });

  it("maps every field explicitly, strictly, with ACL tokens as keywords and metadata as nested typed entries", () => {
    expect(definition.mappings.dynamic).toBe("strict");
    const properties = definition.mappings.properties;
    expect(properties.grants).toEqual({ type: "keyword" });
    expect(properties.denied).toEqual({ type: "keyword" });
    expect(properties.content).toEqual({ type: "text", analyzer: analyzerName, similarity: similarityName });
    expect(properties.title?.copy_to).toEqual(["content"]);
    expect(properties.text?.copy_to).toEqual(["content"]);
    expect(properties.metadata).toEqual({ type: "object", enabled: false });
    expect(properties.meta?.type).toBe("nested");
    expect(Object.keys(properties).sort()).toEqual(
      [
        "acl",
        "chunk_id",
        "chunk_index",
        "content",
        "content_hash",
        "denied",
        "doc_id",
        "doc_version",
        "grants",
        "meta",
        "metadata",
        "owner_id",
        "source",
        "text",
        "title",
      ].sort(),
    );
    expect(definition.aliases).toEqual({ docs_bm25_org: {} });
  });
});

describe("registryIndexDefinition", () => {
  it("maps document id, version, sources, filters and ACL tokens as keywords, display fields stored only", () => {
    const keyword = { type: "keyword" };
    const stored = { type: "keyword", index: false, doc_values: false };
    expect(registryIndexDefinition({ k1: 1.2, b: 0.75, shards: 2, replicas: 0 }, "r")).toEqual({
      settings: { index: { number_of_shards: 2, number_of_replicas: 0 } },
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
      aliases: { r: {} },
    });
  });
});
