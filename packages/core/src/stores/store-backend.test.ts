import { describe, expect, it } from "vitest";
import { settingsOf } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { loadStoreBackend, storeBackendPackages } from "./store-backend.js";

describe("store backends by name", () => {
  it("loads each registered backend from its package, under the name it is registered by, with the settings it reads", async () => {
    const loaded = await Promise.all(
      Object.keys(storeBackendPackages).map(async (name) => {
        const backend = await loadStoreBackend(name);
        return { name, backendName: backend.name, variables: settingsOf(backend.settings).map((location) => location.env) };
      }),
    );
    expect(loaded).toEqual([
      { name: "milvus", backendName: "milvus", variables: ["VECTORDB_URI", "VECTORDB_TOKEN"] },
      {
        name: "search-engine",
        backendName: "search-engine",
        variables: [
          "FULLTEXT_URI",
          "FULLTEXT_INDEX",
          "FULLTEXT_API_KEY",
          "FULLTEXT_USERNAME",
          "FULLTEXT_PASSWORD",
          "FULLTEXT_SHARDS",
          "FULLTEXT_REPLICAS",
        ],
      },
    ]);
  });

  it("refuses a name no backend is registered by", async () => {
    const error = await loadStoreBackend("cassandra").then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(DocqaError.isInstance(error) && error.code).toBe("config_invalid");
    expect((error as DocqaError).message).toMatch(/no store backend named cassandra \(known: milvus, search-engine\)/);
  });
});
