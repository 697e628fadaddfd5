import type { Logger, LogLevel } from "../logging/logger.js";

/** One line a {@link createRecordingLogger} logger received. */
export interface RecordedLine {
  level: LogLevel;
  message: string;
  /** The line's fields; `{}` when none were given. */
  fields: Record<string, unknown>;
}

/**
 * A logger that keeps every line it receives, at every level, in `lines` (oldest first), for
 * assertions on what a service or a worker thread logged.
 *
 * @example
 * ```ts
 * const logger = createRecordingLogger();
 * createRagService({ config, logger });
 * expect(logger.lines.some((line) => line.message === "documents upserted")).toBe(true);
 * ```
 */
export function createRecordingLogger(): Logger & { lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const at =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, message, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
