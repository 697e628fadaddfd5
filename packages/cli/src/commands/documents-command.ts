/**
 * `docqa documents list|show|delete`: the documents of an organisation, read from the registry
 * (id, title, owner, ACL, source, type, chunk count, update time; never content), and their
 * deletion with every chunk, vector, full-text entry and summary built from them. The command
 * acts as an administrator unless `--role` says otherwise (see `cli-principal.ts`).
 */
import { createRagService, DocqaError, type DocumentSummary, loadConfig, type RagService } from "@docqa/core";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";
import { cliAuditLog, cliPrincipal } from "../cli-principal.js";

interface CommonOptions {
  org: string;
  as?: string;
  role: string[];
  dataDir?: string;
  json: boolean;
}

interface ListOptions extends CommonOptions {
  source?: string;
  type?: string;
  owner?: string;
  limit: string;
  cursor?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Formats documents as aligned columns for a terminal. */
export function formatDocuments(documents: readonly DocumentSummary[]): string {
  const rows = [
    ["ID", "OWNER", "ACL", "CHUNKS", "UPDATED", "TITLE"],
    ...documents.map((document) => [
      document.docId,
      document.ownerId || "-",
      document.acl || "(owner only)",
      String(document.chunkCount),
      document.updatedAt.replace(/\.\d{3}Z$/, "Z"),
      document.title,
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length))) ?? [];
  return `${rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] as number))).join("  ")).join("\n")}\n`;
}

/** Runs `work` on a service of the configured stores, closing it afterwards. */
async function withService<T>(
  options: CommonOptions,
  work: (service: RagService, principal: ReturnType<typeof cliPrincipal>) => Promise<T>,
) {
  const config = loadConfig({ ...process.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}) });
  const service = createRagService({
    config,
    embeddings: null,
    logger: createCliLogger(config.logging.level === "debug"),
    audit: cliAuditLog(config),
  });
  try {
    return await work(service, cliPrincipal(config, options.as, options.role));
  } finally {
    await service.close();
  }
}

/** Adds the options every `documents` subcommand takes. */
function common(command: Command): Command {
  return command
    .requiredOption("--org <id>", "organisation id")
    .option("--as <email>", "act as this user (default DOCQA_USER, else cli@localhost)")
    .option("--role <role>", "act with this role instead of the administrator's (repeatable)", collect, [])
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .option("--json", "print JSON", false);
}

/** Registers `docqa documents`. */
export function registerDocumentsCommand(program: Command): void {
  const documents = program.command("documents").description("list, show and delete the documents of an organisation");

  common(documents.command("list").description("list documents (all of them as an administrator; else those the user may read)"))
    .option("--source <source>", "only documents with this metadata.source")
    .option("--type <type>", "only documents of this type, for example pdf")
    .option("--owner <email>", "only documents owned by this user")
    .option("--limit <n>", "page size, 1 to 1000", "50")
    .option("--cursor <cursor>", "the next cursor printed by the previous page")
    .action(async (options: ListOptions) => {
      await withService(options, async (service, principal) => {
        const page = await service.listDocuments({
          orgId: options.org,
          principal,
          source: options.source,
          type: options.type,
          ownerId: options.owner,
          limit: Number(options.limit),
          cursor: options.cursor,
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
          return;
        }
        process.stdout.write(page.documents.length === 0 ? "no documents\n" : formatDocuments(page.documents));
        if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
      });
    });

  common(documents.command("show").description("show one document").argument("<doc-id>", "the document id")).action(
    async (docId: string, options: CommonOptions) => {
      await withService(options, async (service, principal) => {
        const document = await service.getDocument({ orgId: options.org, principal }, docId);
        if (!document) {
          process.stderr.write(`docqa documents show: no document ${JSON.stringify(docId)} in organisation ${options.org}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(options.json ? `${JSON.stringify(document, null, 2)}\n` : formatDocuments([document]));
      });
    },
  );

  common(
    documents
      .command("delete")
      .description("delete documents with every chunk, vector, full-text entry and summary built from them")
      .argument("<doc-ids...>", "the document ids"),
  ).action(async (docIds: string[], options: CommonOptions) => {
    await withService(options, async (service, principal) => {
      const results: { docId: string; chunks?: number; summaries?: number; error?: string; code?: string }[] = [];
      for (const docId of docIds) {
        try {
          const result = await service.deleteDocument({ orgId: options.org, principal }, docId);
          results.push({ docId, chunks: result.chunks, summaries: result.summaries });
        } catch (error) {
          if (!DocqaError.isInstance(error) || (error.code !== "not_found" && error.code !== "forbidden")) throw error;
          results.push({ docId, error: error.publicMessage, code: error.code });
          process.exitCode = 1;
        }
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
        return;
      }
      for (const result of results) {
        process.stdout.write(
          result.error
            ? `not deleted ${result.docId}: ${result.error} (${result.code})\n`
            : `deleted ${result.docId}: ${result.chunks} chunks, ${result.summaries} summary nodes\n`,
        );
      }
    });
  });
}
