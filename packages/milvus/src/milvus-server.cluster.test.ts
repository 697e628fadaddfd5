/**
 * A real Milvus server (`scripts/services/start-milvus-server.sh`: PyPI's `milvus` 2.3.5, the Milvus
 * standalone binary, not milvus-lite; `DOCQA_TEST_MILVUS_SERVER_URI`) as the vector index of the
 * Milvus + OpenSearch deployment, with OpenSearch (`DOCQA_TEST_OPENSEARCH_URL`) as keyword index
 * and registry: the whole document stores contract (writes, versions, pruning, filters, ACL
 * pre-filtering, reading chunks back, health), Milvus holding vectors only (`keywordIndex: false`,
 * as `VECTORDB_URI` with `FULLTEXT_URI` configures it). Milvus 2.3 has no BM25 function and no
 * hybridSearch, so those are tested on milvus-lite (`milvus.int.test.ts`) only. Run with
 * `npm run test:cluster`; without the server the file skips, except in CI.
 */
import { silentLogger } from "@docqa/core";
import { describeDocumentStoresContract } from "@docqa/core/contract";
import { stagedDocumentStores } from "@docqa/core/stores";
import { integrationServer, testName } from "@docqa/core/testing";
import { createSearchEngineIndex } from "@docqa/elasticsearch";
import { MilvusClient } from "@zilliz/milvus2-sdk-node";
import { afterAll, describe } from "vitest";
import { createMilvusStore } from "./milvus-store.js";

const milvusServer = await integrationServer("milvus-server", "Milvus server tests");
const openSearch = await integrationServer("opensearch", "Milvus server tests");
const base = testName("docqa_server");

describe.skipIf(!milvusServer.available || !openSearch.available)(
  `Milvus server ${milvusServer.url} (vectors) with OpenSearch (BM25, registry)`,
  () => {
    afterAll(async () => {
      const client = new MilvusClient({
        address: milvusServer.url ?? "",
        timeout: 60_000,
        logLevel: "error",
        telemetry: { enabled: false },
      });
      try {
        for (const collection of (await client.showCollections()).data) {
          if (collection.name.startsWith(base)) await client.dropCollection({ collection_name: collection.name });
        }
      } finally {
        await client.closeConnection();
      }
      await fetch(`${openSearch.url}/${base}*`, { method: "DELETE" }).catch(() => undefined);
    }, 120_000);

    describeDocumentStoresContract(
      "milvus server + opensearch",
      async () => {
        const vector = createMilvusStore({
          address: milvusServer.url,
          collection: base,
          timeoutMs: 60_000,
          keywordIndex: false,
          logger: silentLogger,
        });
        const keyword = createSearchEngineIndex({ node: openSearch.url, indexBase: base, logger: silentLogger });
        const parts = { vector, keyword, registry: keyword, logger: silentLogger };
        const stores = stagedDocumentStores(parts);
        return { stores, stagedParts: parts, close: () => stores.close() };
      },
      { timeoutMs: 180_000 },
    );
  },
);
