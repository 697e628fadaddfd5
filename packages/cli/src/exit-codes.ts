/**
 * The exit codes of `docqa`, the same for every command (docs/cli.md):
 *
 * - 0: everything asked for was done;
 * - 1: usage error (unknown option, missing argument, invalid value or configuration), or an
 *   error that stopped the command (a store or server unreachable, a Node.js that is too old);
 * - 2: partial failure: some items (files, questions) failed or were not found, the others were done;
 * - 3: nothing done: the input is missing or empty (no such file or folder, no supported file, no
 *   question), or every item failed.
 */
import { DocqaError } from "@docqa/core";

/** The exit codes by meaning. */
export const exitCodes = { ok: 0, usage: 1, partial: 2, nothingDone: 3 } as const;

/** One of {@link exitCodes}. */
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** The exit code of a batch of `total` items of which `failed` failed: 0, 2, or 3 when none was done. */
export function batchExitCode(total: number, failed: number): ExitCode {
  if (total === 0 || failed >= total) return exitCodes.nothingDone;
  return failed > 0 ? exitCodes.partial : exitCodes.ok;
}

/** The exit code for an error that stopped a command: 3 for `not_found` (missing input), else 1. */
export function exitCodeForError(error: unknown): ExitCode {
  return DocqaError.isInstance(error) && error.code === "not_found" ? exitCodes.nothingDone : exitCodes.usage;
}
