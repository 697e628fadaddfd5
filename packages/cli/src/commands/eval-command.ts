/**
 * `docqa eval <folder>`: evaluates retrieval on a BEIR-layout folder (nDCG@10, recall@10,
 * recall@100, MRR@10 per configuration) or answers on a SQuAD-layout folder, a JSONL question
 * set with `--documents`, or a table set (`questions.jsonl` + `tables/`, `--split`) with
 * whichever answerer is configured (`answer-evaluation.ts`: exact match and token F1, gold answer
 * in the callout, citation precision, cited callouts, abstention precision and recall, valid
 * JSON, latency, generation tokens/s), on a seeded sample (`--sample`, `--seed`), resumable
 * through `--results` and `--resume`. Progress goes to standard error (documents embedded per
 * second, queries per second, time left); the report, headed by the set, its split and whether it
 * is a tuning or a reporting set, to standard output, or JSON with `--json`, and HTML with
 * `--report <file.html>`. The first hybrid row is the service's own configuration; the index
 * lives in a temporary directory, removed at the end, unless `--data-dir` keeps it for the next run.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { createRagService, findEmbeddingModels, loadConfig, type RagService, resolveConfig } from "@docqa/core";
import {
  checkDenseModel,
  type DenseModelCheck,
  defaultSampleSeed,
  evaluateRetrieval,
  loadBeirDataset,
  type RetrievalConfiguration,
  retrievalConfigurations,
  sampleMethod,
  serviceConfigurationName,
  serviceRetrievalConfiguration,
} from "@docqa/core/evaluation";
import { type Command, InvalidArgumentError } from "commander";
import { type AnswerSetLayout, runAnswerEvaluation } from "../answer-evaluation.js";
import { createCliLogger } from "../cli-logger.js";
import { createEvaluationProgress, type ProgressMode } from "../evaluation-progress.js";
import { answerTable, htmlReport, type RetrievalRow, reportHeader, retrievalTable } from "../evaluation-report.js";

interface EvalOptions {
  configs?: string;
  raptor: boolean;
  limit?: number;
  sample?: number;
  seed?: number;
  split?: string;
  results?: string;
  resume: boolean;
  json: boolean;
  report?: string;
  dataDir?: string;
  modelsDir?: string;
  documents?: string[];
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

/** The answer layout of `path`: a SQuAD folder, a table set folder, a question set file; undefined for none. */
function answerLayout(path: string): AnswerSetLayout | undefined {
  if (existsSync(join(path, "contexts.jsonl")) && existsSync(join(path, "questions.jsonl"))) return "squad";
  if (existsSync(join(path, "questions.jsonl")) && existsSync(join(path, "tables"))) return "tables";
  if (path.endsWith(".jsonl") && existsSync(path)) return "questions";
  return undefined;
}

/** Commander parser of an integer option at least `minimum`. */
function integerOption(minimum: number): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim()) || Number(value) < minimum)
      throw new InvalidArgumentError(`expected an integer of at least ${minimum}`);
    return Number(value);
  };
}

/** Registers `docqa eval`. */
export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description(
      "evaluate retrieval (BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv) or answers (SQuAD folder: contexts.jsonl, questions.jsonl; a table set: questions.jsonl, tables/; or a questions .jsonl file with --documents)",
    )
    .argument("<folder>", "data set folder, or a question set file (.jsonl)")
    .option(
      "--configs <names>",
      `retrieval configurations, comma-separated (${[serviceConfigurationName, ...retrievalConfigurations.map((configuration) => configuration.name)].join(", ")}; ${serviceConfigurationName} is the service's own configuration)`,
    )
    .option("--raptor", "also evaluate with RAPTOR summary nodes (BEIR), or build them (SQuAD)", false)
    .option("--limit <n>", "evaluate the first n queries only (answers: of the sample, when --sample is given)", integerOption(1))
    .option("--sample <n>", "answers: a fixed random sample of n questions (see --seed)", integerOption(0))
    .option("--seed <s>", `answers: seed of --sample (default ${defaultSampleSeed}; ${sampleMethod})`, integerOption(-(2 ** 31)))
    .option("--split <name>", "table set: calibration (the tuning half), report (the reporting half) or all (default)")
    .option("--results <file.jsonl>", "answers: append one line per answered question to this file; the report is computed from it")
    .option("--resume", "answers: continue --results, skipping the questions it already holds", false)
    .option("--json", "print results as JSON", false)
    .option("--report <file>", "write an HTML report with a chart")
    .option(
      "--data-dir <directory>",
      "where to index the data set, kept for the next run (default: a temporary directory, removed at the end)",
    )
    .option("--models-dir <directory>", "where to look for embedding models (default: $DOCQA_MODELS_DIR, then models/ beside the data set)")
    .option("--documents <paths...>", "question set (.jsonl): files and folders to ingest and ask about")
    .option("--no-progress", "do not show progress")
    .option("--quiet", "do not show progress (same as --no-progress)", false)
    .action(async (folder: string, options: EvalOptions) => {
      const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "docqa-eval-"));
      const limit = options.limit;
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
        } else if (answerLayout(folder) !== undefined) {
          const layout = answerLayout(folder) as AnswerSetLayout;
          const answerService = service(options.raptor);
          const run = await runAnswerEvaluation(answerService, {
            layout,
            path: folder,
            documents: options.documents,
            split: options.split,
            sample: options.sample,
            seed: options.seed,
            limit: options.limit,
            results: options.results,
            resume: options.resume,
            onProgress: (phase, done, total) => progress.update(phase, done, total, phase === "ingest" ? "documents" : "questions"),
          });
          progress.stop();
          const runDetails: Record<string, string> = { ...run.details, machine: details.machine as string, date: details.date as string };
          if (options.json)
            process.stdout.write(
              `${JSON.stringify({ layout, details: runDetails, selection: run.selection, ...run.evaluation }, null, 2)}\n`,
            );
          else process.stdout.write(`${reportHeader(runDetails)}\n${answerTable(run.evaluation)}`);
          if (options.report) writeFileSync(options.report, htmlReport("docqa answer evaluation", runDetails, [], run.evaluation));
        } else {
          throw new Error(
            `${folder} is neither a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) nor a SQuAD folder (contexts.jsonl, questions.jsonl) nor a table set (questions.jsonl, tables/) nor a question set (.jsonl)`,
          );
        }
      } finally {
        progress.stop();
        for (const created of services) await created.close();
        if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      }
    });
}
