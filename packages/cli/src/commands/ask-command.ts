/**
 * `docqa ask`: answers one question, or a batch (`--file`, `-` for standard input), as a user of
 * an organisation, in-process over the configured stores or through a running server's set A
 * (`--server`). A batch writes one answer per question (JSON Lines or CSV), shows progress on
 * standard error, and ends with a summary; the exit code tells whether questions failed.
 */
import {
  type AnswerLike,
  askMany,
  type BatchAnswer,
  type BatchPredictor,
  type BatchQuestion,
  createRagService,
  DocqaError,
  loadConfig,
  type PredictResult,
  type Principal,
} from "@docqa/core";
import { type DocumentStores, storesFromConfig } from "@docqa/core/stores";
import { predictResponse } from "@docqa/predict-api";
import type { Command } from "commander";
import {
  type AnswerFormat,
  answeredIds,
  answerFormatFor,
  answerFormats,
  openAnswerWriter,
  type PredictBody,
} from "../batch/answer-writer.js";
import { batchSummaryEvent, formatBatchSummary, summarizeBatch } from "../batch/batch-summary.js";
import { createPredictClient, tokenEmail } from "../batch/predict-client.js";
import { type QuestionFormat, questionFormats, readQuestions } from "../batch/read-questions.js";
import { createCliLogger } from "../cli-logger.js";
import { batchExitCode, exitCodes } from "../exit-codes.js";
import { createProgress, progressMode } from "../progress/progress-reporter.js";

interface AskOptions {
  org?: string;
  user?: string;
  role: string[];
  group: string[];
  json: boolean;
  dataDir?: string;
  file?: string;
  inputFormat?: string;
  output?: string;
  format?: string;
  concurrency: string;
  order: string;
  resume: boolean;
  server?: string;
  token?: string;
  quiet: boolean;
  progress: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

const usage = (message: string) => new DocqaError("invalid_request", message, { component: "ask" });

/** Why the service abstained, as the service result (`abstentionReason`) or a `/predict` body (`abstention_reason`) names it. */
type AbstentionReasonName = NonNullable<PredictResult["abstentionReason"]>;

/** What each abstention reason tells the person asking. */
const abstentionExplanations: Record<AbstentionReasonName, string> = {
  no_documents: "no document you may read matched the question (no_documents)",
  low_relevance: "the documents found are not about the question (low_relevance)",
  not_answerable: "the documents are on the subject but do not answer the question (not_answerable)",
};

/** What {@link formatAnswer} reads: a service result or a `/predict` body. */
export type FormattableAnswer = Pick<PredictResult, "answer" | "sources"> & {
  abstained?: boolean;
  abstentionReason?: AbstentionReasonName | null;
  abstention_reason?: AbstentionReasonName | null;
};

/** Formats an answer and its sources for a terminal (a service result or a `/predict` body). */
export function formatAnswer(result: FormattableAnswer): string {
  const lines = [result.answer.callout_answer];
  if (result.abstained) {
    const reason = result.abstentionReason ?? result.abstention_reason ?? "not_answerable";
    lines.push("", `Abstained: ${abstentionExplanations[reason]}`);
  }
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push("", `${title}:`, ...items.map((item) => `  - ${item}`));
  };
  section("Supporting points", result.answer.positive_list);
  section("Caveats", result.answer.negative_list);
  section("Also relevant", result.answer.info_list);
  if (result.answer.keywords.length > 0) lines.push("", `Keywords: ${result.answer.keywords.join(", ")}`);
  const sources = Object.entries(result.sources);
  lines.push("", sources.length > 0 ? "Sources:" : "Sources: none");
  for (const [key, source] of sources) {
    lines.push(
      `  [${key}] ${source.title} (${String(source.metadata.filename ?? source.metadata.doc_id ?? "")}, chunk ${String(source.metadata.chunk_index ?? "?")})`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Warns on standard error when `orgId` has no documents in `stores` (a typo in `--org` would
 * otherwise answer "No information" without a hint). A store that cannot count is not an error here.
 */
export async function warnIfOrganisationEmpty(
  stores: DocumentStores,
  orgId: string,
  where: string,
  write: (line: string) => void,
): Promise<boolean> {
  const chunks = await stores.keyword.count(orgId).catch(() => undefined);
  if (chunks !== 0) return false;
  write(
    `warning: organisation "${orgId}" has no documents in ${where}: check --org, or ingest documents first (docqa ingest <paths> --org ${orgId})\n`,
  );
  return true;
}

/** What answers the questions: the in-process service or a server, and how to release it. */
interface Answering {
  predictor: BatchPredictor<PredictBody & AnswerLike>;
  orgId: string;
  principal: Principal;
  close(): Promise<void>;
}

async function inProcess(options: AskOptions, note: (line: string) => void): Promise<Answering> {
  if (!options.org) throw usage("--org is required (or use --server with a token, which names the organisation)");
  if (!options.user) throw usage("--user is required: the e-mail of the user whose access rights apply");
  const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
  const logger = createCliLogger(config.logging.level === "debug");
  const stores = await storesFromConfig(config, logger);
  const service = createRagService({ config, logger, stores });
  try {
    const where = stores.description === "embedded" ? `the embedded store (DATA_DIR ${config.stores.dataDir})` : stores.description;
    await warnIfOrganisationEmpty(stores, options.org, where, note);
  } catch (error) {
    await service.close();
    throw error;
  }
  return {
    predictor: { predict: async (request) => predictResponse(await service.predict(request)) },
    orgId: options.org,
    principal: { userName: options.user, roles: options.role, groups: options.group },
    close: () => service.close(),
  };
}

function overHttp(options: AskOptions & { server: string }): Answering {
  const token = options.token ?? process.env.DOCQA_TOKEN;
  if (!token) throw usage("--server needs a bearer token: --token <jwt> or DOCQA_TOKEN (mint one with docqa token)");
  if (options.role.length > 0 || options.group.length > 0 || options.dataDir) {
    throw usage("--role, --group and --data-dir apply in-process only: with --server the token carries the roles and groups");
  }
  const user = options.user ?? tokenEmail(token);
  if (!user) throw usage("--user is required: the token has no email claim");
  return {
    predictor: createPredictClient({ server: options.server, token }),
    orgId: options.org ?? "",
    principal: { userName: user, roles: [], groups: [] },
    close: async () => {},
  };
}

function parseChoice<T extends string>(value: string | undefined, choices: readonly T[], option: string): T | undefined {
  if (value === undefined) return undefined;
  const choice = value.trim().toLowerCase() as T;
  if (!choices.includes(choice)) throw usage(`${option} must be one of ${choices.join(", ")}, not ${JSON.stringify(value)}`);
  return choice;
}

async function askOne(question: string, answering: Answering, options: AskOptions): Promise<void> {
  const body = await answering.predictor.predict({ orgId: answering.orgId, principal: answering.principal, query: question });
  if (options.json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  else process.stdout.write(formatAnswer(body as unknown as FormattableAnswer));
}

async function askBatch(file: string, answering: Answering, options: AskOptions, note: (line: string) => void): Promise<number> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw usage(`--concurrency must be a whole number >= 1, not ${options.concurrency}`);
  const order = parseChoice(options.order, ["input", "completion"] as const, "--order") ?? "input";
  const inputFormat = parseChoice<QuestionFormat>(options.inputFormat, questionFormats, "--input-format");
  const format: AnswerFormat = parseChoice(options.format, answerFormats, "--format") ?? answerFormatFor(options.output);
  if (options.resume && !options.output) throw usage("--resume needs --output: the file whose answered questions are skipped");
  const { questions } = await readQuestions(file, { format: inputFormat });
  if (questions.length === 0) {
    note(`docqa ask: no questions in ${file === "-" ? "standard input" : file}\n`);
    return exitCodes.nothingDone;
  }
  const done = options.resume && options.output ? await answeredIds(options.output, format) : new Set<string>();
  const pending: BatchQuestion[] = questions.filter((question) => !done.has(question.id));
  const writer = await openAnswerWriter(options.output, format, { append: options.resume });
  const progress = createProgress({
    mode: progressMode(options),
    phase: "ask",
    unit: "questions",
    total: pending.length,
    counters: ["answered", "abstained", "failed"],
  });
  const stopping = new AbortController();
  const interrupt = () => stopping.abort(new DocqaError("invalid_request", "interrupted", { component: "ask" }));
  process.once("SIGINT", interrupt);
  const answers: BatchAnswer<PredictBody & AnswerLike>[] = [];
  const counts = { answered: 0, abstained: 0, failed: 0 };
  const started = performance.now();
  let interrupted = false;
  try {
    for await (const answer of askMany(answering.predictor, pending, {
      orgId: answering.orgId,
      principal: answering.principal,
      concurrency,
      order,
      signal: stopping.signal,
    })) {
      await writer.write(answer);
      answers.push(answer);
      counts[answer.outcome]++;
      progress.update({ done: answers.length, counters: counts, current: answer.question.id });
    }
  } catch (error) {
    if (!stopping.signal.aborted) throw error;
    interrupted = true;
  } finally {
    process.off("SIGINT", interrupt);
    progress.stop();
    await writer.close();
  }
  const summary = summarizeBatch(answers, (performance.now() - started) / 1000, questions.length - pending.length);
  if (options.json) process.stderr.write(`${JSON.stringify({ ...batchSummaryEvent(summary), interrupted })}\n`);
  else if (!options.quiet) note(`${formatBatchSummary(summary)}\n`);
  if (interrupted) {
    note(`interrupted after ${answers.length} of ${pending.length} questions; run again with --resume to ask the rest\n`);
    return 130;
  }
  if (pending.length === 0) return exitCodes.ok;
  return batchExitCode(pending.length, summary.failed);
}

/**
 * The note `docqa ask --help` ends with: what answers are made with when nothing is configured,
 * and which settings add a model (`docqa ask` itself says nothing about it on each run).
 */
export const modelsHelp = `
Models: with nothing configured, retrieval is BM25 (keywords) only and answers are extractive
(sentences quoted from the documents), and nothing goes over the network. An embedding model finds
passages by meaning: EMBED_MODEL_PATH=<folder of models> EMBED_MODEL_NAME=<id> EMBED_DIMENSION=<n>
(docs/models.md). A chat model writes the answers: HOSTEDLLM_BASE_URL=<OpenAI-compatible server>
or RAG_LLM_PROVIDER=ollama (docs/model-providers.md).`;

/** Registers `docqa ask`. */
export function registerAskCommand(program: Command): void {
  program
    .command("ask")
    .description(
      "answer a question, or every question of a file (--file), from an organisation's documents as a user; in-process, or through a running server (--server)",
    )
    .argument("[question]", "the question (or give --file)")
    .option("--org <id>", "organisation id (in-process; with --server the token's organisation is asked)")
    .option("--user <email>", "the asking user's e-mail (with --server: default the token's email)")
    .option("--role <role>", "a role of the user, in-process (repeatable)", collect, [])
    .option("--group <group>", "a group of the user, in-process (repeatable)", collect, [])
    .option(
      "--file <path>",
      "ask every question of a file: one per line, JSON Lines {id, question, thread_id?, user?}, or CSV with a header; - reads standard input",
    )
    .option("--input-format <format>", `layout of --file: ${questionFormats.join(", ")} (default: by extension, else by content)`)
    .option("--output <path>", "write the answers to this file (default standard output)")
    .option("--format <format>", `answers as ${answerFormats.join(" or ")} (default: csv for a .csv --output, else jsonl)`)
    .option("--concurrency <n>", "questions answered at the same time", "4")
    .option("--order <order>", "order of the answers: input, or completion (as they finish)", "input")
    .option("--resume", "skip questions that already have an answer in --output and append the others", false)
    .option("--server <url>", "ask a running server's set A (POST /predict) instead of answering in-process")
    .option("--token <jwt>", "bearer token for --server (default $DOCQA_TOKEN; mint one with docqa token)")
    .option("--json", "one question: print the /predict body as JSON; --file: progress and summary as JSON events on standard error", false)
    .option("--quiet", "no progress, notes or summary on standard error", false)
    .option("--no-progress", "no progress bar")
    .option("--data-dir <directory>", "data directory (DATA_DIR), in-process")
    .addHelpText("after", modelsHelp)
    .action(async (question: string | undefined, options: AskOptions) => {
      if ((question === undefined) === (options.file === undefined))
        throw usage("give one question, or --file <path> (- for standard input), not both");
      const note = (line: string) => {
        if (!options.quiet) process.stderr.write(line);
      };
      const answering = options.server ? overHttp({ ...options, server: options.server }) : await inProcess(options, note);
      try {
        if (options.file === undefined) await askOne(question as string, answering, options);
        else process.exitCode = await askBatch(options.file, answering, options, note);
      } finally {
        await answering.close();
      }
    });
}
