/**
 * An in-memory {@link JobStore}: for tests and short-lived processes. Keeps at most
 * `maximumJobs` finished jobs (oldest dropped first).
 */
import { type IngestionJob, isFinished } from "./ingestion-job.js";
import type { JobStore } from "./job-store.js";

/** Creates an in-memory job store. */
export function createInMemoryJobStore(maximumJobs = 10_000): JobStore {
  const jobs = new Map<string, IngestionJob>();
  return {
    name: "memory",
    async save(job) {
      jobs.delete(job.jobId);
      jobs.set(job.jobId, structuredClone(job));
      if (jobs.size > maximumJobs) {
        for (const [jobId, stored] of jobs) {
          if (jobs.size <= maximumJobs) break;
          if (isFinished(stored.state)) jobs.delete(jobId);
        }
      }
    },
    async get(orgId, jobId) {
      const job = jobs.get(jobId);
      return job && job.orgId === orgId ? structuredClone(job) : undefined;
    },
    async unfinished() {
      return [...jobs.values()].filter((job) => !isFinished(job.state)).map((job) => structuredClone(job));
    },
    async close() {},
  };
}
