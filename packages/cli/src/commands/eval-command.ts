/**
 * `docqa eval <folder>`: evaluates retrieval on a BEIR-layout folder (nDCG@10, recall@10,
 * recall@100, MRR@10 per configuration) or answers on a SQuAD-layout folder (gold paragraph
 * retrieved and cited, gold answer in the answer, abstention precision and recall), with
 * progress on standard error (documents embedded per second, queries per second, time left), a
 * table on standard output, `--json`, and `--report <file.html>`. The first hybrid row is the
 * service's own configuration; the index lives in a temporary directory, removed at the end,
 * unless `--data-dir` keeps it for the next run.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { createRagService, findEmbeddingModels, loadConfig, type RagService, resolveConfig } from "@docqa/core";
import {
  checkDenseModel,
  type DenseModelCheck,
  evaluateAnswers,
  evaluateRetrieval,
  loadBeirDataset,
  loadSquadDataset,
  type RetrievalConfiguration,
  retrievalConfigurations,
  serviceConfigurationName,
  serviceRetrievalConfiguration,
} from "@docqa/core/evaluation";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";
import { createEvaluationProgress, type ProgressMode } from "../evaluation-progress.js";
import { answerTable, htmlReport, type RetrievalRow, retrievalTable } from "../evaluation-report.js";

interface EvalOptions {
  configs?: string;
  raptor: boolean;
  limit?: string;
  json: boolean;
  report?: string;
  dataDir?: string;
  modelsDir?: string;
  progress: boolean;
  quiet: boolean;
}

/** Documents per upsert when building an index without RAPTOR (where the batch does not matter): one progress step. */
const ingestionBatch = 100;

/** Model directories `docqa eval` searches: `--models-dir`, `$DOCQA_MODELS_DIR`, and a `models/` folder beside the data set or its parents. */
function modelDirectories(folder: string, modelsDir: string | undefined): string[] {
  const directories = [modelsDir, process.env.DOCQA_MODELS_DIR].filter((directory): directory is string => directory !== undefined);
  let current = resolve(folder);
  for (let level = 0; level < 3; level += 1) {
    current = dirname(current);
    directories.push(join(current, "models"));
  }
  return directories;
}

/**
 * The environment of the evaluated service. Unless `EMBED_MODEL_PATH` is set or embeddings are
 * off (`EMBED_PROVIDER=none`), an embedding model found on disk is used (the configured
 * `EMBED_MODEL_NAME` when present, otherwise the first found), so the dense model check runs
 * against real vectors with no download. `EMBED_DTYPE` is left as configured (`auto` picks the
 * weights file present).
 */
function evaluationEnvironment(folder: string, options: EvalOptions, dataDir: string): Record<string, string | undefined> {
  const environment: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir };
  if (environment.EMBED_MODEL_PATH || environment.EMBED_PROVIDER === "none") return environment;
  const wanted = environment.EMBED_MODEL_NAME;
  const model = findEmbeddingModels(modelDirectories(folder, options.modelsDir), wanted ? [wanted] : [])[0];
  if (!model) return environment;
  return {
    ...environment,
    EMBED_MODEL_NAME: model.id,
    EMBED_MODEL_PATH: model.root,
    EMBED_DIMENSION: String(model.dimension),
  };
}

function describeCheck(check: DenseModelCheck): string {
  if (check.status === "unknown")
    return `dense model check: no published figure for ${check.model} on ${check.dataset} (measured nDCG@10 ${check.measured.toFixed(4)})`;
  return `dense model check ${check.status}: ${check.model} on ${check.dataset} nDCG@10 ${check.measured.toFixed(4)}, published ${check.published.toFixed(4)} (${check.source}), tolerance ${check.tolerance}`;
}

/** Bar on a terminal, JSON lines with `--json`, nothing with `--quiet`, `--no-progress` or without a terminal. */
function progressMode(options: EvalOptions): ProgressMode {
  if (options.quiet || !options.progress) return "off";
  if (options.json) return "json";
  return process.stderr.isTTY === true ? "bar" : "off";
}

/** The configurations to run: the requested ones in the order given, else the defaults (the service's first among the hybrids). */
function chooseConfigurations(service: RetrievalConfiguration, options: EvalOptions, useReranker: boolean): RetrievalConfiguration[] {
  const all = [...retrievalConfigurations.slice(0, 2), service, ...retrievalConfigurations.slice(2)];
  const requested = options.configs?.split(",").map((name) => name.trim());
  if (requested) {
    const unknown = requested.filter((name) => !all.some((configuration) => configuration.name === name));
    if (unknown.length > 0) throw new Error(`unknown configuration(s): ${unknown.join(", ")}`);
    return all.filter((configuration) => requested.includes(configuration.name));
  }
  return all.filter((configuration) => {
    if (configuration.raptor && !options.raptor) return false;
    if (configuration.rerank && configuration !== service && !useReranker) return false;
    return true;
  });
}

/** Registers `docqa eval`. */
export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description(
      "evaluate retrieval (BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv) or answers (SQuAD folder: contexts.jsonl, questions.jsonl)",
    )
    .argument("<folder>", "data set folder")
    .option(
      "--configs <names>",
      `retrieval configurations, comma-separated (${[serviceConfigurationName, ...retrievalConfigurations.map((configuration) => configuration.name)].join(", ")}; ${serviceConfigurationName} is the service's own configuration)`,
    )
    .option("--raptor", "also evaluate with RAPTOR summary nodes (BEIR), or build them (SQuAD)", false)
    .option("--limit <n>", "evaluate the first n queries only")
    .option("--json", "print results as JSON", false)
    .option("--report <file>", "write an HTML report with a chart")
    .option(
      "--data-dir <directory>",
      "where to index the data set, kept for the next run (default: a temporary directory, removed at the end)",
    )
    .option("--models-dir <directory>", "where to look for embedding models (default: $DOCQA_MODELS_DIR, then models/ beside the data set)")
    .option("--no-progress", "do not show progress")
    .option("--quiet", "do not show progress (same as --no-progress)", false)
    .action(async (folder: string, options: EvalOptions) => {
      const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "docqa-eval-"));
      const limit = options.limit === undefined ? undefined : Number.parseInt(options.limit, 10);
      const progress = createEvaluationProgress(progressMode(options));
      const logger = createCliLogger(false);
      const services: RagService[] = [];
      const service = (useRaptor: boolean) => {
        const created = createRagService({
          config: resolveConfig({ ingestion: { useRaptor } }, loadConfig(evaluationEnvironment(folder, options, dataDir))),
          logger,
        });
        services.push(created);
        return created;
      };
      const details: Record<string, string> = {
        "data set": folder,
        machine: `${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}`,
        date: new Date().toISOString(),
      };
      try {
        if (existsSync(join(folder, "corpus.jsonl"))) {
          const dataset = await loadBeirDataset(folder);
          const base = service(false);
          await base.ready();
          const health = await base.health();
          const hasVectors = health.embeddings.status === "ready";
          details["embedding model"] = hasVectors
            ? health.embeddings.model
            : `none (${health.embeddings.status}): vector configurations skipped`;
          const chosen = chooseConfigurations(serviceRetrievalConfiguration(base.config), options, base.config.retrieval.useReranker);
          const missingReranker = chosen.filter((configuration) => configuration.rerank && health.reranker === null);
          if (missingReranker.length > 0) {
            throw new Error(
              `${missingReranker.map((configuration) => configuration.name).join(", ")} needs a reranker, and none is loaded: set USE_RERANKER=true and RERANKER_MODEL_PATH to a directory holding ${base.config.retrieval.rerankerModelName} (see the warning above), or leave the configuration out`,
            );
          }
          const rows: RetrievalRow[] = [];
          const ingested = new Set<string>();
          const raptorService = chosen.some((configuration) => configuration.raptor) ? service(true) : undefined;
          for (const configuration of chosen) {
            if (configuration.needsVectors && !hasVectors) {
              process.stderr.write(`skipping ${configuration.name}: no embedding model\n`);
              continue;
            }
            const target = configuration.raptor ? (raptorService as RagService) : base;
            const orgId = configuration.raptor ? "eval-raptor" : "eval";
            const result = await evaluateRetrieval(target, dataset, {
              orgId,
              limit,
              batchSize: configuration.raptor ? undefined : ingestionBatch,
              skipIngestion: ingested.has(orgId),
              retrieval: configuration.retrieval,
              rerank: configuration.rerank,
              onProgress: (phase, done, total) =>
                progress.update(`${configuration.name}: ${phase}`, done, total, phase === "ingest" ? "documents" : "queries"),
            });
            ingested.add(orgId);
            const { rankings: _rankings, ...metrics } = result;
            rows.push({
              name: configuration.name,
              description: configuration.description,
              metrics,
              msPerQuery: result.queryMs / Math.max(1, result.queries),
            });
          }
          progress.stop();
          const vectorRow = rows.find((row) => row.name === "vector");
          const denseModelCheck =
            vectorRow && health.embeddings.status === "ready"
              ? checkDenseModel(health.embeddings.model, basename(resolve(folder)), vectorRow.metrics.ndcgAt10)
              : undefined;
          if (options.json)
            process.stdout.write(`${JSON.stringify({ layout: "beir", details, results: rows, denseModelCheck }, null, 2)}\n`);
          else process.stdout.write(retrievalTable(rows));
          if (denseModelCheck) {
            process.stderr.write(`${describeCheck(denseModelCheck)}\n`);
            if (denseModelCheck.status === "failed") process.exitCode = 3;
          }
          if (options.report) writeFileSync(options.report, htmlReport("docqa retrieval evaluation", details, rows));
        } else if (existsSync(join(folder, "contexts.jsonl")) && existsSync(join(folder, "questions.jsonl"))) {
          const dataset = await loadSquadDataset(folder);
          const answerService = service(options.raptor);
          const result = await evaluateAnswers(answerService, dataset, {
            limit,
            onProgress: (phase, done, total) => progress.update(phase, done, total, phase === "ingest" ? "documents" : "questions"),
          });
          progress.stop();
          details.answerer = (await answerService.health()).answerer;
          if (options.json) process.stdout.write(`${JSON.stringify({ layout: "squad", details, ...result }, null, 2)}\n`);
          else process.stdout.write(answerTable(result));
          if (options.report) writeFileSync(options.report, htmlReport("docqa answer evaluation", details, [], result));
        } else {
          throw new Error(
            `${folder} is neither a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) nor a SQuAD folder (contexts.jsonl, questions.jsonl)`,
          );
        }
      } finally {
        progress.stop();
        for (const created of services) await created.close();
        if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      }
    });
}
