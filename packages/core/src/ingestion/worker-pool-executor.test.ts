/**
 * Ingestion in worker threads, through a service built from its configuration (the embedded
 * store, BM25 only). Needs the built worker entry (`npm run build`), like the crash-safety test.
 * Closing the pool is tested with a worker entry whose tasks block their thread as a model's
 * inference does (`test-fixtures/blocking-ingestion-worker.mjs`), without a build.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { createEmbeddedStore } from "../embedded-store/embedded-store.js";
import type { AuditEvent, AuditLog } from "../logging/audit-log.js";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { docqaErrorOf } from "../testing/docqa-error-of.js";
import { craftZip, wordDocumentEntries } from "../testing/hostile-archives.js";
import { startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { createRecordingLogger } from "../testing/recording-logger.js";
import type { IngestionThroughput } from "./ingest-files.js";
import { createWorkerPoolExecutor, ingestionWorkerUrl } from "./worker-pool-executor.js";

const built = ingestionWorkerUrl() !== undefined;
const principal = { userName: "ann@example.org", roles: [], groups: [] };
const services: RagService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function workerService(overrides: Parameters<typeof resolveConfig>[0] = {}, logger = createRecordingLogger(), audit?: AuditLog) {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-workers-"));
  const service = createRagService({
    config: resolveConfig(overrides, {
      stores: { dataDir },
      embeddings: { provider: "none" },
      models: { provider: "extractive" },
      logging: { level: "debug" },
      ingestion: { useRaptor: false },
    }),
    logger,
    audit,
  });
  services.push(service);
  return { service, dataDir, logger };
}

describe.skipIf(!built && process.env.CI !== "true")("ingestion in worker threads (needs `npm run build`)", () => {
  it("upserts in a worker; the serving thread searches the result at once", async () => {
    const { service, dataDir, logger } = workerService();
    const documents = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [
        `doc-${index}`,
        { title: `Policy ${index}`, content: `Rule ${index}: badges open door ${index}.` },
      ]),
    );
    const result = await service.upsert({ orgId: "org", principal, uploader: principal.userName, documents: { ...documents } });
    expect(result).toEqual({ numChunks: 50, written: 50, unchanged: 0, accessChanged: 0, summaries: 0 });
    const found = await service.search({ orgId: "org", principal, query: "door 17" });
    expect(found.results[0]?.chunk.docId).toBe("doc-17");
    // The write was made by a worker thread, whose log lines reach the service's logger.
    expect(logger.lines.find((line) => line.message === "documents upserted")?.fields).toMatchObject({
      thread: "ingestion-worker",
      written: 50,
    });
    // Another reader of the data directory sees the same committed chunks.
    const store = createEmbeddedStore({ dataDir });
    expect(await store.count("org")).toBe(50);
    await store.close();
    // Unchanged documents are skipped by their stored hash, in the worker too.
    expect(await service.upsert({ orgId: "org", principal, uploader: principal.userName, documents })).toMatchObject({
      written: 0,
      unchanged: 50,
    });
  });

  it("applies the write rules in the worker: a refusal keeps its code and details, and audit lines reach the service's audit log", async () => {
    const events: AuditEvent[] = [];
    const { service } = workerService({}, createRecordingLogger(), { record: (event) => events.push(event) });
    await service.upsert({ orgId: "org", principal, documents: { handbook: { title: "Handbook", content: "Badges open doors." } } });
    const intruder = { userName: "bob@example.org", roles: [], groups: [] };
    const refused = await docqaErrorOf(
      service.upsert({ orgId: "org", principal: intruder, documents: { handbook: { title: "Handbook", content: "Mine now." } } }),
    );
    expect([refused.code, refused.details]).toEqual([
      "forbidden",
      [{ doc_id: "handbook", rule: 3, reason: "only the document's owner or an administrator may replace it" }],
    ]);
    expect(events.map((event) => [event.actor, event.docId, event.outcome, event.via])).toEqual([
      ["ann@example.org", "handbook", "created", "upsert"],
      ["bob@example.org", "handbook", "forbidden", "upsert"],
    ]);
    const found = await service.search({ orgId: "org", principal, query: "badges" });
    expect(found.results.map((result) => result.chunk.text)).toEqual(["Badges open doors."]);
  });

  it("carries errors back with their code and details: validation, document size, file rejections", async () => {
    const { service, dataDir } = workerService({ ingestion: { maxExtractedChars: 1000 } });
    const invalid = await docqaErrorOf(
      service.upsert({ orgId: "org", principal, uploader: principal.userName, documents: { "": { title: "t", content: " " } } }),
    );
    expect(invalid.code).toBe("invalid_request");
    expect(invalid.details).toEqual(['documents[""].content: content must not be empty', 'documents[""]: document id must not be empty']);
    const long = await docqaErrorOf(
      service.upsert({
        orgId: "org",
        principal,
        uploader: principal.userName,
        documents: { d: { title: "t", content: "x".repeat(1001) } },
      }),
    );
    expect([long.code, long.publicMessage]).toEqual([
      "payload_too_large",
      'document "d" has 1001 characters; the limit is 1000 (MAX_EXTRACTED_CHARS)',
    ]);
    const path = join(dataDir, "notes.md");
    writeFileSync(path, "# Notes\n\nThe printer is on the third floor.");
    const job = await service.ingestFiles({
      orgId: "org",
      principal,
      files: [
        { path },
        { name: "empty.txt", bytes: new Uint8Array() },
        { name: "deep.json", bytes: new TextEncoder().encode("[".repeat(100) + "]".repeat(100)) },
      ],
    });
    expect(job.state).toBe("partially_failed");
    expect(job.errors.map((error) => [error.file, error.code]).sort()).toEqual([
      ["deep.json", "json_too_deep"],
      ["empty.txt", "empty_file"],
    ]);
    expect((await service.search({ orgId: "org", principal, query: "printer floor" })).results[0]?.chunk.docId).toBe("notes.md");
    await service.deleteDocuments({ orgId: "org", principal }, ["notes.md"]);
    expect((await service.search({ orgId: "org", principal, query: "printer floor" })).total).toBe(0);
  });

  it("lists a file whose parse passes INGESTION_WORKER_HEAP_MB as file_too_large, and replaces the thread it ended", async () => {
    // Archive limits raised far above what the 64 MiB heap can parse: 2 MiB of empty paragraphs
    // need about 280 MiB (archive-limits.ts), so the thread ends with ERR_WORKER_OUT_OF_MEMORY.
    const { service, dataDir, logger } = workerService({
      ingestion: { workerHeapMegabytes: 64, maxArchiveBytes: 64 * 1024 * 1024, maxCompressionRatio: 100_000 },
    });
    const heavy = craftZip(wordDocumentEntries({ block: "<w:p/>".repeat(350_000) }));
    const path = join(dataDir, "notes.md");
    writeFileSync(path, "# Notes\n\nThe printer is on the third floor.");
    const failed = await service.ingestFiles({ orgId: "org", principal, files: [{ name: "heavy.docx", bytes: heavy }] });
    expect(failed.errors).toEqual([
      {
        file: "heavy.docx",
        code: "file_too_large",
        message:
          "heavy.docx needs more memory to parse than an ingestion thread has (INGESTION_WORKER_HEAP_MB=64); lower MAX_ARCHIVE_BYTES or raise INGESTION_WORKER_HEAP_MB",
      },
    ]);
    expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
    // The pool starts another thread for the next file.
    const next = await service.ingestFiles({ orgId: "org", principal, files: [{ path }] });
    expect([next.state, next.files.ingested]).toEqual(["succeeded", 1]);
    expect((await service.search({ orgId: "org", principal, query: "printer floor" })).results[0]?.chunk.docId).toBe("notes.md");
  });

  it("plans every file first, then reports each file's embedding progress from the worker while it is embedded", async () => {
    // The workers embed through an OpenAI-compatible server (deterministic vectors), one request per slice.
    await using wire = await startOpenAIWireServer({ embeddingDimension: 8 });
    const { service } = workerService({
      embeddings: { provider: "openai", modelName: "wire-embedding", dimension: 8, cacheMaxEntries: 0 },
      models: { provider: "extractive", hostedBaseUrl: wire.baseUrl },
      ingestion: { chunkSize: 200, chunkOverlap: 0 },
    });
    const paragraphs = (name: string, count: number) =>
      Array.from({ length: count }, (_, index) => `Paragraph ${index} of ${name}: visitors sign in at the desk ${index}.`).join("\n\n");
    const encode = (value: string) => new TextEncoder().encode(value);
    const updates: IngestionThroughput[] = [];
    const job = await service.ingestFiles(
      {
        orgId: "org",
        principal,
        files: [
          { name: "large.md", bytes: encode(paragraphs("large", 900)) },
          { name: "small.md", bytes: encode(paragraphs("small", 10)) },
        ],
      },
      { plan: true, onProgress: (_job, _file, throughput) => updates.push(throughput) },
    );
    expect(job.state).toBe("succeeded");
    const chunks = job.chunks;
    // Both files' chunks were known before the first was embedded.
    const firstEmbedded = updates.findIndex((update) => update.embeddedChunks > 0);
    expect(updates[firstEmbedded - 1]).toMatchObject({ plannedFiles: 2, plannedChunks: chunks, embeddedChunks: 0 });
    // The large file's slices were reported while it was embedded in the worker, not only at its end.
    const during = updates.filter((update) => update.embeddedChunks > 0 && update.embeddedChunks < chunks);
    expect(new Set(during.map((update) => update.embeddedChunks)).size).toBeGreaterThanOrEqual(2);
    expect(updates.at(-1)).toMatchObject({ embeddedChunks: chunks, plannedChunks: chunks });
  });

  it("refuses new ingestion with ingestion_busy and a Retry-After while INGESTION_QUEUE_SIZE requests are in progress", async () => {
    const { service, dataDir } = workerService({ ingestion: { queueSize: 1 } });
    const path = join(dataDir, "large.txt");
    writeFileSync(path, "Paragraph about parking permits and visitor badges.\n\n".repeat(20_000));
    const running = service.ingestFiles({ orgId: "org", principal, files: [{ path }] });
    const refused = await docqaErrorOf(
      service.upsert({ orgId: "org", principal, uploader: principal.userName, documents: { d: { title: "t", content: "c" } } }),
    );
    expect(refused.code).toBe("ingestion_busy");
    expect(refused.retryAfterSeconds).toBe(5);
    expect(() => service.checkIngestionCapacity()).toThrow(/INGESTION_QUEUE_SIZE is 1/);
    expect((await running).state).toBe("succeeded");
    // The place is free again.
    expect(
      (await service.upsert({ orgId: "org", principal, uploader: principal.userName, documents: { d: { title: "t", content: "c" } } }))
        .written,
    ).toBe(1);
  });
});

describe("closing the worker pool", () => {
  const blockingWorker = new URL("../../test-fixtures/blocking-ingestion-worker.mjs", import.meta.url);
  const untilExists = async (path: string) => {
    while (!existsSync(path)) await sleep(10);
  };

  it("waits for every started task, even after another worker's task has ended: no thread is terminated while it runs", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-pool-close-"));
    const [firstStarted, secondStarted, gate] = ["first", "second", "gate"].map((name) => join(directory, name)) as [
      string,
      string,
      string,
    ];
    const executor = createWorkerPoolExecutor({
      config: resolveConfig({ stores: { dataDir: directory }, embeddings: { provider: "none" } }),
      logger: createRecordingLogger(),
      refresh: async () => {},
      threads: 2,
      workerUrl: blockingWorker,
    });
    // One worker runs a long uninterruptible step; the other stops at the flag that closing sets.
    // Its outcome is kept either way, so that a termination shows as the test's failure.
    const long = executor.embedDocuments(["block", firstStarted, gate]).catch((error: unknown) => error);
    await untilExists(firstStarted);
    const short = executor.embedDocuments(["until-stop", secondStarted]);
    await untilExists(secondStarted);
    const closing = executor.close();
    expect(await short).toEqual([[2]]);
    // piscina 5.3.2's close() counts task completions, not idle workers: once the short task had
    // ended it terminated the other worker in the middle of its task (with onnxruntime-node, the
    // process aborts). Turn the event loop once so that any such termination has happened.
    await new Promise((resolve) => setImmediate(resolve));
    writeFileSync(gate, "");
    expect(await long).toEqual([[1]]);
    await closing;
    // A closed executor refuses new work instead of queueing it on a pool being destroyed.
    const refused = await docqaErrorOf(executor.embedDocuments(["until-stop", join(directory, "third")]));
    expect([refused.code, refused.publicMessage]).toEqual(["store_unavailable", "the service is stopping: retry the ingestion"]);
  });
});
