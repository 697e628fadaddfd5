/**
 * `docqa ingest`: ingests files and folders (any extension of `supportedExtensions`) into an
 * organisation of the configured store, on the service's ingestion worker threads, with progress
 * on standard error (with an embedding model: chunks embedded of the chunks planned, files,
 * chunks per second, chunks reused from the embedding cache, and an ETA by chunks) and a summary of
 * unchanged, skipped and rejected files. The exit code says whether every file was ingested (0),
 * some failed or were not found (2), or nothing was ingested (3).
 */
import { stat } from "node:fs/promises";
import { createRagService, DocqaError, type IngestionJob, loadConfig } from "@docqa/core";
import { findFiles, type SkippedFile, supportedExtensions, supportedFormats } from "@docqa/core/ingestion";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";
import { cliAuditLog, cliPrincipal } from "../cli-principal.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { ingestionProgress, ingestionProgressLayout } from "../progress/ingestion-progress.js";
import { createProgress, type ProgressReporter, progressMode } from "../progress/progress-reporter.js";

interface IngestOptions {
  org: string;
  as?: string;
  owner?: string;
  acl?: string;
  source: string;
  dataDir?: string;
  progress: boolean;
  json: boolean;
  quiet: boolean;
}

/** The ACL that shares documents with every user of the organisation (spec rule 3). */
export const organisationAcl = "|user:_all_|";

/** Who may read the ingested documents, in words, for the summary. */
export function describeAccess(owner: string, acl: string | undefined): string {
  if (!acl) return `owner ${owner}, no ACL: only the owner may read (share with --acl '${organisationAcl}' or '|group:<g>|role:<r>|')`;
  return `owner ${owner}, ACL ${acl}${acl.replaceAll(" ", "").includes("user:_all_") ? " (everyone in the organisation)" : ""}`;
}

/** Formats a finished job for a terminal. */
export function formatJobSummary(
  job: IngestionJob,
  seconds: number,
  skipped: { path: string; reason: string }[],
  options: { org: string; owner: string; acl?: string | undefined },
): string {
  const lines = [
    `ingested ${job.files.ingested + job.files.unchanged} of ${job.files.total} files into organisation ${options.org} (${job.files.ingested} written, ${job.files.unchanged} unchanged, ${job.files.failed} rejected): ${job.documents} documents, ${job.chunks} chunks in ${seconds.toFixed(1)} s (${(job.chunks / Math.max(seconds, 0.001)).toFixed(0)} chunks/s, ${(job.files.total / Math.max(seconds, 0.001)).toFixed(1)} files/s)`,
    `${describeAccess(options.owner, options.acl)}; job ${job.jobId} ${job.state}`,
  ];
  const problems = [
    ...skipped.map((file) => `  ${file.path}: ${file.reason}`),
    ...job.errors.map((error) => `  ${error.file}: ${error.message} (${error.code})`),
  ];
  if (problems.length > 0) lines.push(`skipped or rejected ${problems.length} files:`, ...problems);
  if (job.warnings.length > 0) lines.push("warnings:", ...job.warnings.map((warning) => `  ${warning.file}: ${warning.message}`));
  return `${lines.join("\n")}\n`;
}

/**
 * The exit code of an ingestion: 3 when nothing was ingested (no file found, or every file
 * rejected), 2 when some files were rejected or some given paths do not exist, else 0. Files of
 * an unsupported type inside a folder are reported but do not count as failures.
 */
export function ingestExitCode(job: Pick<IngestionJob, "files"> | undefined, skipped: readonly SkippedFile[]): ExitCode {
  const succeeded = job ? job.files.ingested + job.files.unchanged : 0;
  if (succeeded === 0) return exitCodes.nothingDone;
  const missing = skipped.some((file) => file.reason === "not found");
  return (job?.files.failed ?? 0) > 0 || missing ? exitCodes.partial : exitCodes.ok;
}

/** Registers `docqa ingest`. */
export function registerIngestCommand(program: Command): void {
  program
    .command("ingest")
    .description(`ingest files and folders (walked recursively) into an organisation; formats: ${supportedFormats.join(", ")}`)
    .argument("<paths...>", "files or folders")
    .requiredOption("--org <id>", "organisation id")
    .option("--owner <email>", "owner of the documents (metadata.owner_id), who may always read them (default $DOCQA_USER)")
    .option("--as <email>", "the administrator the import is recorded as in the audit log (default $DOCQA_USER, else cli@localhost)")
    .option(
      "--acl <acl>",
      `who else may read the documents, e.g. '${organisationAcl}' (everyone in the organisation) or '|group:hr|role:manager|'; default none: only the owner (spec rule 7)`,
    )
    .option("--source <name>", "source system name (metadata.source)", "docqa-cli")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .option("--json", "print the job as JSON, and progress as JSON events on standard error", false)
    .option("--quiet", "no progress and no notes on standard error", false)
    .option("--no-progress", "do not draw a progress bar")
    .action(async (paths: string[], options: IngestOptions) => {
      const owner = options.owner ?? process.env.DOCQA_USER;
      if (!owner && !options.acl) {
        throw new DocqaError(
          "invalid_request",
          `without --acl only the owner may read the documents, and no owner is given: add --owner <email> (the user who may read them) or --acl '${organisationAcl}' (everyone in organisation ${options.org})`,
          { component: "ingest" },
        );
      }
      const ownerId = owner ?? "cli@localhost";
      const note = (line: string) => {
        if (!options.quiet) process.stderr.write(line);
      };
      const { files, skipped } = await findFiles(paths, supportedExtensions);
      if (files.length === 0) {
        for (const file of skipped) note(`  ${file.path}: ${file.reason}\n`);
        note(`docqa ingest: no file to ingest in ${paths.join(", ")}\n`);
        if (options.json) process.stdout.write(`${JSON.stringify({ state: "nothing_to_do", skipped }, null, 2)}\n`);
        process.exitCode = exitCodes.nothingDone;
        return;
      }
      const sizes = new Map(await Promise.all(files.map(async (file) => [file.path, (await stat(file.path)).size] as const)));
      const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
      const logger = createCliLogger(config.logging.level === "debug");
      // The service's own embedding model, so that files are ingested by its pool of worker
      // threads (each a model, sharing large files' embedding work); progress comes from the job.
      const service = createRagService({ config, logger, audit: cliAuditLog(config) });
      const started = performance.now();
      let progress: ProgressReporter | undefined;
      let result: IngestionJob;
      try {
        await service.ready();
        const health = await service.health();
        const embedding = health.embeddings.status === "ready";
        if (!embedding) note("note: no embedding model loaded; documents are indexed for BM25 only\n");
        const tracker = ingestionProgress(sizes, embedding);
        const reporter = createProgress({
          mode: progressMode(options),
          phase: "ingest",
          ...ingestionProgressLayout(embedding),
          total: embedding ? 0 : files.length,
        });
        progress = reporter;
        result = await service.ingestFiles(
          {
            orgId: options.org,
            // An administrator's bulk import: the write rules let it set the owner and replace any document.
            principal: cliPrincipal(config, options.as),
            uploader: ownerId,
            files: files.map((file) => ({ path: file.path, docId: file.relativePath })),
            metadata: { source: options.source, owner_id: ownerId, ...(options.acl ? { acl: options.acl } : {}) },
          },
          {
            // With a model, each file is read and split first, so the ETA counts every file's chunks.
            plan: embedding,
            onProgress: (state, file, throughput) => reporter.update(tracker.update(state, file, throughput)),
          },
        );
      } finally {
        progress?.stop();
        await service.close();
      }
      const seconds = (performance.now() - started) / 1000;
      if (options.json) process.stdout.write(`${JSON.stringify({ ...result, skipped }, null, 2)}\n`);
      else process.stdout.write(formatJobSummary(result, seconds, skipped, { org: options.org, owner: ownerId, acl: options.acl }));
      process.exitCode = ingestExitCode(result, skipped);
    });
}
