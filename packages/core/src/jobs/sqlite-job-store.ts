/**
 * A {@link JobStore} in a SQLite file (`<DATA_DIR>/jobs.sqlite`), the embedded default: job
 * states survive restarts, so an interrupted job can be resumed.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { IngestionJob } from "./ingestion-job.js";
import type { JobStore } from "./job-store.js";

/** Creates a SQLite job store at `path`. */
export function createSqliteJobStore(path: string): JobStore {
  mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;
    CREATE TABLE IF NOT EXISTS jobs (job_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, state TEXT NOT NULL, body TEXT NOT NULL) STRICT;
    CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state);`);
  const put = database.prepare(
    "INSERT INTO jobs (job_id, org_id, state, body) VALUES (?, ?, ?, ?) ON CONFLICT(job_id) DO UPDATE SET state = excluded.state, body = excluded.body",
  );
  const select = database.prepare("SELECT body FROM jobs WHERE job_id = ? AND org_id = ?");
  const unfinished = database.prepare("SELECT body FROM jobs WHERE state IN ('queued', 'running')");
  return {
    name: "sqlite",
    async save(job) {
      put.run(job.jobId, job.orgId, job.state, JSON.stringify(job));
    },
    async get(orgId, jobId) {
      const row = select.get(jobId, orgId) as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as IngestionJob) : undefined;
    },
    async unfinished() {
      return (unfinished.all() as { body: string }[]).map((row) => JSON.parse(row.body) as IngestionJob);
    },
    async close() {
      if (database.isOpen) database.close();
    },
  };
}
