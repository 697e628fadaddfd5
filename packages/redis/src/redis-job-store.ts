/**
 * A {@link JobStore} in Redis, shared by every server instance: one JSON string per job, and a
 * sorted set of the unfinished ones for resuming after a restart.
 */
import { type IngestionJob, isFinished, type JobStore } from "@docqa/core";
import type { Redis } from "ioredis";
import { callRedis } from "./call-redis.js";
import { defaultKeyPrefix, redisKeyLayout } from "./redis-key-layout.js";
import { redisUnavailableError } from "./redis-unavailable-error.js";

/** Settings of {@link createRedisJobStore}. */
export interface RedisJobStoreOptions {
  /** Prefix of every key; default `docqa:`. Several deployments can share one Redis under different prefixes. */
  keyPrefix?: string | undefined;
  /**
   * How long a finished job (`succeeded`, `partially_failed`, `failed`) stays readable, in seconds;
   * default 604,800 (7 days). Unfinished jobs never expire.
   */
  finishedRetentionSeconds?: number | undefined;
}

/** Default of {@link RedisJobStoreOptions.finishedRetentionSeconds}: 7 days. */
export const defaultFinishedJobRetentionSeconds = 7 * 24 * 60 * 60;

/** Removes from the sorted set `KEYS[1]` each member of `ARGV` whose key does not exist. */
const forgetMissingJobs = `for _, key in ipairs(ARGV) do
  if redis.call('EXISTS', key) == 0 then redis.call('ZREM', KEYS[1], key) end
end
return 0`;

/** Job keys read per `MGET` by `unfinished()`. */
const readBatch = 500;

/**
 * Creates a Redis job store on `client`. Keys (see {@link redisKeyLayout}):
 * `<prefix>job:<org>:<jobId>` holds the job as JSON, so the same job id in two organisations is
 * two jobs; `<prefix>jobs:unfinished` is a sorted set of the keys of queued and running jobs,
 * scored by creation time. `save` writes both in one `MULTI` transaction; a finished job gets the
 * retention as its expiry, an unfinished one none. `close()` leaves the client open (its owner
 * closes it).
 *
 * Errors: every method throws {@link DocqaError} `store_unavailable` (component `redis`) when Redis
 * fails or does not answer within the client's `commandTimeout`.
 *
 * @example
 * ```ts
 * const jobs = createRedisJobStore(client, { finishedRetentionSeconds: 24 * 3600 });
 * await jobs.save(job);
 * ```
 */
export function createRedisJobStore(client: Redis, options: RedisJobStoreOptions = {}): JobStore {
  const keys = redisKeyLayout(options.keyPrefix ?? defaultKeyPrefix);
  const retentionMs = Math.max(1, Math.round((options.finishedRetentionSeconds ?? defaultFinishedJobRetentionSeconds) * 1000));

  const parse = (body: string, key: string): IngestionJob => {
    try {
      return JSON.parse(body) as IngestionJob;
    } catch (error) {
      throw redisUnavailableError(client, `read job ${key}, which is not JSON`, error);
    }
  };

  return {
    name: "redis",
    async save(job) {
      const key = keys.job(job.orgId, job.jobId);
      const body = JSON.stringify(job);
      await callRedis(client, "save an ingestion job", async () => {
        const transaction = client.multi();
        if (isFinished(job.state)) {
          transaction.set(key, body, "PX", retentionMs).zrem(keys.unfinishedJobs, key);
        } else {
          const createdAt = Date.parse(job.createdAt);
          transaction.set(key, body).zadd(keys.unfinishedJobs, Number.isFinite(createdAt) ? createdAt : 0, key);
        }
        const results = await transaction.exec();
        if (!results) throw new Error("transaction aborted");
        for (const [error] of results) if (error) throw error;
      });
    },
    async get(orgId, jobId) {
      const key = keys.job(orgId, jobId);
      const body = await callRedis(client, "read an ingestion job", () => client.get(key));
      if (body === null) return undefined;
      const job = parse(body, key);
      return job.orgId === orgId && job.jobId === jobId ? job : undefined;
    },
    async unfinished() {
      return callRedis(client, "list unfinished ingestion jobs", async () => {
        const jobKeys = await client.zrange(keys.unfinishedJobs, 0, "-1");
        const jobs: IngestionJob[] = [];
        const stale: string[] = [];
        for (let start = 0; start < jobKeys.length; start += readBatch) {
          const batch = jobKeys.slice(start, start + readBatch);
          const bodies = await client.mget(batch);
          bodies.forEach((body, index) => {
            const key = batch[index] as string;
            if (body === null) stale.push(key);
            else {
              const job = parse(body, key);
              if (!isFinished(job.state)) jobs.push(job);
            }
          });
        }
        // Keys gone from Redis (deleted by hand, or evicted under a maxmemory policy): forget them,
        // unless saved again meanwhile.
        if (stale.length > 0) await client.eval(forgetMissingJobs, 1, [keys.unfinishedJobs, ...stale]);
        return jobs;
      });
    },
    async ping() {
      await callRedis(client, "answer PING", () => client.ping());
    },
    async close() {},
  };
}
