// Whether the build (`npm run build`) is up to date with its inputs, so that the quick start
// builds once and then reuses the build: a fingerprint (SHA-256) of every file the build reads
// (each package's sources without its tests, the web page's browser sources, the package
// manifests, the lock file and the build and TypeScript configurations) is recorded after a
// build, in node_modules/.cache/docqa/build.json, and compared before the next one. The build is
// current when the fingerprint is unchanged and every output the quick start runs exists.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/** Files at the repository root that the build reads. */
const rootInputs = ["package.json", "package-lock.json", "tsconfig.json", "tsup.config.ts"];
/** Folders of each package that the build reads (sources; the web page's browser application). */
const packageFolders = ["src", "browser"];
/** Outputs the quick start runs, relative to the repository root. */
export const requiredOutputs = [
  "packages/cli/dist/bin.js",
  "packages/core/dist/index.js",
  "packages/core/dist/ingestion-worker.js",
  "packages/core/dist/model-worker.js",
  "packages/web-ui/dist/browser/app.js",
];

/** Where the fingerprint of the last build is recorded. */
export function stampPath(root) {
  return join(root, "node_modules", ".cache", "docqa", "build.json");
}

/** Every file under `directory`, recursively, in a stable order; test files and dist folders are left out. */
function filesUnder(directory) {
  if (!existsSync(directory)) return [];
  const found = [];
  for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "dist" && entry.name !== "node_modules") found.push(...filesUnder(path));
    } else if (!/\.test\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The build's input files, relative to `root` with `/` separators, sorted. */
export function buildInputs(root) {
  const files = rootInputs.map((name) => join(root, name)).filter((path) => existsSync(path));
  const packages = join(root, "packages");
  for (const name of existsSync(packages) ? readdirSync(packages).sort() : []) {
    const folder = join(packages, name);
    for (const file of ["package.json", "tsconfig.json"]) if (existsSync(join(folder, file))) files.push(join(folder, file));
    for (const sub of packageFolders) files.push(...filesUnder(join(folder, sub)));
  }
  return files.map((path) => relative(root, path).split(sep).join("/")).sort();
}

/** SHA-256 over each input's path and content. */
export function buildFingerprint(root) {
  const hash = createHash("sha256");
  for (const file of buildInputs(root)) {
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(root, file)))
      .update("\0");
  }
  return hash.digest("hex");
}

/** Whether the recorded build matches the inputs now and its outputs exist. */
export function buildIsCurrent(root) {
  if (!requiredOutputs.every((output) => existsSync(join(root, output)))) return false;
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(stampPath(root), "utf8")).fingerprint;
  } catch {
    return false;
  }
  return recorded === buildFingerprint(root);
}

/** Records the inputs' fingerprint after a successful build. */
export function recordBuild(root) {
  const path = stampPath(root);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ fingerprint: buildFingerprint(root), builtAt: new Date().toISOString() })}\n`);
}
