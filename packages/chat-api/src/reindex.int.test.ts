/**
 * Model changes without downtime on the real backends, in two deployments: Milvus alone (vectors
 * and BM25 in one collection) and Milvus with OpenSearch (vectors in Milvus; BM25 and the registry
 * in OpenSearch, untouched by a model change). An organisation is ingested without an embedding
 * model; a service with a model keeps answering it (BM25 alone) and writing to it; `reindex`
 * rebuilds its vectors in a new Milvus collection while a query runs every 100 ms and documents
 * are written and deleted, and switches the `_live` alias: no query fails, nothing written is
 * lost, and the old collection is dropped. A second reindex moves it to another model, which the
 * service (still configured with the first) then embeds its queries with.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, type RagService, type ReindexJob } from "@docqa/core";
import { DeterministicEmbeddings, isContinuousIntegration, isTcpReachable, testName } from "@docqa/core/testing";
import { createSearchEngineIndex, organisationIndexNames } from "@docqa/elasticsearch";
import { createMilvusStore, type MilvusStore } from "@docqa/milvus";
import { MilvusClient } from "@zilliz/milvus2-sdk-node";
import { afterAll, describe, it } from "vitest";

const milvusUri = process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530";
const openSearchUrl = process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const principal = { userName: "ops@example.org", roles: [], groups: [] };
const modelA = { id: "docqa-deterministic-hash-64", dimension: 64 };
const modelB = { id: "docqa-deterministic-hash-32", dimension: 32 };

const available = (await Promise.all([milvusUri, openSearchUrl].map((url) => isTcpReachable(url)))).every(Boolean);
if (!available && isContinuousIntegration()) throw new Error("reindex test: Milvus or OpenSearch not reachable in CI");
if (!available) console.warn("skipping reindex test: start scripts/services/start-all.sh");

const documents = (from: number, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, offset) => [
      `doc-${from + offset}`,
      {
        title: `Note ${from + offset}`,
        content: `Maintenance note ${from + offset}: the lighthouse lamp number ${from + offset} is checked every week.`,
        metadata: { acl: "|user:_all_|" },
      },
    ]),
  );

describe.skipIf(!available)("reindex on Milvus", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  // The two deployments use collections, indexes and organisations of their own, and each spends
  // most of its time waiting (on the servers, and on the settle period after each switch): they
  // run at the same time.
  for (const deployment of ["milvus", "milvus+opensearch"] as const) {
    it.concurrent(`moves an organisation from no vectors to ${modelA.id} and then ${modelB.id} with no failed query (${deployment})`, async ({
      expect,
    }) => {
      const base = testName("docqa_reindex");
      const orgId = randomUUID();
      const dataDir = mkdtempSync(join(tmpdir(), "docqa-reindex-servers-"));
      const environment = {
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        VECTORDB_URI: milvusUri,
        VECTORDB_COLLECTION: base,
        ...(deployment === "milvus+opensearch" ? { FULLTEXT_URI: openSearchUrl, FULLTEXT_INDEX: base } : {}),
        SWEEP_INTERVAL_SECONDS: "0",
      };
      const services: RagService[] = [];
      const service = (embeddings: DeterministicEmbeddings | null, others: Record<string, DeterministicEmbeddings> = {}) => {
        const created = createRagService({
          config: loadConfig({ ...environment, EMBED_DIMENSION: String(embeddings?.dimension ?? 64) }),
          embeddings,
          embeddingModels: (modelId) => others[modelId],
        });
        services.push(created);
        return created;
      };
      const milvus: MilvusStore = createMilvusStore({ address: milvusUri, collection: base });
      cleanups.push(async () => {
        for (const created of services) await created.close();
        await milvus.dropOrganisation(orgId);
        await milvus.close();
        if (deployment === "milvus+opensearch") {
          const names = organisationIndexNames(base, orgId);
          for (const index of [names.chunksIndex, names.registryIndex]) await fetch(`${openSearchUrl}/${index}`, { method: "DELETE" });
        }
        await rm(dataDir, { recursive: true, force: true });
      });

      // Ingested before any model was configured: the collection holds no vectors.
      const before = service(null);
      await before.upsert({ orgId, principal, uploader: principal.userName, documents: documents(0, 120) });
      expect(await milvus.vectorModel(orgId)).toBeNull();

      // A model appears: queries and writes keep working (BM25 alone), with the health count.
      const withA = service(new DeterministicEmbeddings({ dimension: 64 }), {
        [modelB.id]: new DeterministicEmbeddings({ dimension: 32 }),
      });
      const bm25 = await withA.predict({ orgId, principal, query: "Which lighthouse lamp is note 17 about?" });
      expect(Object.values(bm25.sources).map((source) => source.metadata.doc_id)).toContain("doc-17");
      await withA.upsert({ orgId, principal, uploader: principal.userName, documents: documents(120, 5) });
      expect((await withA.health()).vectorIndexes).toMatchObject({ otherModel: 1 });
      expect(await withA.reindexStatus({ orgId })).toMatchObject({ vectors: "no_vectors" });

      const runReindex = async (target: RagService, model?: string) => {
        let failed = 0;
        let answered = 0;
        const querying = setInterval(() => {
          target.search({ orgId, principal, query: "lighthouse lamp checked" }).then(
            (result) => {
              if (result.results.length > 0) answered++;
              else failed++;
            },
            () => failed++,
          );
        }, 100);
        const writes: Promise<unknown>[] = [];
        const written = `doc-${300 + services.length}`;
        let deleted = "";
        let job: ReindexJob;
        try {
          job = await target.reindex(
            { orgId, model },
            {
              onProgress: (update) => {
                if (writes.length > 0 || update.processed === 0) return;
                deleted = `doc-${update.processed % 100}`;
                writes.push(
                  target.upsert({
                    orgId,
                    principal,
                    uploader: principal.userName,
                    documents: {
                      [written]: {
                        title: "During",
                        content: "Written while the lighthouse index was rebuilt.",
                        metadata: { acl: "|user:_all_|" },
                      },
                    },
                  }),
                );
                writes.push(target.deleteDocuments({ orgId, principal }, [deleted]));
              },
            },
          );
        } finally {
          clearInterval(querying);
        }
        await Promise.all(writes);
        return { job, failed, answered, written, deleted };
      };

      /** Every version in the live collection is committed, and `written` is there and `deleted` not. */
      const expectConsistent = async (written: string, deleted: string) => {
        const stored = await milvus.storedVersions(orgId);
        const registry = deployment === "milvus" ? milvus : createSearchEngineIndex({ node: openSearchUrl, indexBase: base });
        const committed = await registry.contentHashes(
          orgId,
          stored.map((version) => version.docId),
        );
        expect(stored.filter((version) => committed.get(version.docId) !== version.contentHash)).toEqual([]);
        expect(stored.map((version) => version.docId)).toContain(written);
        expect(stored.map((version) => version.docId)).not.toContain(deleted);
        expect(await milvus.count(orgId)).toBe(stored.reduce((sum, version) => sum + version.chunks, 0));
        if (registry !== milvus) await registry.close();
      };

      const first = await runReindex(withA);
      expect(first.job).toMatchObject({ state: "succeeded", fromModel: null, model: modelA });
      expect(first.failed).toBe(0);
      expect(first.answered).toBeGreaterThan(0);
      expect(await milvus.vectorModel(orgId)).toEqual(modelA);
      expect(await milvus.reindexJob(orgId)).toMatchObject({ jobId: first.job.jobId, state: "succeeded" });
      const client = new MilvusClient({ address: milvusUri, logLevel: "error" });
      try {
        const logical = milvus.chunkCollectionName(orgId);
        const names = (await client.showCollections()).data.map((collection) => collection.name).filter((name) => name.startsWith(logical));
        expect(names.sort()).toEqual(deployment === "milvus" ? [`${logical}_gen2`, `${logical}_registry`] : [`${logical}_gen2`]);
      } finally {
        await client.closeConnection();
      }
      await expectConsistent(first.written, first.deleted);
      const hybrid = await withA.search({ orgId, principal, query: "lighthouse lamp number 42" });
      expect(hybrid.results[0]?.chunk.docId).toBe("doc-42");
      expect(hybrid.results[0]?.vectorScore).not.toBeNull();
      expect((await withA.health()).vectorIndexes).toMatchObject({ otherModel: 0 });

      // Another model, while the service stays configured with the first: its queries follow the index.
      const second = await runReindex(withA, modelB.id);
      expect(second.job).toMatchObject({ state: "succeeded", fromModel: modelA, model: modelB });
      expect(second.failed).toBe(0);
      expect(await milvus.vectorModel(orgId)).toEqual(modelB);
      await expectConsistent(second.written, second.deleted);
      const withB = await withA.search({ orgId, principal, query: "lighthouse lamp number 42" });
      expect(withB.results[0]?.chunk.docId).toBe("doc-42");
      expect(withB.results[0]?.vectorScore).not.toBeNull();
      expect(await withA.reindexStatus({ orgId })).toMatchObject({
        vectors: "other_model",
        indexModel: modelB,
        job: { state: "succeeded" },
      });
    }, 300_000);
  }
});
