import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { createInMemoryJobStore } from "./in-memory-job-store.js";
import type { IngestionJob } from "./ingestion-job.js";
import type { JobStore } from "./job-store.js";
import { createSqliteJobStore } from "./sqlite-job-store.js";

const job = (jobId: string, orgId: string, state: IngestionJob["state"]): IngestionJob => ({
  jobId,
  orgId,
  state,
  createdAt: "2026-01-01T00:00:00.000Z",
  files: { total: 1, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
  documents: 0,
  chunks: 0,
  errors: [],
  warnings: [],
});

describe.each([
  ["sqlite", () => createSqliteJobStore(join(mkdtempSync(join(tmpdir(), "docqa-jobs-")), "jobs.sqlite"))],
  ["memory", () => createInMemoryJobStore()],
] as [string, () => JobStore][])("%s job store", (_name, create) => {
  it("saves, updates and isolates jobs by organisation, and lists unfinished ones", async () => {
    const store = create();
    await store.save(job("j1", "org-a", "queued"));
    await store.save(job("j2", "org-b", "running"));
    await store.save({ ...job("j1", "org-a", "succeeded"), documents: 3 });
    expect(await store.get("org-a", "j1")).toMatchObject({ state: "succeeded", documents: 3 });
    expect(await store.get("org-b", "j1")).toBeUndefined();
    expect(await store.get("org-a", "missing")).toBeUndefined();
    expect((await store.unfinished()).map((stored) => stored.jobId)).toEqual(["j2"]);
    await store.close();
  });
});

describe("sqlite job store", () => {
  it("keeps jobs across reopening", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "docqa-jobs-")), "jobs.sqlite");
    const first = createSqliteJobStore(path);
    await first.save(job("j1", "org-a", "running"));
    await first.close();
    const second = createSqliteJobStore(path);
    expect(await second.get("org-a", "j1")).toMatchObject({ jobId: "j1", state: "running" });
    await second.close();
  });

  it("migrates the release 0.1 table, keyed by job id alone, to organisation-scoped keys", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "docqa-jobs-")), "jobs.sqlite");
    const legacy = new DatabaseSync(path);
    legacy.exec("CREATE TABLE jobs (job_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, state TEXT NOT NULL, body TEXT NOT NULL) STRICT");
    legacy.prepare("INSERT INTO jobs VALUES (?, ?, ?, ?)").run("j1", "org-a", "running", JSON.stringify(job("j1", "org-a", "running")));
    legacy.close();
    const store = createSqliteJobStore(path);
    expect(await store.get("org-a", "j1")).toMatchObject({ state: "running" });
    await store.save(job("j1", "org-b", "queued"));
    expect(await store.get("org-a", "j1")).toMatchObject({ orgId: "org-a", state: "running" });
    expect(await store.get("org-b", "j1")).toMatchObject({ orgId: "org-b", state: "queued" });
    await store.close();
  });
});
