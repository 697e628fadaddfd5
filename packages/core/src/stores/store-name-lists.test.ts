import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { countMarkedLists } from "../text/marked-lists.js";
import { rewriteStoreNameLists, storeNameList } from "./store-name-lists.js";

const configurationPath = fileURLToPath(new URL("../../../../docs/configuration.md", import.meta.url));

describe("store name lists", () => {
  it("renders the registered backends' names and selecting variables, search engines first for the keyword index", () => {
    expect(storeNameList("vector")).toBe("`milvus`");
    expect(storeNameList("keyword", "or")).toBe("`elasticsearch`, `opensearch`, `search-engine` or `milvus`");
    expect(storeNameList("vector-variables")).toBe("`VECTORDB_URI` (`milvus`)");
    expect(storeNameList("keyword-variables")).toBe("`FULLTEXT_URI` (`search-engine`), `VECTORDB_URI` (`milvus`)");
    expect(() => rewriteStoreNameLists("<!-- stores:tables -->x<!-- /stores -->")).toThrow(/unknown store list style tables/);
  });

  // `vitest -u` writes a new backend's names into docs/configuration.md.
  it("docs/configuration.md names the registered backends in VECTOR_STORE and KEYWORD_STORE", async () => {
    const configuration = readFileSync(configurationPath, "utf8");
    expect(countMarkedLists(configuration, "stores")).toBe(4);
    await expect(rewriteStoreNameLists(configuration)).toMatchFileSnapshot(configurationPath);
  });
});
