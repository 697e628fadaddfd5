/**
 * The `docqa` command line: `serve`, `ingest`, `ask`, `token`, `eval`, `forget`, `reindex`, `documents`, `models`.
 */
import { Command } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { registerAskCommand } from "./commands/ask-command.js";
import { registerDocumentsCommand } from "./commands/documents-command.js";
import { registerEvalCommand } from "./commands/eval-command.js";
import { registerForgetCommand } from "./commands/forget-command.js";
import { registerIngestCommand } from "./commands/ingest-command.js";
import { registerModelsCommand } from "./commands/models-command.js";
import { registerReindexCommand } from "./commands/reindex-command.js";
import { registerServeCommand } from "./commands/serve-command.js";
import { registerTokenCommand } from "./commands/token-command.js";

/** Builds the `docqa` program. Configuration comes from the environment (see docs/configuration.md). */
export function createProgram(): Command {
  const program = new Command()
    .name("docqa")
    .description("Question answering over your organisation's documents, with citations and access control.")
    .version(packageJson.version)
    .showHelpAfterError();
  registerServeCommand(program);
  registerIngestCommand(program);
  registerAskCommand(program);
  registerTokenCommand(program);
  registerEvalCommand(program);
  registerForgetCommand(program);
  registerReindexCommand(program);
  registerDocumentsCommand(program);
  registerModelsCommand(program);
  return program;
}
