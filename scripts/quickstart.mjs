#!/usr/bin/env node
// The README's quick start: build quietly (once: a build whose inputs have not changed since is
// reused, see build-state.mjs), ingest the example corpus into a fresh data directory with the
// docqa CLI, then ask a question and print the answer with its citations. Retrieval is BM25 only
// unless EMBED_PROVIDER (and EMBED_MODEL_PATH, docs/models.md) say otherwise.
//
//   node scripts/quickstart.mjs ["question"] [--no-build | --rebuild] [--data-dir DIR] [--update-readme | --check-readme]
//
// The build's output is shown only when it fails; --rebuild builds even when the build is current. --update-readme writes the answer it printed into
// README.md between the quickstart-output markers, so the README shows a real run; --check-readme
// exits 1 when the README's copy differs (the CLI tests run it).
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildIsCurrent, recordBuild } from "./build-state.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const docqa = join(root, "packages", "cli", "bin", "docqa.js");
const readme = join(root, "README.md");
const markers = ["<!-- quickstart-output:start -->", "<!-- quickstart-output:end -->"];
const defaultQuestion = "How many vacation days do new employees get?";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const optionValue = (name) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const question = args.find((arg, index) => !arg.startsWith("--") && args[index - 1] !== "--data-dir") ?? defaultQuestion;
const dataDir = optionValue("--data-dir") ?? join(root, "data", "quickstart");

if (flag("--no-build")) {
  // The caller built it.
} else if (!flag("--rebuild") && buildIsCurrent(root)) {
  process.stdout.write("docqa is built and up to date (--rebuild to build anyway)\n");
} else {
  process.stdout.write("building docqa (npm run build, once; later runs reuse it) ... ");
  const started = Date.now();
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, encoding: "utf8", shell: process.platform === "win32" });
  if (build.status !== 0) {
    process.stdout.write("failed\n");
    process.stderr.write(`${build.stdout}${build.stderr}`);
    process.exit(build.status ?? 1);
  }
  recordBuild(root);
  process.stdout.write(`done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

rmSync(dataDir, { recursive: true, force: true });
const run = (...command) => {
  process.stdout.write(`\n$ docqa ${command.map((arg) => (/[\s|]/.test(arg) ? `'${arg}'` : arg)).join(" ")}\n`);
  const output = execFileSync(process.execPath, [docqa, ...command], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    // BM25 only unless an embedding model is configured: no download, and the same answer on every
    // machine (the README shows it).
    env: { ...process.env, DATA_DIR: dataDir, EMBED_PROVIDER: process.env.EMBED_PROVIDER ?? "none" },
  });
  process.stdout.write(output);
  return output;
};

run("ingest", "examples/corpus", "--org", "northwind", "--acl", "|user:_all_|", "--owner", "hr@northwind.example", "--quiet");
const answer = run("ask", "--org", "northwind", "--user", "ann@northwind.example", question);

if (flag("--update-readme") || flag("--check-readme")) {
  if (question !== defaultQuestion) throw new Error("the README shows the answer to the default question only");
  const text = readFileSync(readme, "utf8");
  const start = text.indexOf(markers[0]);
  const end = text.indexOf(markers[1]);
  if (start === -1 || end < start) throw new Error(`README.md has no ${markers.join(" ... ")} block`);
  const block = `${markers[0]}\n\`\`\`\n$ docqa ask --org northwind --user ann@northwind.example "${question}"\n${answer}\`\`\`\n`;
  const updated = text.slice(0, start) + block + text.slice(end);
  if (flag("--update-readme")) {
    writeFileSync(readme, updated);
    process.stdout.write("\nREADME.md: sample output updated\n");
  } else if (updated !== text) {
    process.stderr.write(
      "README.md: the quick start's sample output differs from this run; run `node scripts/quickstart.mjs --update-readme`\n",
    );
    process.exit(1);
  }
}
