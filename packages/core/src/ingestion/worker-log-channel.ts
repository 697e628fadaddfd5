/**
 * Logs, audit lines and `indexed` metric events of the ingestion worker threads reach the service's
 * logger, audit log and metrics through a `BroadcastChannel` (`node:worker_threads`): a worker
 * posts each entry, the serving thread hands it to the service's objects, so a custom logger,
 * audit log or metrics sink sees every event and the CLI prints lines as usual.
 */
import { BroadcastChannel } from "node:worker_threads";
import type { AuditEvent, AuditLog } from "../logging/audit-log.js";
import type { Logger, LogLevel } from "../logging/logger.js";
import type { IndexingEvent, ServiceMetrics } from "../telemetry/service-metrics.js";

type ChannelEntry =
  | { kind: "log"; level: LogLevel; message: string; fields?: Record<string, unknown> | undefined }
  | { kind: "audit"; event: AuditEvent }
  | { kind: "indexed"; event: IndexingEvent };

const severity: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** What a worker thread reports with: a logger (entries at `level` or above), an audit log and the `indexed` metric event posting to the channel. */
export interface WorkerChannel {
  logger: Logger;
  audit: AuditLog;
  metrics: ServiceMetrics;
}

/** Opens the channel `name` in a worker thread; see {@link WorkerChannel}. */
export function createWorkerChannel(name: string, level: LogLevel | "silent"): WorkerChannel {
  const channel = new BroadcastChannel(name);
  channel.unref();
  const post = (entry: ChannelEntry) => channel.postMessage(entry);
  const log = (entryLevel: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (severity[entryLevel] < severity[level]) return;
    try {
      post({ kind: "log", level: entryLevel, message, fields: { ...fields, thread: "ingestion-worker" } });
    } catch {
      // A field that cannot be cloned: the line without its fields.
      post({ kind: "log", level: entryLevel, message, fields: { thread: "ingestion-worker" } });
    }
  };
  return {
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    audit: { record: (event) => post({ kind: "audit", event }) },
    metrics: {
      indexed: (event) => post({ kind: "indexed", event }),
    },
  };
}

/** Hands the entries posted to the channel `name` to `targets`, until `close()`. */
export function forwardWorkerChannel(
  name: string,
  targets: { logger: Logger; audit?: AuditLog | undefined; metrics?: ServiceMetrics | undefined },
): { close(): void } {
  const channel = new BroadcastChannel(name);
  channel.unref();
  channel.onmessage = (message) => {
    const entry = (message as unknown as { data: ChannelEntry }).data;
    if (entry.kind === "log") targets.logger[entry.level]?.(entry.message, entry.fields);
    else if (entry.kind === "audit") targets.audit?.record(entry.event);
    else targets.metrics?.indexed?.(entry.event);
  };
  return { close: () => channel.close() };
}
