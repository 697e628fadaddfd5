#!/usr/bin/env node
/**
 * Assembles the documents of `examples/evaluation/new-documents-blind.jsonl`: 38 real files of six
 * formats from four public GitHub repositories (Unstructured-IO/unstructured, fivethirtyeight/data,
 * dariusk/corpora, rust-lang/book), none of them in `../shared/data/documents`, listed with their
 * commit, path and git blob id in `examples/evaluation/new-documents-blind.sources.json`.
 *
 * Usage:
 *   node scripts/evaluation/new-documents.mjs <folder>               # download each file at its commit
 *   node scripts/evaluation/new-documents.mjs <folder> --from <dir>  # copy from a local copy instead
 *
 * Every file is checked against its git blob id (SHA-1 of `blob <size>\0<bytes>`, the id git
 * gives it) before it is written, so a changed or truncated download is refused; files already in
 * `<folder>` with the right id are left as they are. Then:
 *
 *   docqa eval examples/evaluation/new-documents-blind.jsonl --documents <folder>
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const manifest = JSON.parse(readFileSync(join(root, "examples/evaluation/new-documents-blind.sources.json"), "utf8"));

const { values, positionals } = parseArgs({ options: { from: { type: "string" } }, allowPositionals: true });
const [target] = positionals;
if (!target) {
  console.error("usage: node scripts/evaluation/new-documents.mjs <folder> [--from <dir>]");
  process.exit(2);
}

/** The git blob id of `bytes`. */
function gitBlobId(bytes) {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The file's bytes from the local copy or from GitHub at its commit. */
async function bytesOf(file) {
  if (values.from) return readFileSync(join(values.from, file.file));
  const url = `https://raw.githubusercontent.com/${file.repo}/${file.commit}/${file.path.split("/").map(encodeURIComponent).join("/")}`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

let written = 0;
for (const file of manifest.files) {
  const destination = join(target, file.file);
  if (existsSync(destination) && gitBlobId(readFileSync(destination)) === file.gitBlob) continue;
  const bytes = await bytesOf(file);
  const id = gitBlobId(bytes);
  if (id !== file.gitBlob)
    throw new Error(`${file.file}: git blob ${id}, expected ${file.gitBlob} (${file.repo}@${file.commit}:${file.path})`);
  mkdirSync(dirname(destination), { recursive: true });
  writeFileSync(destination, bytes);
  written++;
}
console.log(`${manifest.files.length} files in ${target} (${written} written, ${manifest.files.length - written} already there)`);
