/**
 * `docqa ingest`: ingests files and folders (PDF, DOCX, TXT, MD, JSON, CSV) into an
 * organisation of the configured store, with a progress bar (files/s, chunks embedded per second,
 * chunks reused from the embedding cache) and a summary of unchanged, skipped and rejected files.
 */
import { createRagService, findFiles, type IngestionJob, loadConfig, supportedFormats } from "@docqa/core";
import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

interface IngestOptions {
  org: string;
  owner: string;
  acl: string;
  source: string;
  dataDir?: string;
  progress: boolean;
  json: boolean;
}

/** Formats a finished job for a terminal. */
export function formatJobSummary(
  job: IngestionJob,
  seconds: number,
  skipped: { path: string; reason: string }[],
  options: Pick<IngestOptions, "org" | "owner" | "acl">,
): string {
  const lines = [
    `ingested ${job.files.ingested + job.files.unchanged} of ${job.files.total} files into organisation ${options.org} (${job.files.ingested} written, ${job.files.unchanged} unchanged, ${job.files.failed} rejected): ${job.documents} documents, ${job.chunks} chunks in ${seconds.toFixed(1)} s (${(job.chunks / Math.max(seconds, 0.001)).toFixed(0)} chunks/s, ${(job.files.total / Math.max(seconds, 0.001)).toFixed(1)} files/s)`,
    `owner ${options.owner}, ACL ${options.acl || "(none: owner only)"}; job ${job.jobId} ${job.state}`,
  ];
  const problems = [
    ...skipped.map((file) => `  ${file.path}: ${file.reason}`),
    ...job.errors.map((error) => `  ${error.file}: ${error.message} (${error.code})`),
  ];
  if (problems.length > 0) lines.push(`skipped or rejected ${problems.length} files:`, ...problems);
  if (job.warnings.length > 0) lines.push("warnings:", ...job.warnings.map((warning) => `  ${warning.file}: ${warning.message}`));
  return `${lines.join("\n")}\n`;
}

/** Registers `docqa ingest`. */
export function registerIngestCommand(program: Command): void {
  program
    .command("ingest")
    .description(`ingest files and folders (walked recursively) into an organisation; formats: ${supportedFormats.join(", ")}`)
    .argument("<paths...>", "files or folders")
    .requiredOption("--org <id>", "organisation id")
    .option("--owner <email>", "owner of the documents (metadata.owner_id)", process.env.DOCQA_USER ?? "cli@localhost")
    .option("--acl <acl>", "ACL of the documents, e.g. '|group:hr|'; default readable by everyone in the organisation", "|user:_all_|")
    .option("--source <name>", "source system name (metadata.source)", "docqa-cli")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .option("--no-progress", "do not draw a progress bar")
    .option("--json", "print the job as JSON", false)
    .action(async (paths: string[], options: IngestOptions) => {
      const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
      const logger = createCliLogger(config.logLevel === "debug");
      const service = createRagService({ config, logger });
      try {
        await service.ready();
        const health = await service.health();
        if (health.embeddings.status === "unavailable")
          process.stderr.write("note: no embedding model loaded; documents are indexed for BM25 only\n");
        const { files, skipped } = await findFiles(paths, [...supportedFormats, "markdown", "ndjson", "jsonl"]);
        const started = performance.now();
        const showProgress = options.progress && process.stderr.isTTY === true;
        const bar = new SingleBar({
          format:
            "ingesting [{bar}] {value}/{total} files | {files_rate} files/s | {chunks} chunks | embedding {embed_rate} chunks/s ({cached} cached) | {file}",
          hideCursor: true,
        });
        if (showProgress) bar.start(files.length, 0, { files_rate: "0.0", chunks: 0, embed_rate: "0", cached: 0, file: "" });
        const job = await service.ingestFiles(
          {
            orgId: options.org,
            principal: { userName: options.owner, roles: [], groups: [] },
            uploader: options.owner,
            files: files.map((file) => ({ path: file.path, docId: file.relativePath })),
            metadata: { source: options.source, owner_id: options.owner, acl: options.acl },
          },
          {
            onProgress: (progress, file, throughput) => {
              if (!showProgress) return;
              const seconds = Math.max((performance.now() - started) / 1000, 0.001);
              bar.update(progress.files.processed, {
                files_rate: (progress.files.processed / seconds).toFixed(1),
                chunks: progress.chunks,
                embed_rate: throughput.chunksPerSecond.toFixed(1),
                cached: throughput.cachedChunks,
                file: file.split(/[\\/]/).at(-1) ?? "",
              });
            },
          },
        );
        if (showProgress) bar.stop();
        const seconds = (performance.now() - started) / 1000;
        if (options.json) process.stdout.write(`${JSON.stringify({ ...job, skipped }, null, 2)}\n`);
        else process.stdout.write(formatJobSummary(job, seconds, skipped, options));
        if (job.state === "failed") process.exitCode = 1;
      } finally {
        await service.close();
      }
    });
}
