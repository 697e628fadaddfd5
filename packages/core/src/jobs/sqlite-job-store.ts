/**
 * A {@link JobStore} in a SQLite file (`<DATA_DIR>/jobs.sqlite`), the embedded default: job
 * states survive restarts, so an interrupted job can be resumed.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DocqaError } from "../errors/docqa-error.js";
import type { IngestionJob } from "./ingestion-job.js";
import type { JobStore } from "./job-store.js";

/** Creates a SQLite job store at `path`. */
export function createSqliteJobStore(path: string): JobStore {
  mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  // Jobs are keyed by organisation and job id, so one organisation can never read or overwrite
  // another's job, whatever the ids. Release 0.1's table (`jobs`, keyed by job id alone) is
  // migrated once.
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;
    CREATE TABLE IF NOT EXISTS organisation_jobs (org_id TEXT NOT NULL, job_id TEXT NOT NULL, state TEXT NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (org_id, job_id)) STRICT;
    CREATE INDEX IF NOT EXISTS organisation_jobs_by_state ON organisation_jobs(state);`);
  const legacy = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get();
  if (legacy) {
    database.exec(`BEGIN IMMEDIATE;
      INSERT OR IGNORE INTO organisation_jobs (org_id, job_id, state, body) SELECT org_id, job_id, state, body FROM jobs;
      DROP TABLE jobs;
      COMMIT;`);
  }
  const put = database.prepare(
    "INSERT INTO organisation_jobs (org_id, job_id, state, body) VALUES (?, ?, ?, ?) ON CONFLICT(org_id, job_id) DO UPDATE SET state = excluded.state, body = excluded.body",
  );
  const select = database.prepare("SELECT body FROM organisation_jobs WHERE org_id = ? AND job_id = ?");
  const unfinished = database.prepare("SELECT body FROM organisation_jobs WHERE state IN ('queued', 'running')");
  return {
    name: "sqlite",
    async save(job) {
      put.run(job.orgId, job.jobId, job.state, JSON.stringify(job));
    },
    async get(orgId, jobId) {
      const row = select.get(orgId, jobId) as { body: string } | undefined;
      return row ? (JSON.parse(row.body) as IngestionJob) : undefined;
    },
    async unfinished() {
      return (unfinished.all() as { body: string }[]).map((row) => JSON.parse(row.body) as IngestionJob);
    },
    async ping() {
      try {
        database.prepare("SELECT 1").get();
      } catch (error) {
        throw new DocqaError("store_unavailable", `the job store ${path} cannot be read: ${(error as Error).message}`, {
          component: "jobs",
          cause: error,
        });
      }
    },
    async close() {
      if (database.isOpen) database.close();
    },
  };
}
