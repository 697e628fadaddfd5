/**
 * Child process of `ingestion-then-and-now.ts`: ingests the first `DOCS` SciFact abstracts through
 * the `createRagService()` of the docqa tree given as the first argument (its built
 * `packages/core/dist`), with `upsert` in batches of 500 as `docqa eval` did when the embedding
 * issue was filed, into a new `DATA_DIR`; the embedding model comes from the environment. Prints
 * one JSON line: documents, chunks, seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Core {
  loadConfig(environment: Record<string, string | undefined>): unknown;
  createRagService(options: { config: unknown }): {
    upsert(request: Record<string, unknown>): Promise<{ numChunks?: number }>;
    close(): Promise<void>;
  };
}

const [tree, corpus] = process.argv.slice(2) as [string, string];
const core = (await import(join(tree, "packages", "core", "dist", "index.js"))) as Core;
const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-history-"));
const service = core.createRagService({ config: core.loadConfig({ ...process.env, DATA_DIR: dataDir }) });
const lines = readFileSync(corpus, "utf8")
  .split("\n")
  .filter(Boolean)
  .slice(0, Number(process.env.DOCS ?? 1000));
const principal = { userName: "bench@example.org", roles: ["admin"], groups: [] };
const started = performance.now();
let chunks = 0;
for (let start = 0; start < lines.length; start += 500) {
  const documents: Record<string, { title: string; content: string }> = {};
  for (const line of lines.slice(start, start + 500)) {
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    documents[record._id] = { title: record.title, content: record.text };
  }
  chunks += (await service.upsert({ orgId: "scifact", principal, uploader: principal.userName, documents })).numChunks ?? 0;
}
const seconds = (performance.now() - started) / 1000;
await service.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ documents: lines.length, chunks, seconds }));
