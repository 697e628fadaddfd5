#!/usr/bin/env node
// Launcher of the `docqa` executable; the program is built into dist/ by `npm run build`.
// It checks the Node.js version before importing anything: docqa needs the built-in node:sqlite,
// and an older Node.js would otherwise fail with ERR_UNKNOWN_BUILTIN_MODULE and a stack trace.
// Plain JavaScript that any Node.js can parse; the exit code 1 means "cannot run" (docs/cli.md).
import { readFileSync } from "node:fs";
import module from "node:module";

const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const minimum = /(\d+)\.(\d+)\.(\d+)/.exec(engines).slice(1).map(Number);
const current = process.versions.node.split(".").map(Number);
const older =
  current[0] !== minimum[0] ? current[0] < minimum[0] : current[1] !== minimum[1] ? current[1] < minimum[1] : current[2] < minimum[2];
// node:sqlite is built in, without a flag, from Node.js 22.13 (process.getBuiltinModule: 22.3).
const sqlite = !older && typeof process.getBuiltinModule === "function" && process.getBuiltinModule("node:sqlite") !== undefined;
if (older || !sqlite) {
  process.stderr.write(
    `docqa needs Node.js ${minimum.join(".")} or newer (it uses the built-in node:sqlite); this is Node.js ${process.versions.node} at ${process.execPath}.\n` +
      "Install Node.js 22 or 24 (https://nodejs.org/), or in the docqa repository run `source scripts/use-node.sh` to use a local Node.js 24.\n",
  );
  process.exit(1);
}
// Cache compiled code between runs (Node.js >= 22.1): saves about a tenth of a second per start.
module.enableCompileCache?.();
await import("../dist/bin.js");
