import { describe, expect, it } from "vitest";
import { configSchema } from "../config/config-schema.js";
import { loadConfig, resolveConfig, settingsOf } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { storeBackendNamed, storeBackendPackages, storeBackendsHolding, storeNamesHolding } from "./store-backend-packages.js";

/** The error `action` throws, or undefined. */
function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the registry of store backends", () => {
  it("gives the names VECTOR_STORE and KEYWORD_STORE accept, keyword-only backends first", () => {
    expect(storeNamesHolding("vector")).toEqual(["milvus"]);
    expect(storeNamesHolding("keyword")).toEqual(["elasticsearch", "opensearch", "search-engine", "milvus"]);
    expect(storeBackendsHolding("keyword").map(([name]) => name)).toEqual(["search-engine", "milvus"]);
  });

  it("resolves a name or an alias to its backend", () => {
    expect([storeBackendNamed("milvus"), storeBackendNamed("opensearch"), storeBackendNamed("cassandra")]).toEqual([
      "milvus",
      "search-engine",
      undefined,
    ]);
  });

  it("selects each backend by a variable the configuration reads or keeps for it (so that auto can see it)", () => {
    const variables = new Set(settingsOf(configSchema).map((location) => location.env));
    const unseen = Object.values(storeBackendPackages).filter(
      (location) => !variables.has(location.variable) && !location.variable.startsWith(location.prefix),
    );
    expect(unseen).toEqual([]);
  });

  it("keeps KEYWORD_STORE's alias as chosen (the engine it names), and resolves auto to a backend's name", () => {
    const config = loadConfig({ KEYWORD_STORE: "opensearch", VECTOR_STORE: "none", FULLTEXT_URI: "http://search:9200" });
    expect([config.stores.vector, config.stores.keyword, storeBackendNamed(config.stores.keyword)]).toEqual([
      "none",
      "opensearch",
      "search-engine",
    ]);
    expect(resolveConfig({}, config).stores.keyword).toBe("opensearch");
    expect(loadConfig({ VECTORDB_URI: "http://milvus:19530", FULLTEXT_URI: "http://search:9200" }).stores).toMatchObject({
      vector: "milvus",
      keyword: "search-engine",
    });
  });

  it("refuses VECTOR_STORE naming a backend that holds no vectors, naming the variable", () => {
    const error = errorOf(() => loadConfig({ VECTOR_STORE: "search-engine", FULLTEXT_URI: "http://search:9200" }));
    expect(DocqaError.isInstance(error) && error.code).toBe("config_invalid");
    expect((error as DocqaError).message).toContain('VECTOR_STORE="search-engine"');
  });

  it("names the variables of every server keyword store when VECTOR_STORE=none has none", () => {
    const error = errorOf(() => loadConfig({ VECTOR_STORE: "none" }));
    expect((error as DocqaError).message).toContain("VECTOR_STORE=none needs a server keyword store (FULLTEXT_URI or VECTORDB_URI)");
  });
});
