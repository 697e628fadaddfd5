import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";
import { createEmbeddedStore } from "../embedded-store/embedded-store.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { craftZip, paragraphBlock, wordDocumentEntries } from "../testing/hostile-archives.js";
import { isContinuousIntegration, sharedDataPath } from "../testing/shared-data.js";

const principal = { userName: "ann@example.org", roles: [], groups: [] };
const everyone = { acl: "|user:_all_|" };
const services: RagService[] = [];

function newService(overrides: DocqaConfigOverrides = {}, jobStore = createInMemoryJobStore()) {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-ingest-"));
  const store = createEmbeddedStore({ dataDir });
  const service = createRagService({
    config: resolveConfig(overrides, {
      stores: { dataDir },
      embeddings: { provider: "none" },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
    }),
    stores: store,
    jobStore,
  });
  services.push(service);
  return { service, dataDir, store };
}

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

const text = (value: string) => new TextEncoder().encode(value);

/** Issue 24's zip bomb at 1/32 of its size: the main part, `word/main.bin`, declares 4 KiB and inflates to 64 MiB. */
function zipBomb(): Uint8Array {
  const mebibyte = 1024 * 1024;
  return craftZip(
    wordDocumentEntries({ mainPart: "word/main.bin", block: paragraphBlock(mebibyte, 0), repeat: 64, declaredMainSize: 4096 }),
  );
}

describe("ingestFiles: bad input", () => {
  it("rejects each bad file with its code, goes on with the batch, and leaves the store unchanged by the bad ones", async () => {
    const { service, store } = newService({ ingestion: { maxUploadBytes: 50_000_000 } });
    const directory = mkdtempSync(join(tmpdir(), "docqa-bad-"));
    const hugePath = join(directory, "huge.txt");
    const handle = openSync(hugePath, "w");
    ftruncateSync(handle, 1024 ** 3);
    closeSync(handle);
    await service.ingestFiles({
      orgId: "org",
      principal,
      files: [{ name: "seed.txt", bytes: text("The seed document stays.") }],
      metadata: everyone,
    });
    const before = await store.count("org");

    const cases: [string, { name?: string; bytes?: Uint8Array; path?: string }, string][] = [
      ["empty file", { name: "empty.txt", bytes: new Uint8Array() }, "empty_file"],
      ["truncated PDF", { name: "cut.pdf", bytes: text("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R") }, "corrupt_file"],
      [
        "corrupt DOCX",
        { name: "cut.docx", bytes: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 1, 2, 3, 4]) },
        "corrupt_file",
      ],
      ["a 1 GB file", { path: hugePath }, "file_too_large"],
      ["an extension that lies", { name: "photo.pdf", bytes: text("plain words, not a PDF") }, "content_type_mismatch"],
      [
        "invalid UTF-8",
        { name: "bytes.md", bytes: new Uint8Array([0x23, 0x80, 0x00, 0x81, 0x02, 0xc3, 0x28, 0x03, 0x9f, 0x00]) },
        "invalid_encoding",
      ],
      ["a CSV with ragged rows", { name: "ragged.csv", bytes: text("a,b,c\n1,2,3\n4,5\n") }, "csv_ragged_rows"],
      ["deeply nested JSON", { name: "deep.json", bytes: text(`${"[".repeat(10_000)}"x"${"]".repeat(10_000)}`) }, "json_too_deep"],
      ["a zip bomb inside a DOCX", { name: "bomb.docx", bytes: zipBomb() }, "archive_too_large"],
      ["an unsupported type", { name: "deck.pptx", bytes: text("x") }, "unsupported_file_type"],
    ];
    const sharedPdf = sharedDataPath("documents", "pdf");
    if (sharedPdf) {
      cases.push(["an image-only PDF", { path: join(sharedPdf, "image-only-loremipsum-flat.pdf") }, "no_text_layer"]);
      cases.push(["a password-protected PDF", { path: join(sharedPdf, "password-protected.pdf") }, "password_protected"]);
    }
    const job = await service.ingestFiles({
      orgId: "org",
      principal,
      files: [...cases.map(([, file]) => file), { name: "good.txt", bytes: text("The good document arrives.") }],
      metadata: everyone,
    });
    expect(job.errors.map((error) => `${error.file}: ${error.code}`)).toHaveLength(cases.length);
    expect(job.state).toBe("partially_failed");
    expect(job.files).toEqual({ total: cases.length + 1, processed: cases.length + 1, ingested: 1, unchanged: 0, failed: cases.length });
    const codes = Object.fromEntries(job.errors.map((error) => [error.file, error.code]));
    for (const [name, file, code] of cases) expect(codes[file.path ?? file.name ?? ""], name).toBe(code);
    for (const error of job.errors) expect(error.message.length).toBeGreaterThan(10);
    // Only the good file's one chunk was added.
    expect(await store.count("org")).toBe(before + 1);
    expect((await service.search({ orgId: "org", principal, query: "good document arrives" })).results[0]?.chunk.docId).toBe("good.txt");
  });
});

describe("ingestFiles: documents", () => {
  it("skips unchanged files before parsing and removes records a changed JSON file no longer has", async () => {
    const { service } = newService();
    const records = (names: string[]) => text(JSON.stringify(names.map((name) => ({ name, note: `${name} is a planet` }))));
    const first = await service.ingestFiles({
      orgId: "org",
      principal,
      files: [{ name: "planets.json", bytes: records(["Mars", "Venus", "Pluto"]) }],
      metadata: everyone,
    });
    expect(first).toMatchObject({ state: "succeeded", documents: 3, files: { ingested: 1 } });
    const again = await service.ingestFiles({
      orgId: "org",
      principal,
      files: [{ name: "planets.json", bytes: records(["Mars", "Venus", "Pluto"]) }],
      metadata: everyone,
    });
    expect(again).toMatchObject({ state: "succeeded", documents: 0, chunks: 0, files: { unchanged: 1, ingested: 0 } });
    await service.ingestFiles({
      orgId: "org",
      principal,
      files: [{ name: "planets.json", bytes: records(["Mars", "Venus"]) }],
      metadata: everyone,
    });
    const pluto = await service.search({ orgId: "org", principal, query: "Pluto planet" });
    expect(pluto.results.map((result) => result.chunk.docId)).not.toContain("planets.json#2");
    expect((await service.search({ orgId: "org", principal, query: "Venus planet" })).results[0]?.chunk.docId).toBe("planets.json#1");
  });

  it("runs a job in the background, hides it from other organisations, and resumes it after a restart", async () => {
    const jobStore = createInMemoryJobStore();
    const { service, dataDir } = newService({}, jobStore);
    const job = await service.startIngestion({
      orgId: "org",
      principal,
      files: [{ name: "a.md", bytes: text("# A\nAlpha text.") }],
      metadata: everyone,
    });
    expect(job.state).toBe("queued");
    expect(job).not.toHaveProperty("resume");
    expect(await service.getIngestionJob({ orgId: "other-org", principal }, job.jobId)).toBeUndefined();
    // Generous bounds: the job's worker thread starts first, which takes seconds on a loaded machine.
    const settled = { timeout: 30_000, interval: 20 };
    const finished = await vi.waitFor(async () => {
      const current = await service.getIngestionJob({ orgId: "org", principal }, job.jobId);
      expect(current?.state).toBe("succeeded");
      return current;
    }, settled);
    expect(finished).toMatchObject({ state: "succeeded", documents: 1, files: { ingested: 1 } });
    // The spooled upload is removed once the job has finished.
    await vi.waitFor(() => expect(readdirSync(join(dataDir, "uploads"))).toEqual([]), settled);

    // A job left "running" by a crashed process, with its spooled file, resumes on the next start.
    const spool = join(dataDir, "uploads", "crashed-job");
    (await import("node:fs")).mkdirSync(spool, { recursive: true });
    writeFileSync(join(spool, "0"), "Beta text survives a crash.");
    await jobStore.save({
      jobId: "crashed-job",
      orgId: "org",
      state: "running",
      createdAt: new Date().toISOString(),
      files: { total: 1, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
      documents: 0,
      chunks: 0,
      errors: [],
      warnings: [],
      resume: { uploader: principal.userName, metadata: everyone, files: [{ name: "b.txt", path: join(spool, "0"), docId: "b.txt" }] },
    });
    const restarted = createRagService({
      config: { stores: { dataDir }, embeddings: { provider: "none" }, logging: { level: "silent" }, ingestion: { useRaptor: false } },
      jobStore,
    });
    services.push(restarted);
    expect(await restarted.resumeIngestions()).toBe(1);
    await vi.waitFor(
      async () => expect((await restarted.getIngestionJob({ orgId: "org", principal }, "crashed-job"))?.state).toBe("succeeded"),
      settled,
    );
    expect((await restarted.search({ orgId: "org", principal, query: "survives a crash" })).results[0]?.chunk.docId).toBe("b.txt");
  });
});

const documentsDirectory = sharedDataPath("documents");

/** Files of ../shared/data/documents that must be rejected, with the reason. */
const expectedRejections: Record<string, string> = {
  "csv/empty.csv": "empty_file",
  "docx/empty.docx": "empty_file",
  "docx/malformed-truncated-simple.docx": "corrupt_file",
  "json/empty.json": "empty_file",
  "json/malformed-truncated-elements.json": "corrupt_file",
  "md/empty.md": "empty_file",
  "pdf/empty.pdf": "empty_file",
  "pdf/image-only-loremipsum-flat.pdf": "no_text_layer",
  "pdf/image-only-single-table.pdf": "no_text_layer",
  "pdf/malformed-truncated-layout-parser-paper.pdf": "corrupt_file",
  "pdf/password-protected.pdf": "password_protected",
  "txt/all-whitespace.txt": "empty_file",
  "txt/empty.txt": "empty_file",
};

/** For each format, a sentence of a real file, the question that finds it, and where it is. */
const knownSentences = [
  {
    format: "pdf",
    question: "How many bottles of water were there?",
    phrase: "20,000 bottles of water",
    docId: "pdf/memo-1p.pdf",
    location: { page: 1 },
  },
  {
    format: "pdf",
    question: "Where is the Interest on Underpaid Arbitrage Rebate shown on the Form 8038 display?",
    phrase: "Interest on Underpaid Arbitrage Rebate",
    docId: "pdf/irs-manual-2.3.59-400p.pdf",
    location: { page: 300 },
  },
  {
    format: "docx",
    question: "Call me Ishmael: how much money did the narrator have in his purse?",
    phrase: "little or no money in my purse",
    docId: "docx/moby-dick-opening.docx",
    location: {},
  },
  {
    format: "txt",
    question: "Who was the maid of honor in July 1805?",
    phrase: "Anna Pavlovna",
    docId: "txt/war-and-peace-1p.txt",
    location: {},
  },
  {
    format: "md",
    question: "What type do Rust integer types default to?",
    phrase: "default to `i32`",
    docId: "md/rust-book-ch03-02-data-types.md",
    location: { section: "Data Types > Scalar Types > Integer Types" },
  },
  {
    format: "json",
    question: "Which discoverer is listed for Hydrogen?",
    phrase: "discoverer: Cavendish",
    docId: "json/elements.json#0",
    location: { record: 0 },
  },
  {
    format: "csv",
    question: "Aer Lingus incidents fatal accidents",
    phrase: "airline: Aer Lingus; avail_seat_km_per_week: 320906734; incidents_85_99: 2",
    docId: "csv/airline_safety.csv",
    location: { rows: "2" },
  },
];

describe.skipIf(!documentsDirectory && !isContinuousIntegration())("ingestFiles over ../shared/data/documents", () => {
  it("ingests or rejects every file with the right reason, finds a known sentence of each format, and re-ingests as a no-op", async () => {
    expect(documentsDirectory, "../shared/data/documents is missing").toBeDefined();
    const { service } = newService({ ingestion: { useRaptor: true } });
    const { findFiles } = await import("./find-files.js");
    const { files } = await findFiles([documentsDirectory as string], ["pdf", "docx", "txt", "md", "json", "csv", "ndjson"]);
    const request = {
      orgId: "org",
      principal,
      files: files.map((file) => ({ path: file.path, docId: file.relativePath })),
      metadata: everyone,
    };
    const job = await service.ingestFiles(request);
    const rejected = Object.fromEntries(
      job.errors.map((error) => [error.file.slice((documentsDirectory as string).length + 1), error.code]),
    );
    expect(rejected).toEqual(expectedRejections);
    expect(job.files.ingested).toBe(files.length - Object.keys(expectedRejections).length);
    // The CSV cut inside a quoted field keeps its 8,149 complete rows, with a warning naming the line.
    expect(job.warnings.filter((warning) => warning.file.endsWith("malformed-truncated-marvel-open-quote.csv"))).toEqual([
      {
        file: expect.stringMatching(/malformed-truncated-marvel-open-quote\.csv$/),
        message:
          "malformed-truncated-marvel-open-quote.csv stops at line 8151 (truncated file: a quote opened on line 8151 is never closed); kept the 8149 complete row(s) before it and dropped the rest",
      },
    ]);

    for (const { format, question, phrase, docId, location } of knownSentences) {
      const result = await service.predict({ orgId: "org", principal, query: question });
      const cited = Object.values(result.sources).find(
        (source) => source.metadata.doc_id === docId && source.page_content.includes(phrase),
      );
      expect(cited, `${format}: ${question}`).toBeDefined();
      expect(cited?.metadata, format).toMatchObject({ filename: docId.split("/")[1]?.replace(/#\d+$/, ""), type: format, ...location });
    }

    const second = await service.ingestFiles(request);
    expect(second.files).toMatchObject({ unchanged: job.files.ingested, ingested: 0, failed: Object.keys(expectedRejections).length });
    expect(second.chunks).toBe(0);
  }, 180_000);
});
