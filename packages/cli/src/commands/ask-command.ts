/**
 * `docqa ask`: answers one question as a user of an organisation and prints the answer with its
 * sources.
 */
import { createRagService, loadConfig, type PredictResult } from "@docqa/core";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

interface AskOptions {
  org: string;
  user: string;
  role: string[];
  group: string[];
  json: boolean;
  dataDir?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** What each abstention reason tells the person asking. */
const abstentionExplanations: Record<NonNullable<PredictResult["abstentionReason"]>, string> = {
  no_documents: "no document you may read matched the question (no_documents)",
  low_relevance: "the documents found are not about the question (low_relevance)",
  not_answerable: "the documents are on the subject but do not answer the question (not_answerable)",
};

/** Formats an answer and its sources for a terminal. */
export function formatAnswer(result: PredictResult): string {
  const lines = [result.answer.callout_answer];
  if (result.abstained) lines.push("", `Abstained: ${abstentionExplanations[result.abstentionReason ?? "not_answerable"]}`);
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

/** Registers `docqa ask`. */
export function registerAskCommand(program: Command): void {
  program
    .command("ask")
    .description("answer a question from an organisation's documents, as a user")
    .argument("<question>", "the question")
    .requiredOption("--org <id>", "organisation id")
    .requiredOption("--user <email>", "the asking user's e-mail")
    .option("--role <role>", "a role of the user (repeatable)", collect, [])
    .option("--group <group>", "a group of the user (repeatable)", collect, [])
    .option("--json", "print the /predict response as JSON", false)
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .action(async (question: string, options: AskOptions) => {
      const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
      const service = createRagService({ config, logger: createCliLogger(config.logLevel === "debug") });
      try {
        const result = await service.predict({
          orgId: options.org,
          principal: { userName: options.user, roles: options.role, groups: options.group },
          query: question,
        });
        if (options.json) {
          const { answer, sources, query, originalQuery, input, threadId } = result;
          process.stdout.write(
            `${JSON.stringify({ answer, sources, query, original_query: originalQuery, input, thread_id: threadId }, null, 2)}\n`,
          );
        } else {
          process.stdout.write(formatAnswer(result));
        }
      } finally {
        await service.close();
      }
    });
}
