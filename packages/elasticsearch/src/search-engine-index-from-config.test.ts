import { loadConfig, resolveConfig, silentLogger } from "@docqa/core";
import { storeBackendSettings, storesFromConfig } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import { searchEngineOf, storeBackend } from "./search-engine-index-from-config.js";

const settingsOf = (environment: Record<string, string>) =>
  storeBackendSettings(
    "search-engine",
    storeBackend,
    loadConfig({ VECTOR_STORE: "none", FULLTEXT_URI: "http://search:9200", ...environment }),
  );

describe("the search-engine backend's own settings", () => {
  it("has the spec's set A defaults and reads the FULLTEXT_* variables", () => {
    expect(storeBackendSettings("search-engine", storeBackend, loadConfig({}))).toEqual({
      uri: "http://localhost:9200",
      index: "docs_bm25",
      shards: 1,
    });
    expect(
      settingsOf({ FULLTEXT_INDEX: "kb-text", FULLTEXT_SHARDS: "3", FULLTEXT_REPLICAS: "0", FULLTEXT_USERNAME: "docqa" }),
    ).toMatchObject({
      uri: "http://search:9200",
      index: "kb-text",
      shards: 3,
      replicas: 0,
      username: "docqa",
    });
  });

  it("refuses an invalid index name, naming the variable", () => {
    expect(() => settingsOf({ FULLTEXT_INDEX: "Not Valid" })).toThrow(/FULLTEXT_INDEX="Not Valid"/);
  });

  it("speaks to the engine KEYWORD_STORE names, also after the configuration is resolved again; auto otherwise", () => {
    const chosen = loadConfig({ VECTOR_STORE: "none", KEYWORD_STORE: "opensearch", FULLTEXT_URI: "http://search:9200" });
    expect(searchEngineOf(chosen)).toBe("opensearch");
    expect(searchEngineOf(resolveConfig({ retrieval: { bm25TopK: 20 } }, chosen))).toBe("opensearch");
    expect(searchEngineOf(loadConfig({ VECTOR_STORE: "none", FULLTEXT_URI: "http://search:9200" }))).toBe("auto");
  });

  it("is what storesFromConfig creates for the keyword index, speaking to the engine chosen, without connecting", async () => {
    const stores = await storesFromConfig(
      loadConfig({ VECTOR_STORE: "none", KEYWORD_STORE: "opensearch", FULLTEXT_URI: "http://127.0.0.1:9", FULLTEXT_INDEX: "kb-text" }),
      silentLogger,
    );
    expect([stores.vector, stores.keyword.name]).toEqual([undefined, "opensearch"]);
    await stores.close?.();
  });
});
