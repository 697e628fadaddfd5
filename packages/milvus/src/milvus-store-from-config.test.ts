import { loadConfig, resolveConfig, silentLogger } from "@docqa/core";
import { storeBackendSettings, storesFromConfig } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import { milvusStoreFromConfig, storeBackend } from "./milvus-store-from-config.js";

const settingsOf = (environment: Record<string, string>) => storeBackendSettings("milvus", storeBackend, loadConfig(environment));

describe("the milvus backend's own settings", () => {
  it("has the spec's set A default and reads VECTORDB_URI and VECTORDB_TOKEN", () => {
    expect(settingsOf({})).toEqual({ uri: "http://localhost:19530", token: undefined });
    expect(settingsOf({ VECTORDB_URI: "http://milvus:19530", VECTORDB_TOKEN: "root:Milvus" })).toEqual({
      uri: "http://milvus:19530",
      token: "root:Milvus",
    });
  });

  it("takes settings given in code over the variables", () => {
    const config = resolveConfig(
      { stores: { backends: { milvus: { uri: "http://code:19530" } } } },
      loadConfig({ VECTORDB_URI: "http://env:19530" }),
    );
    expect(storeBackendSettings("milvus", storeBackend, config).uri).toBe("http://code:19530");
  });

  it("names collections by core's VECTORDB_COLLECTION, and is what storesFromConfig creates when VECTORDB_URI selects it", async () => {
    const config = loadConfig({ VECTORDB_URI: "http://127.0.0.1:9", VECTORDB_COLLECTION: "kb" });
    const store = milvusStoreFromConfig(config, silentLogger);
    expect(store.chunkCollectionName("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe("kb_0f8fad5b_d9cb_469f_a165_70867728950e");
    await store.close();
    const stores = await storesFromConfig(config, silentLogger);
    expect(stores.vector?.name).toBe("milvus");
    await stores.close?.();
  });
});
