/**
 * The write rules on the production backends: the randomized property of
 * `@docqa/core/contract` (random principals replace, re-ACL, re-own and delete random documents;
 * only the allowed attempts change anything) over Milvus (vectors) and OpenSearch (BM25 and the
 * document registry), and deletion through both endpoint sets verified on both engines. Uses a
 * collection and index base of its own and drops them afterwards.
 *
 * Needs the servers of `scripts/services/start-all.sh`; skipped with a message outside CI when
 * they are absent, failing in CI.
 */
import { randomUUID } from "node:crypto";
import { createRagService, stagedDocumentStores } from "@docqa/core";
import { describeWriteRulesProperty } from "@docqa/core/contract";
import { DeterministicEmbeddings, isContinuousIntegration, isTcpReachable } from "@docqa/core/testing";
import { createSearchEngineIndex } from "@docqa/elasticsearch";
import { createMilvusStore } from "@docqa/milvus";
import { expect } from "vitest";

const milvusUri = process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530";
const openSearchUrl = process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const reachable = await Promise.all([milvusUri, openSearchUrl].map((url) => isTcpReachable(url)));
const available = reachable.every(Boolean);
if (!available && isContinuousIntegration()) {
  throw new Error(`write rules test: servers missing in CI (milvus ${reachable[0]}, opensearch ${reachable[1]})`);
}
if (!available) console.warn("skipping the write rules test on Milvus + OpenSearch: start scripts/services/start-all.sh");

/** Deletes the OpenSearch indexes whose names start with `<base>_`. */
export async function deleteIndexes(url: string, base: string): Promise<void> {
  const listing = await fetch(`${url}/_cat/indices/${base}_*?format=json`);
  const indexes = listing.ok ? ((await listing.json()) as { index: string }[]) : [];
  for (const { index } of indexes) await fetch(`${url}/${encodeURIComponent(index)}`, { method: "DELETE" });
}

if (available) {
  const base = `docqa_writes_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const orgId = `write-rules-${randomUUID()}`;
  describeWriteRulesProperty(
    "Milvus + OpenSearch",
    async () => {
      const embeddings = new DeterministicEmbeddings({ dimension: 32 });
      const milvus = createMilvusStore({ address: milvusUri, collection: base });
      const search = createSearchEngineIndex({ node: openSearchUrl, indexBase: base, engine: "opensearch" });
      const stores = stagedDocumentStores({ vector: milvus, keyword: search, registry: search });
      const service = createRagService({
        config: {
          embeddings: { dimension: 32 },
          ingestion: { useRaptor: false, chunkSize: 200, chunkOverlap: 20 },
          models: { provider: "extractive" },
          logging: { level: "silent" },
        },
        stores,
        embeddings,
        jobStore: (await import("@docqa/core")).createInMemoryJobStore(),
      });
      return {
        service,
        embeddingCalls: () => embeddings.calls,
        async storedChunks(organisation) {
          const [vectors, keywords] = await Promise.all([milvus.count(organisation), search.count(organisation)]);
          expect(vectors, "Milvus and OpenSearch hold different numbers of chunks").toBe(keywords);
          return keywords;
        },
        async close() {
          const cleanup = createMilvusStore({ address: milvusUri, collection: base });
          await cleanup.dropOrganisation(orgId);
          await cleanup.close();
          await service.close();
          await deleteIndexes(openSearchUrl, base);
        },
      };
    },
    { attempts: 150, readCheckEvery: 25, orgId, timeoutMs: 900_000 },
  );
}
