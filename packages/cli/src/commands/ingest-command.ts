/**
 * `docqa ingest`: ingests a folder (or files) of TXT and Markdown documents into an
 * organisation of the configured store, with a progress bar and a summary of skipped files.
 */
import { createRagService, DocqaError, type DocumentInput, findFiles, loadConfig, loadTextFile } from "@docqa/core";
import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

/** File extensions this version ingests. */
const supportedExtensions = ["txt", "md"];
/** Files per upsert call (one transaction in the embedded store). */
const filesPerBatch = 16;

interface IngestOptions {
  org: string;
  owner: string;
  acl: string;
  source: string;
  dataDir?: string;
  progress: boolean;
}

/** Registers `docqa ingest`. */
export function registerIngestCommand(program: Command): void {
  program
    .command("ingest")
    .description("ingest TXT and Markdown files (folders are walked recursively) into an organisation")
    .argument("<paths...>", "files or folders")
    .requiredOption("--org <id>", "organisation id")
    .option("--owner <email>", "owner of the documents (metadata.owner_id)", process.env.DOCQA_USER ?? "cli@localhost")
    .option("--acl <acl>", "ACL of the documents, e.g. '|group:hr|'; default readable by everyone in the organisation", "|user:_all_|")
    .option("--source <name>", "source system name (metadata.source)", "docqa-cli")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .option("--no-progress", "do not draw a progress bar")
    .action(async (paths: string[], options: IngestOptions) => {
      const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
      const logger = createCliLogger(config.logLevel === "debug");
      const service = createRagService({ config, logger });
      try {
        await service.ready();
        const health = await service.health();
        if (health.embeddings.status === "unavailable")
          process.stderr.write("note: no embedding model loaded; documents are indexed for BM25 only\n");
        const { files, skipped } = await findFiles(paths, supportedExtensions);
        const started = performance.now();
        const bar = new SingleBar({
          format: "ingesting [{bar}] {value}/{total} files | {chunks} chunks | {rate} files/s",
          hideCursor: true,
        });
        const showProgress = options.progress && process.stderr.isTTY;
        if (showProgress) bar.start(files.length, 0, { chunks: 0, rate: "0.0" });
        let chunks = 0;
        let written = 0;
        let unchanged = 0;
        let done = 0;
        for (let start = 0; start < files.length; start += filesPerBatch) {
          const documents: Record<string, DocumentInput> = {};
          for (const file of files.slice(start, start + filesPerBatch)) {
            try {
              const document = await loadTextFile(file.path);
              document.metadata = { ...document.metadata, source: options.source, owner_id: options.owner, acl: options.acl };
              documents[file.relativePath] = document;
            } catch (error) {
              skipped.push({ path: file.path, reason: DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message });
            }
          }
          if (Object.keys(documents).length > 0) {
            const result = await service.upsert({
              orgId: options.org,
              principal: { userName: options.owner, roles: [], groups: [] },
              uploader: options.owner,
              documents,
            });
            chunks += result.numChunks;
            written += result.written;
            unchanged += result.unchanged;
          }
          done = Math.min(files.length, start + filesPerBatch);
          const seconds = (performance.now() - started) / 1000;
          if (showProgress) bar.update(done, { chunks, rate: (done / Math.max(seconds, 0.001)).toFixed(1) });
        }
        if (showProgress) bar.stop();
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(
          `ingested ${written + unchanged} of ${files.length} files into organisation ${options.org} (${written} written, ${unchanged} unchanged): ${chunks} chunks in ${seconds.toFixed(1)} s (${(chunks / Math.max(seconds, 0.001)).toFixed(0)} chunks/s)\n`,
        );
        process.stdout.write(`owner ${options.owner}, ACL ${options.acl || "(none: owner only)"}\n`);
        if (skipped.length > 0) {
          process.stdout.write(`skipped ${skipped.length} files:\n`);
          for (const file of skipped) process.stdout.write(`  ${file.path}: ${file.reason}\n`);
        }
      } finally {
        await service.close();
      }
    });
}
