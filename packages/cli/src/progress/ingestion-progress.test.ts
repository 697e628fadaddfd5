/**
 * The ETA of `docqa ingest` counts chunks, the embedding work, and is close to the truth early: a
 * deterministic slow embedder advances a virtual clock by a fixed time per text embedded (no real
 * time is measured), the service ingests files of very different sizes as the command does
 * (`plan`, `onProgress`), and the ETA shown once a tenth of the chunks have their vectors is
 * compared with the virtual time the rest took.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryJobStore, createRagService, type IngestionJob, type RagService, resolveConfig } from "@docqa/core";
import type { IngestionThroughput } from "@docqa/core/ingestion";
import { DeterministicEmbeddings } from "@docqa/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ingestionProgress, ingestionProgressLayout } from "./ingestion-progress.js";
import { type ProgressSnapshot, progressSnapshot } from "./progress-reporter.js";

/** Virtual milliseconds the fake model spends per text. */
const millisecondsPerText = 40;

/** Deterministic vectors; each call advances `clock.now` by {@link millisecondsPerText} per text. */
class VirtualSlowEmbeddings extends DeterministicEmbeddings {
  constructor(private readonly clock: { now: number }) {
    super({ dimension: 32 });
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    this.clock.now += texts.length * millisecondsPerText;
    return super.embedDocuments(texts);
  }
}

const directories: string[] = [];
const services: RagService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A text of about `chunks` chunks of 1,000 characters, its words unique to `name`. */
function fileOf(name: string, chunks: number): { name: string; bytes: Uint8Array } {
  const paragraph = (index: number) => `Paragraph ${index} of ${name}: ${"the quick brown fox jumps over the lazy dog ".repeat(18)}`;
  const text = Array.from({ length: chunks }, (_, index) => paragraph(index)).join("\n\n");
  return { name, bytes: new TextEncoder().encode(text) };
}

async function ingestWithClock(files: { name: string; bytes: Uint8Array }[], plan: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-eta-"));
  directories.push(dataDir);
  const clock = { now: 0 };
  const service = createRagService({
    config: resolveConfig({
      stores: { dataDir },
      embeddings: { dimension: 32, cacheMaxEntries: 0 },
      ingestion: { useRaptor: false },
      logging: { level: "silent" },
    }),
    embeddings: new VirtualSlowEmbeddings(clock),
    jobStore: createInMemoryJobStore(),
  });
  services.push(service);
  await service.ready();
  const sizes = new Map(files.map((file) => [file.name, file.bytes.byteLength]));
  const tracker = ingestionProgress(sizes, true);
  const { unit, counters } = ingestionProgressLayout(true);
  const snapshots: ProgressSnapshot[] = [];
  const job = await service.ingestFiles(
    { orgId: "org", principal: { userName: "ann@example.org", roles: [], groups: [] }, files, metadata: { acl: "|user:_all_|" } },
    {
      plan,
      onProgress: (state: IngestionJob, file: string, throughput: IngestionThroughput) =>
        snapshots.push(
          progressSnapshot({ phase: "ingest", unit, total: 0, counters }, tracker.update(state, file, throughput), clock.now / 1000),
        ),
    },
  );
  return { job, snapshots, seconds: clock.now / 1000 };
}

describe("docqa ingest's progress", () => {
  // One large file first (it alone is most of the work), then many small ones.
  const files = [fileOf("large.md", 240), ...Array.from({ length: 14 }, (_, index) => fileOf(`small-${index}.md`, 4 + index * 2))];

  it("counts chunks, and once a tenth of them are embedded its ETA is within 2x of the time the rest takes", async () => {
    const { job, snapshots, seconds } = await ingestWithClock(files, true);
    expect(job.state).toBe("succeeded");
    const chunks = job.chunks;
    expect(chunks).toBeGreaterThan(400);
    // Planning made the total known before any chunk was embedded.
    const first = snapshots.find((snapshot) => snapshot.done > 0) as ProgressSnapshot;
    expect(first.unit).toBe("chunks");
    expect(first.total).toBe(chunks);
    const early = snapshots.find((snapshot) => snapshot.done >= chunks / 10) as ProgressSnapshot;
    expect(early.done).toBeLessThan(chunks / 4);
    const rest = seconds - early.elapsedSeconds;
    expect(early.etaSeconds).not.toBeNull();
    const ratio = (early.etaSeconds as number) / rest;
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    // The files stay a counter, and every chunk is counted at the end.
    const last = snapshots.at(-1) as ProgressSnapshot;
    expect(last.counters.files?.value).toBe(files.length);
    expect(last.done).toBe(chunks);
    expect(last.etaSeconds).toBe(0);
  });

  it("without planning, estimates the files not read yet from their size, so the ETA is still in range", async () => {
    const { job, snapshots, seconds } = await ingestWithClock(files, false);
    const early = snapshots.find((snapshot) => snapshot.done >= job.chunks / 10) as ProgressSnapshot;
    const ratio = (early.etaSeconds as number) / (seconds - early.elapsedSeconds);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});

describe("ingestionProgress", () => {
  const job = (processed: number, total: number) => ({ files: { total, processed } }) as unknown as IngestionJob;
  const throughput = (values: Partial<IngestionThroughput>): IngestionThroughput => ({
    embeddedChunks: 0,
    cachedChunks: 0,
    chunksPerSecond: 0,
    plannedChunks: 0,
    plannedFiles: 0,
    ...values,
  });

  it("estimates the chunks of files not yet known at the chunks per byte of those known, and has no ETA before any is known", () => {
    const tracker = ingestionProgress(
      new Map([
        ["a.md", 1_000],
        ["b.md", 3_000],
      ]),
      true,
    );
    expect(tracker.update(job(0, 2), "a.md", throughput({}))).toMatchObject({ done: 0, fraction: null });
    // a.md (1,000 bytes) has 10 chunks, 5 of them embedded: b.md (3,000 bytes) is estimated at 30.
    const update = tracker.update(
      job(0, 2),
      "a.md",
      throughput({ plannedChunks: 10, plannedFiles: 1, embeddedChunks: 4, cachedChunks: 1 }),
    );
    expect(update).toMatchObject({ done: 5, total: 40, fraction: 5 / 40, counters: { files: 0, embeddings: 4, cached: 1 } });
    // Once b.md is known (12 chunks), the total is exact.
    expect(tracker.update(job(1, 2), "b.md", throughput({ plannedChunks: 22, plannedFiles: 2, embeddedChunks: 10 }))).toMatchObject({
      total: 22,
      fraction: 10 / 22,
    });
  });

  it("counts files, with the ETA from the bytes of finished files, when there is no embedding model", () => {
    const tracker = ingestionProgress(
      new Map([
        ["a.md", 1_000],
        ["b.md", 3_000],
      ]),
      false,
    );
    const finished = { ...job(1, 2), chunks: 7 } as IngestionJob;
    expect(tracker.update(finished, "a.md", throughput({}))).toEqual({ done: 1, fraction: 0.25, counters: { chunks: 7 }, current: "a.md" });
  });
});
