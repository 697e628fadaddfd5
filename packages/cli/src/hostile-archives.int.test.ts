/**
 * Hostile zip archives against the built `docqa serve` (embedded store, BM25 only, ingestion in
 * worker threads) and `docqa ingest`, as issue 24 found them: the files are generated here into a
 * temporary folder (`@docqa/core/testing`'s `writeCraftedZip`, streamed), uploaded one request
 * each through set B's `POST /api/ingest` (multipart, `wait=false`), and the server's RSS
 * (`/proc/<pid>/status`, worker threads included) is sampled every 25 ms while each job runs and
 * again 2 s after it ends. Every file must be listed in the job's errors with a stable code, the
 * RSS growth from the warm server must stay under 300 MiB during and after, no worker thread may
 * fail, and a document stored through set A's `/upsert` before must still be answered. The same
 * files through `docqa ingest` give the same codes. The figures are printed.
 *
 * Needs `npm run build` and Linux's `/proc`; skipped with a message without them, fails in CI
 * (`CI=true`).
 */
import { existsSync, mkdtempSync, openAsBlob, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mintAccessToken } from "@docqa/core";
import {
  type CraftedEntry,
  honestHugeDocumentEntries,
  isContinuousIntegration,
  mainPartBombEntries,
  paragraphBlock,
  wordDocumentEntries,
  wordParagraph,
  writeCraftedZip,
} from "@docqa/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDocqa } from "./testing/run-docqa.js";
import { type BuiltServe, docqaBuilt, spawnBuiltServe } from "./testing/start-built-serve.js";

const procAvailable = existsSync("/proc/self/status");
if (!isContinuousIntegration() && (!docqaBuilt || !procAvailable)) {
  console.warn(`hostile archive test skipped: ${docqaBuilt ? "" : "run npm run build; "}${procAvailable ? "" : "no /proc (Linux only)"}`);
}

const mebibyte = 1024 * 1024;
/** The bound on RSS growth, during and after a hostile upload. */
const maxGrowth = 300 * mebibyte;
const secret = "hostile-archives-secret-0123456789-0123456789";
const email = "ann@example.org";
const org = "hostile";

/** The hostile files: name, entries, and the code a job must list them with. */
const hostileFiles: { name: string; entries: () => CraftedEntry[] }[] = [
  // Issue 24's two files.
  { name: "main-part-bomb.docx", entries: mainPartBombEntries },
  { name: "honest-250-mib.docx", entries: honestHugeDocumentEntries },
  // A lying size on a part with its usual name: word/document.xml declares 100 bytes, inflates to 256 MiB.
  {
    name: "lying-document.docx",
    entries: () => wordDocumentEntries({ block: paragraphBlock(mebibyte, 0), repeat: 256, declaredMainSize: 100 }),
  },
  // A lying size on the package relationships, which mammoth reads first: 50 bytes declared, 1 GiB of spaces.
  {
    name: "lying-relationships.docx",
    entries: () =>
      wordDocumentEntries({ block: wordParagraph("Hello.") }).map((entry) =>
        entry.name === "_rels/.rels" ? { ...entry, head: entry.body, body: " ".repeat(mebibyte), repeat: 1024, declaredSize: 50 } : entry,
      ),
  },
  // More entries than MAX_ARCHIVE_ENTRIES (10,000).
  {
    name: "many-entries.docx",
    entries: () => [
      ...wordDocumentEntries({ block: wordParagraph("Hello.") }),
      ...Array.from({ length: 10_001 }, (_, index) => ({ name: `word/media/part${index}.xml`, body: "<x/>" })),
    ],
  },
];

/** Resident set size of process `pid`, bytes (`VmRSS` of `/proc/<pid>/status`). */
function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Samples `pid`'s RSS every 25 ms while `work` runs; resolves with the peak and `work`'s value. */
async function sampleRss<T>(pid: number, work: () => Promise<T>): Promise<{ peak: number; value: T }> {
  let peak = rssOf(pid);
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, rssOf(pid));
      await sleep(25);
    }
  })();
  try {
    return { value: await work(), peak: Math.max(peak, rssOf(pid)) };
  } finally {
    done = true;
    await sampler;
  }
}

interface JobState {
  state: string;
  errors: { file: string; code: string; message: string }[];
}

const megabytes = (bytes: number) => (bytes / mebibyte).toFixed(0);

describe.skipIf(!isContinuousIntegration() && (!docqaBuilt || !procAvailable))(
  "hostile zip archives (issue 24; needs `npm run build`)",
  () => {
    let directory: string;
    let server: BuiltServe;
    let token: string;
    const files = new Map<string, string>();
    const sizes = new Map<string, number>();

    const authorised = { Authorization: "" };
    async function upload(paths: readonly string[]): Promise<JobState> {
      const form = new FormData();
      for (const path of paths) form.append("files", await openAsBlob(path), path.slice(path.lastIndexOf("/") + 1));
      const response = await fetch(`${server.urls.b}/api/ingest?wait=false`, { method: "POST", headers: authorised, body: form });
      expect(response.status).toBe(202);
      const { jobId } = (await response.json()) as { jobId: string };
      for (;;) {
        const polled = await fetch(`${server.urls.b}/api/ingest/${jobId}`, { headers: authorised });
        if (polled.status !== 200) throw new Error(`GET /api/ingest/${jobId} answered ${polled.status}: ${await polled.text()}`);
        const state = (await polled.json()) as JobState;
        if (!["queued", "running"].includes(state.state)) return state;
        await sleep(100);
      }
    }

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), "docqa-hostile-"));
      for (const file of hostileFiles) {
        const path = join(directory, file.name);
        sizes.set(file.name, await writeCraftedZip(path, file.entries()));
        files.set(file.name, path);
      }
      console.log([...sizes].map(([name, size]) => `${name}: ${(size / 1e6).toFixed(1)} MB`).join("\n"));
      server = await spawnBuiltServe({
        ...process.env,
        LOG_LEVEL: "warn",
        DATA_DIR: join(directory, "data"),
        EMBED_PROVIDER: "none",
        JWT_SECRET: secret,
      });
      token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId: org });
      authorised.Authorization = `Bearer ${token}`;
      // Warm the server: a set A document, and a small DOCX through a worker thread.
      const upsert = await fetch(`${server.urls.a}/upsert`, {
        method: "POST",
        headers: { ...authorised, "Content-Type": "application/json" },
        body: JSON.stringify({
          user_email: email,
          documents: { badges: { title: "Badges", content: "Visitor badges open the north door." } },
        }),
      });
      expect(upsert.status).toBe(200);
      const warm = join(directory, "warm.docx");
      await writeCraftedZip(warm, wordDocumentEntries({ block: wordParagraph("The printer is on the third floor.") }));
      expect((await upload([warm])).state).toBe("succeeded");
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    it("lists each file with archive_too_large; the server's RSS grows less than 300 MiB during and after", async () => {
      // The files as it describes them: 6.2 MB declaring 4 KiB for 2 GiB, 2.2 MB for 250 MiB.
      expect((sizes.get("main-part-bomb.docx") ?? 0) / 1e6).toBeCloseTo(6.4, 1);
      expect((sizes.get("honest-250-mib.docx") ?? 0) / 1e6).toBeCloseTo(2.2, 1);
      await sleep(2000);
      const before = rssOf(server.pid);
      const figure = (line: string) => console.log(line);
      for (const [name, path] of files) {
        const { value: job, peak } = await sampleRss(server.pid, () => upload([path]));
        await sleep(2000);
        const after = rssOf(server.pid);
        figure(`${name}: RSS before ${megabytes(before)} MiB, peak ${megabytes(peak)} MiB, 2 s after ${megabytes(after)} MiB`);
        // Soft: every file is tried and every figure printed, whatever fails first.
        expect.soft(job.errors.map((error) => [error.file, error.code])).toEqual([[name, "archive_too_large"]]);
        expect.soft(peak - before, `${name}: RSS growth during the job`).toBeLessThan(maxGrowth);
        expect.soft(after - before, `${name}: RSS growth after the job`).toBeLessThan(maxGrowth);
      }
      // Issue 24's two files in one request (4.5 GB before).
      const both = [files.get("main-part-bomb.docx"), files.get("honest-250-mib.docx")] as string[];
      const { value: job, peak } = await sampleRss(server.pid, () => upload(both));
      await sleep(2000);
      const after = rssOf(server.pid);
      figure(
        `both issue files in one request: RSS before ${megabytes(before)} MiB, peak ${megabytes(peak)} MiB, 2 s after ${megabytes(after)} MiB`,
      );
      expect.soft(job.errors.map((error) => error.code)).toEqual(["archive_too_large", "archive_too_large"]);
      expect.soft(peak - before, "both files: RSS growth during the job").toBeLessThan(maxGrowth);
      expect.soft(after - before, "both files: RSS growth after the job").toBeLessThan(maxGrowth);
      // No worker thread failed, and the server still answers from what /upsert stored.
      expect(server.log()).not.toMatch(/ingestion task failed|Worker terminated|internal_error/);
      const search = await fetch(`${server.urls.a}/predict`, {
        method: "POST",
        headers: { ...authorised, "Content-Type": "application/json" },
        body: JSON.stringify({ query: "Which door do visitor badges open?", user_info: { user_name: email } }),
      });
      const answer = (await search.json()) as { sources: Record<string, { metadata: { doc_id: string } }> };
      expect(Object.values(answer.sources).map((source) => source.metadata.doc_id)).toContain("badges");
    }, 300_000);

    it("docqa ingest lists the same files with the same code", async () => {
      const run = await runDocqa(["ingest", ...files.values(), "--org", org, "--owner", email, "--json"], {
        DATA_DIR: join(directory, "cli-data"),
        EMBED_PROVIDER: "none",
      });
      expect(run.code, run.stderr).toBe(3);
      const job = JSON.parse(run.stdout) as JobState;
      const listed = job.errors.map((error) => [basename(error.file), error.code]);
      expect(listed.sort()).toEqual([...files.keys()].map((name) => [name, "archive_too_large"]).sort());
    }, 120_000);
  },
);
