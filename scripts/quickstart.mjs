#!/usr/bin/env node
// The README's quick start: ingest the example corpus into a fresh data directory with the
// docqa CLI, then ask a question and print the answer with its citations. Needs `npm run build`.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const docqa = join(root, "packages", "cli", "bin", "docqa.js");
const dataDir = join(root, "data", "quickstart");
const question = process.argv[2] ?? "How many vacation days do new employees get?";

rmSync(dataDir, { recursive: true, force: true });
const run = (...args) => {
  process.stdout.write(`\n$ docqa ${args.map((arg) => (/\s/.test(arg) ? JSON.stringify(arg) : arg)).join(" ")}\n`);
  execFileSync(process.execPath, [docqa, ...args], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, DATA_DIR: dataDir },
  });
};

run("ingest", "examples/corpus", "--org", "northwind", "--acl", "|user:_all_|", "--owner", "hr@northwind.example");
run("ask", "--org", "northwind", "--user", "ann@northwind.example", question);
