/**
 * A minimal structured logger interface, so users can plug in pino, winston or their own.
 * docqa never logs document text, questions, answers or memory contents at `info` or above.
 */

/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** What docqa needs from a logger. `fields` are structured, JSON-serialisable values. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const severity: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * A logger writing one JSON object per line to standard error.
 *
 * @param level - lowest level written; default `info`. `silent` writes nothing.
 * @param write - line sink; default `process.stderr.write`.
 */
export function createConsoleLogger(
  level: LogLevel | "silent" = "info",
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const log = (lineLevel: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (severity[lineLevel] < severity[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lineLevel, msg: message, ...fields })}\n`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** A logger that discards everything. */
export const silentLogger: Logger = createConsoleLogger("silent");
