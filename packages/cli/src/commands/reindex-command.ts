/**
 * `docqa reindex`: rebuilds an organisation's vector index with an embedding model (default the
 * configured `EMBED_MODEL_NAME`) while servers keep answering from the live index, with a
 * progress bar (chunks, chunks/s, phase), then switches atomically. Run it after configuring a
 * model for organisations ingested without one, or to move them to another model.
 */
import { createRagService, loadConfig, type ReindexJob } from "@docqa/core";
import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

interface ReindexOptions {
  org: string;
  model?: string;
  dataDir?: string;
  progress: boolean;
  json: boolean;
}

const phaseNames: Record<NonNullable<ReindexJob["phase"]>, string> = {
  copying: "embedding",
  catching_up: "catching up",
  switching: "switching",
  retiring: "retiring the old index",
};

/** Formats a finished job for a terminal. */
export function formatReindexSummary(job: ReindexJob, seconds: number): string {
  const from = job.fromModel ? job.fromModel.id : "no vectors";
  if (job.state === "succeeded") {
    if (job.processed === 0) return `organisation ${job.orgId} already holds vectors of ${job.model.id}: nothing to do\n`;
    return `reindexed organisation ${job.orgId} from ${from} to ${job.model.id} (${job.model.dimension} dimensions): ${job.processed} chunks embedded in ${seconds.toFixed(1)} s (${(job.processed / Math.max(seconds, 0.001)).toFixed(0)} chunks/s); job ${job.jobId}\n`;
  }
  return `reindex of organisation ${job.orgId} to ${job.model.id} failed after ${job.processed} of ${job.total} chunks: ${job.failure ?? "unknown reason"}; the live index is unchanged (job ${job.jobId})\n`;
}

/** Registers `docqa reindex`. */
export function registerReindexCommand(program: Command): void {
  program
    .command("reindex")
    .description(
      "rebuild an organisation's vector index with an embedding model (default EMBED_MODEL_NAME) while it keeps serving, then switch atomically",
    )
    .requiredOption("--org <id>", "organisation id")
    .option("--model <id>", "embedding model to rebuild with, for example Xenova/bge-small-en-v1.5 (default EMBED_MODEL_NAME)")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .option("--no-progress", "do not draw a progress bar")
    .option("--json", "print the job as JSON", false)
    .action(async (options: ReindexOptions) => {
      const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
      const logger = createCliLogger(config.logging.level === "debug");
      const service = createRagService({ config, logger });
      const stop = new AbortController();
      const interrupt = () => stop.abort();
      process.once("SIGINT", interrupt);
      process.once("SIGTERM", interrupt);
      try {
        await service.ready();
        const showProgress = options.progress && process.stderr.isTTY === true;
        const bar = new SingleBar({
          format: "reindexing [{bar}] {value}/{total} chunks | {rate} chunks/s | {phase}",
          hideCursor: true,
        });
        const started = performance.now();
        let barStarted = false;
        const job = await service.reindex(
          { orgId: options.org, model: options.model, signal: stop.signal },
          {
            onProgress: (progress) => {
              if (!showProgress) return;
              const seconds = Math.max((performance.now() - started) / 1000, 0.001);
              const payload = {
                rate: (progress.processed / seconds).toFixed(0),
                phase: progress.phase ? phaseNames[progress.phase] : progress.state,
              };
              if (!barStarted) {
                bar.start(Math.max(progress.total, progress.processed), progress.processed, payload);
                barStarted = true;
              }
              bar.setTotal(Math.max(progress.total, progress.processed));
              bar.update(progress.processed, payload);
            },
          },
        );
        if (barStarted) bar.stop();
        const seconds = (performance.now() - started) / 1000;
        if (options.json) process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
        else process.stdout.write(formatReindexSummary(job, seconds));
        if (job.state !== "succeeded") process.exitCode = 1;
      } finally {
        process.off("SIGINT", interrupt);
        process.off("SIGTERM", interrupt);
        await service.close();
      }
    });
}
