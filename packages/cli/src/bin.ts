#!/usr/bin/env node
/**
 * Entry point of the `docqa` executable.
 */
import { DocqaError } from "@docqa/core";
import { createProgram } from "./create-program.js";

createProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(
      `docqa: ${DocqaError.isInstance(error) ? `${error.publicMessage} (${error.code})` : ((error as Error).stack ?? String(error))}\n`,
    );
    process.exit(1);
  });
