#!/usr/bin/env node
/**
 * Entry point of the `docqa` executable (after `bin/docqa.js` checked the Node.js version): runs
 * the program and turns an error that stops a command into a one-line message and an exit code
 * (see exit-codes.ts).
 */
import { DocqaError } from "@docqa/core";
import { createProgram } from "./create-program.js";
import { exitCodeForError } from "./exit-codes.js";

createProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(
      `docqa: ${DocqaError.isInstance(error) ? `${error.publicMessage} (${error.code})` : ((error as Error).stack ?? String(error))}\n`,
    );
    process.exit(exitCodeForError(error));
  });
