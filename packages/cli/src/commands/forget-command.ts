/**
 * `docqa forget`: deletes a user's conversation memory (their session and the threads they
 * created) in an organisation, for privacy requests. Needs the memory store the servers use:
 * Redis (`CACHE_URL`/`CACHE_HOST`); with the in-process default, memory lives and dies with each
 * server process, so there is nothing for a separate command to delete.
 */
import { createRagService, loadConfig } from "@docqa/core";
import { isRedisConfigured } from "@docqa/core/stores";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

interface ForgetOptions {
  org: string;
  user: string;
}

/** Registers `docqa forget`. */
export function registerForgetCommand(program: Command): void {
  program
    .command("forget")
    .description("delete a user's conversation memory (session and threads) in an organisation")
    .requiredOption("--org <id>", "organisation id")
    .requiredOption("--user <email>", "the user's e-mail")
    .action(async (options: ForgetOptions) => {
      const config = loadConfig(process.env);
      if (!isRedisConfigured(config)) {
        process.stderr.write(
          "docqa forget: no shared memory store is configured (CACHE_URL or CACHE_HOST); conversation memory lives in each server process and expires after SESSION_TIMEOUT/THREAD_TIMEOUT\n",
        );
        process.exitCode = 2;
        return;
      }
      const service = createRagService({ config, logger: createCliLogger(config.logging.level === "debug") });
      try {
        const { deleted } = await service.forgetUser({ orgId: options.org, principal: { userName: options.user, roles: [], groups: [] } });
        process.stdout.write(
          `deleted ${deleted} conversation${deleted === 1 ? "" : "s"} of ${options.user.toLowerCase()} in ${options.org}\n`,
        );
      } finally {
        await service.close();
      }
    });
}
