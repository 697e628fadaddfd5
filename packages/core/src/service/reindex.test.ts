import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { afterEach, describe, expect, it } from "vitest";
import type { Principal } from "../acl/principal.js";
import { createEmbeddedStore, type EmbeddedStore } from "../embedded-store/embedded-store.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { ReindexJob } from "../stores/reindexable-index.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { createRagService } from "./create-rag-service.js";
import type { RagService } from "./rag-service.js";

const principal: Principal = { userName: "ann@example.org", roles: [], groups: [] };
const orgId = "org-model-change";
const modelA = { id: "docqa-deterministic-hash-64", dimension: 64 };
const modelB = { id: "docqa-deterministic-hash-32", dimension: 32 };

const directories: string[] = [];
const services: RagService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

function dataDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "docqa-reindex-"));
  directories.push(directory);
  return directory;
}

/** A service on the embedded store at `dataDir` with `embeddings` (null: BM25 only). */
function serviceOn(
  dataDir: string,
  embeddings: EmbeddingsInterface | null,
  options: { logger?: Logger; others?: Record<string, EmbeddingsInterface> } = {},
): { service: RagService; store: EmbeddedStore } {
  const store = createEmbeddedStore({ dataDir });
  const service = createRagService({
    config: {
      stores: { dataDir },
      embeddings: { dimension: embeddings ? (embeddings as DeterministicEmbeddings).dimension : 64 },
      ingestion: { useRaptor: false },
    },
    stores: store,
    embeddings,
    embeddingModels: (modelId) => options.others?.[modelId],
    jobStore: createInMemoryJobStore(),
    logger: options.logger ?? silentLogger,
  });
  services.push(service);
  return { service, store };
}

const documents = (count: number, topic = "lighthouse") =>
  Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `doc-${index}`,
      { title: `Note ${index}`, content: `Note ${index} about the ${topic} keeper number ${index}.`, metadata: { acl: "|user:_all_|" } },
    ]),
  );

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return { logger: { ...silentLogger, warn: (message) => warnings.push(message) }, warnings };
}

describe("an organisation ingested before a model was available", () => {
  it("answers with BM25 and stores new chunks without vectors when a model appears, until reindexed", async () => {
    const dataDir = dataDirectory();
    const before = serviceOn(dataDir, null);
    await before.service.upsert({ orgId, principal, uploader: principal.userName, documents: documents(3) });
    await before.service.close();

    const { logger, warnings } = recordingLogger();
    const { service, store } = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 64 }), { logger });
    const found = await service.search({ orgId, principal, query: "lighthouse keeper" });
    expect(found.results.map((result) => result.chunk.docId).sort()).toEqual(["doc-0", "doc-1", "doc-2"]);
    expect(found.results.every((result) => result.vectorScore === null)).toBe(true);
    expect(warnings).toEqual([
      `organisation ${orgId}'s index holds no vectors, not of the configured ${modelA.id}: its queries use that model when it can be loaded, else BM25 alone; run docqa reindex --org ${orgId} to rebuild it`,
    ]);
    expect((await service.health()).vectorIndexes).toMatchObject({ otherModel: 1, reindexing: 0 });

    await service.upsert({
      orgId,
      principal,
      uploader: principal.userName,
      documents: { late: { title: "Late", content: "A lighthouse log." } },
    });
    expect(await store.countWithoutEmbedding(orgId)).toBe(4);
    expect(await service.reindexStatus({ orgId })).toMatchObject({ vectors: "no_vectors", indexModel: null, job: null });

    const job = await service.reindex({ orgId });
    expect(job).toMatchObject({ state: "succeeded", model: modelA, fromModel: null, total: 4, processed: 4 });
    expect(await store.countWithoutEmbedding(orgId)).toBe(0);
    expect(await service.reindexStatus({ orgId })).toMatchObject({
      vectors: "current",
      indexModel: modelA,
      job: { jobId: job.jobId, state: "succeeded" },
    });
    expect((await service.health()).vectorIndexes).toMatchObject({ otherModel: 0 });
    const hybrid = await service.search({ orgId, principal, query: "lighthouse keeper" });
    expect(hybrid.results.some((result) => result.vectorScore !== null)).toBe(true);
  });
});

describe("an organisation indexed with another model", () => {
  it("embeds its queries and new chunks with its index's model, then moves to the configured one by reindex while queries and writes go on", async () => {
    const dataDir = dataDirectory();
    const before = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 64 }));
    await before.service.upsert({ orgId, principal, uploader: principal.userName, documents: documents(150) });
    await before.service.close();

    const { service, store } = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 32 }), {
      others: { [modelA.id]: new DeterministicEmbeddings({ dimension: 64 }) },
    });
    // The first query learns that the index holds model A; later ones embed with model A.
    await service.search({ orgId, principal, query: "lighthouse keeper number 7" });
    const withA = await service.search({ orgId, principal, query: "lighthouse keeper number 7" });
    expect(withA.results.some((result) => result.vectorScore !== null)).toBe(true);
    await service.upsert({
      orgId,
      principal,
      uploader: principal.userName,
      documents: { extra: { title: "Extra", content: "The lighthouse lens." } },
    });
    expect(await store.countWithoutEmbedding(orgId)).toBe(0);
    expect(await store.vectorModel(orgId)).toEqual(modelA);

    let wrote = false;
    const writes: Promise<unknown>[] = [];
    const progress: ReindexJob[] = [];
    const queries: Promise<boolean>[] = [];
    const job = await service.reindex(
      { orgId },
      {
        onProgress: (update) => {
          progress.push(update);
          // A query at every step of the job, switch included.
          queries.push(
            service.search({ orgId, principal, query: "lighthouse keeper" }).then(
              (result) => result.results.length > 0,
              () => false,
            ),
          );
          if (!wrote) {
            wrote = true;
            // A write and a deletion started in the middle of the reindex land in the new index
            // too (the write may finish after the switch: embedding yields the event loop).
            writes.push(
              service.upsert({
                orgId,
                principal,
                uploader: principal.userName,
                documents: { during: { title: "During", content: "Written while reindexing." } },
              }),
              service.deleteDocuments({ orgId, principal }, ["doc-3"]),
            );
          }
        },
      },
    );
    const answered = await Promise.all(queries);
    await Promise.all(writes);
    expect(job).toMatchObject({ state: "succeeded", model: modelB, fromModel: modelA, total: 151 });
    expect(job.processed).toBeGreaterThanOrEqual(151);
    expect(progress.map((update) => update.phase)).toEqual(expect.arrayContaining(["copying", "switching", "retiring"]));
    expect(answered.length).toBeGreaterThan(3);
    expect(answered.filter((ok) => !ok)).toEqual([]);
    expect(await store.vectorModel(orgId)).toEqual(modelB);
    expect(await store.countWithoutEmbedding(orgId)).toBe(0);
    expect((await store.contentHashes(orgId, ["during", "doc-3"])).has("during")).toBe(true);
    expect((await store.contentHashes(orgId, ["doc-3"])).size).toBe(0);
    const during = await service.search({ orgId, principal, query: "written while reindexing" });
    expect(during.results[0]?.chunk.docId).toBe("during");
    expect(during.results[0]?.vectorScore).not.toBeNull();
  });

  it("refuses a second job for the same organisation, and resumes a stopped one where it stopped", async () => {
    const dataDir = dataDirectory();
    const before = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 64 }));
    await before.service.upsert({ orgId, principal, uploader: principal.userName, documents: documents(200) });
    await before.service.close();
    const { service } = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 32 }));

    const controller = new AbortController();
    const first = service.reindex({ orgId, signal: controller.signal }, { onProgress: (job) => job.processed >= 64 && controller.abort() });
    await expect(service.startReindex({ orgId })).rejects.toMatchObject({ code: "invalid_request" });
    const stopped = await first;
    expect(stopped).toMatchObject({
      state: "failed",
      failure: "stopped before the switch (the service was closed); run docqa reindex again to resume",
    });
    expect(stopped.processed).toBe(64);

    const resumed = await service.reindex({ orgId });
    expect(resumed).toMatchObject({ state: "succeeded", total: 200, processed: 136 });
  });

  it("lets another process on the same data directory see the switch at once", async () => {
    const dataDir = dataDirectory();
    const writer = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 64 }));
    await writer.service.upsert({ orgId, principal, uploader: principal.userName, documents: documents(20) });
    const reader = createEmbeddedStore({ dataDir });
    try {
      expect(await reader.vectorModel(orgId)).toEqual(modelA);
      const started = await writer.service.startReindex({ orgId, model: modelB.id }).catch((error: unknown) => error);
      expect(started).toMatchObject({ code: "model_unavailable" });
      const other = serviceOn(dataDir, new DeterministicEmbeddings({ dimension: 32 }));
      await writer.service.close();
      const job = await other.service.reindex({ orgId });
      expect(job.state).toBe("succeeded");
      expect(await reader.vectorModel(orgId)).toEqual(modelB);
      const vector = Float32Array.from(await new DeterministicEmbeddings({ dimension: 32 }).embedQuery("lighthouse keeper number 4"));
      const found = await reader.searchByVector(orgId, vector, modelB, { topK: 1, filter: { principal } });
      expect(found[0]?.chunk.docId).toBe("doc-4");
      expect(await reader.reindexJob(orgId)).toMatchObject({ jobId: job.jobId, state: "succeeded" });
    } finally {
      await reader.close();
    }
  });
});
