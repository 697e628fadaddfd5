/**
 * Logs of the ingestion worker threads reach the service's logger through a `BroadcastChannel`
 * (`node:worker_threads`): a worker posts each entry, the serving thread writes it with the
 * service's logger, so a custom logger sees every line and the CLI prints them as usual.
 */
import { BroadcastChannel } from "node:worker_threads";
import type { Logger, LogLevel } from "../logging/logger.js";

interface LogEntry {
  level: LogLevel;
  message: string;
  fields?: Record<string, unknown> | undefined;
}

const severity: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger for a worker thread: posts entries at `level` or above to the channel `name`. */
export function createChannelLogger(name: string, level: LogLevel | "silent"): Logger {
  const channel = new BroadcastChannel(name);
  channel.unref();
  const log = (entryLevel: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (severity[entryLevel] < severity[level]) return;
    const entry: LogEntry = { level: entryLevel, message, fields: { ...fields, thread: "ingestion-worker" } };
    try {
      channel.postMessage(entry);
    } catch {
      channel.postMessage({ level: entryLevel, message, fields: { thread: "ingestion-worker" } } satisfies LogEntry);
    }
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Writes the entries posted to the channel `name` with `logger`, until `close()`. */
export function forwardChannelLogs(name: string, logger: Logger): { close(): void } {
  const channel = new BroadcastChannel(name);
  channel.unref();
  channel.onmessage = (event) => {
    const entry = (event as unknown as { data: LogEntry }).data;
    logger[entry.level]?.(entry.message, entry.fields);
  };
  return { close: () => channel.close() };
}
