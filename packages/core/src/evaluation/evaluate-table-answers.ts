/**
 * Answer evaluation over a table set (`table-question-set.ts`): each question's table is converted
 * to a standard CSV and ingested as a user's uploaded file would be (`ingestFiles`, by its file
 * name, so the CSV loader reads it), into an organisation of its own, so a question is answered from its table
 * alone. A table is ingested once per run (the first question that needs it), then reused.
 * The answers are scored with the `all-items` scorer (`table-answer-metrics.ts`).
 */
import { basename } from "node:path";
import { DocqaError } from "../errors/docqa-error.js";
import type { RagService } from "../service/rag-service.js";
import { evaluationPrincipal } from "./evaluate-answers.js";
import type { EvaluationQuestion } from "./question-set.js";
import { readTableAsCsv, type TableQuestionSet, type TableSplit, tableSplitQuestions } from "./table-question-set.js";

/** A table question in the evaluation's form, with its table. */
export interface TableEvaluationQuestion extends EvaluationQuestion {
  tableFile: string;
}

/** The questions of `split` as evaluation questions: answerable, answers = the items, no gold document (one table per organisation). */
export function tableEvaluationQuestions(set: TableQuestionSet, split: TableSplit): TableEvaluationQuestion[] {
  return tableSplitQuestions(set, split).map((question) => ({
    id: question.id,
    question: question.question,
    answers: question.answers,
    answerable: true,
    goldDocuments: [],
    tableFile: question.tableFile,
  }));
}

/** The organisation a table is ingested into. */
export function tableOrganisation(tableFile: string): string {
  return `table-eval:${tableFile}`;
}

/** Where each question is asked, and the ingestion of its table before. */
export interface TableIngestion {
  orgId(question: EvaluationQuestion): string;
  /** Ingests the question's table unless this run has; rejects when its ingestion failed. */
  prepare(question: EvaluationQuestion): Promise<void>;
  /** Tables whose ingestion this run started (failed ones included). */
  readonly ingested: number;
}

/**
 * Ingestion of the tables of `set` into `service`.
 *
 * @throws {DocqaError} from `prepare`: `invalid_request` for a table that is not CSV, `internal_error`
 *   when its ingestion job did not succeed (with the job's error).
 */
export function createTableIngestion(service: RagService, set: TableQuestionSet): TableIngestion {
  const tables = new Map<string, Promise<void>>();
  const tableOf = (question: EvaluationQuestion) => {
    const tableFile = (question as Partial<TableEvaluationQuestion>).tableFile;
    if (tableFile === undefined)
      throw new DocqaError("internal_error", `question ${question.id} has no table_file`, { component: "evaluation" });
    return tableFile;
  };
  const ingest = async (tableFile: string) => {
    const bytes = new TextEncoder().encode(await readTableAsCsv(set, tableFile));
    const job = await service.ingestFiles({
      orgId: tableOrganisation(tableFile),
      principal: evaluationPrincipal,
      uploader: evaluationPrincipal.userName,
      files: [{ name: basename(tableFile), bytes, docId: basename(tableFile) }],
      metadata: { acl: "|user:_all_|", owner_id: evaluationPrincipal.userName },
    });
    if (job.state !== "succeeded")
      throw new DocqaError(
        "internal_error",
        `ingesting ${tableFile} ended ${job.state}: ${job.errors.map((error) => error.message).join("; ") || job.failure || "no detail"}`,
        { component: "evaluation" },
      );
  };
  return {
    orgId: (question) => tableOrganisation(tableOf(question)),
    prepare(question) {
      const tableFile = tableOf(question);
      let pending = tables.get(tableFile);
      if (!pending) {
        pending = ingest(tableFile);
        tables.set(tableFile, pending);
      }
      return pending;
    },
    get ingested() {
      return tables.size;
    },
  };
}
