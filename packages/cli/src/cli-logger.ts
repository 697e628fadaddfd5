/**
 * A logger for terminals: warnings and errors as short lines on standard error, info only when
 * verbose. Structured fields are omitted except `component`.
 */
import type { Logger } from "@docqa/core";

/** Creates the CLI logger. */
export function createCliLogger(verbose = false, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const line = (label: string) => (message: string, fields?: Record<string, unknown>) =>
    write(`${label}${fields?.component ? ` [${String(fields.component)}]` : ""}: ${message}\n`);
  const quiet = () => {};
  return { debug: verbose ? line("debug") : quiet, info: verbose ? line("info") : quiet, warn: line("warning"), error: line("error") };
}
