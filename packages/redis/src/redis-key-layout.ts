/**
 * The names of every key docqa writes to Redis, in one place. Each caller-supplied part is
 * escaped with {@link escapeKeyPart}, so parts never contain `:` and keys of different
 * organisations, users, threads or jobs never coincide.
 *
 * | Key | Type | Holds | Expiry |
 * |---|---|---|---|
 * | `<prefix>job:<org>:<jobId>` | string | the job as JSON | none while unfinished; the retention (7 days) once finished |
 * | `<prefix>jobs:unfinished` | sorted set | job keys of queued and running jobs, scored by `createdAt` (ms) | none |
 * | `<prefix>memory:<org>:session:<user>` | list | header `{"v":1,"ownerUser","index"}`, then one JSON turn per element, oldest first | `SESSION_TIMEOUT`, refreshed on use |
 * | `<prefix>memory:<org>:thread:<threadId>` | list | as above | `THREAD_TIMEOUT`, refreshed on use |
 * | `<prefix>memory:<org>:user:<user>` | set | conversation keys the user created | at least as long as its longest-lived conversation |
 * | `<prefix>rate:<points>-per-<seconds>s:<key>` | string | request counter of one window (rate-limiter-flexible) | the window |
 */

import type { ConversationKey } from "@docqa/core/stores";
import { escapeKeyPart } from "./escape-key-part.js";

/** Default key prefix of every docqa key: `docqa:`. */
export const defaultKeyPrefix = "docqa:";

/** Key names under one prefix. */
export interface RedisKeyLayout {
  /** The prefix, for example `docqa:`. */
  readonly prefix: string;
  /** The JSON string of one ingestion job. */
  job(orgId: string, jobId: string): string;
  /** The sorted set of unfinished job keys. */
  readonly unfinishedJobs: string;
  /** The list of one conversation (header, then turns). */
  conversation(key: ConversationKey): string;
  /** The set of conversation keys a user created in an organisation. */
  userConversations(orgId: string, userName: string): string;
  /** The prefix rate-limiter-flexible puts before `:<key>` for one window. */
  rateLimitWindow(points: number, durationSeconds: number): string;
}

/** The key layout under `prefix` (default `docqa:`). */
export function redisKeyLayout(prefix: string = defaultKeyPrefix): RedisKeyLayout {
  return {
    prefix,
    job: (orgId, jobId) => `${prefix}job:${escapeKeyPart(orgId)}:${escapeKeyPart(jobId)}`,
    unfinishedJobs: `${prefix}jobs:unfinished`,
    conversation: (key) =>
      `${prefix}memory:${escapeKeyPart(key.orgId)}:${key.kind === "session" ? "session" : "thread"}:${escapeKeyPart(key.id)}`,
    userConversations: (orgId, userName) => `${prefix}memory:${escapeKeyPart(orgId)}:user:${escapeKeyPart(userName)}`,
    rateLimitWindow: (points, durationSeconds) => `${prefix}rate:${points}-per-${durationSeconds}s`,
  };
}
