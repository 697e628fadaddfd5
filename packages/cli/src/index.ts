/**
 * @docqa/cli: the `docqa` command line, also usable programmatically.
 */

export { createCliLogger } from "./cli-logger.js";
export { type FormattableAnswer, formatAnswer } from "./commands/ask-command.js";
export { createProgram } from "./create-program.js";
