/**
 * An in-memory {@link JobStore}: for tests and short-lived processes. Keeps at most
 * `maximumJobs` finished jobs (oldest dropped first).
 */
import { type IngestionJob, isFinished } from "./ingestion-job.js";
import type { JobStore } from "./job-store.js";

/** Creates an in-memory job store. */
export function createInMemoryJobStore(maximumJobs = 10_000): JobStore {
  // Keyed by organisation and job id, so organisations never share a job.
  const jobs = new Map<string, IngestionJob>();
  const key = (orgId: string, jobId: string) => JSON.stringify([orgId, jobId]);
  return {
    name: "memory",
    async save(job) {
      jobs.delete(key(job.orgId, job.jobId));
      jobs.set(key(job.orgId, job.jobId), structuredClone(job));
      if (jobs.size > maximumJobs) {
        for (const [storedKey, stored] of jobs) {
          if (jobs.size <= maximumJobs) break;
          if (isFinished(stored.state)) jobs.delete(storedKey);
        }
      }
    },
    async get(orgId, jobId) {
      const job = jobs.get(key(orgId, jobId));
      return job ? structuredClone(job) : undefined;
    },
    async unfinished() {
      return [...jobs.values()].filter((job) => !isFinished(job.state)).map((job) => structuredClone(job));
    },
    async ping() {},
    async close() {},
  };
}
