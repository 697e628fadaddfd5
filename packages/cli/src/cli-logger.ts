/**
 * A logger for terminals: warnings and errors as short lines on standard error, info only when
 * verbose. Of the structured fields, `component` and `code` are shown on the line; an error line
 * is followed by the `stack` (and `cause_stack`) it carries, indented, so a failure in `docqa
 * serve` is never logged without its message, code and stack.
 */
import type { Logger } from "@docqa/core";

/** The indented stack lines of a field, or "". */
function stackLines(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  return `${value
    .split("\n")
    .map((line) => `    ${line.trim()}`)
    .join("\n")}\n`;
}

/** Creates the CLI logger. */
export function createCliLogger(verbose = false, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const line = (label: string) => (message: string, fields?: Record<string, unknown>) => {
    const component = fields?.component ? ` [${String(fields.component)}]` : "";
    const code = fields?.code ? ` (${String(fields.code)})` : "";
    const stacks = label === "error" ? `${stackLines(fields?.stack)}${stackLines(fields?.cause_stack)}` : "";
    write(`${label}${component}: ${message}${code}\n${stacks}`);
  };
  const quiet = () => {};
  return { debug: verbose ? line("debug") : quiet, info: verbose ? line("info") : quiet, warn: line("warning"), error: line("error") };
}
