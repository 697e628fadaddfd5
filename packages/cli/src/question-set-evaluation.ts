/**
 * `docqa eval <questions.jsonl> --documents <paths>`: ingests the documents (files and folders,
 * walked recursively) into a fresh organisation readable by the evaluator, then evaluates the
 * plain question set (`loadQuestionSet`: `{question, answers[], answerable, document?}` per line)
 * through `predict`.
 */
import type { RagService } from "@docqa/core";
import { type AnswerEvaluation, evaluateQuestions, evaluationPrincipal, loadQuestionSet } from "@docqa/core/evaluation";
import { findFiles, supportedFormats } from "@docqa/core/ingestion";

/** Options of {@link evaluateQuestionSet}. */
export interface QuestionSetEvaluationOptions {
  /** Files and folders to ingest before asking. */
  documents: readonly string[];
  limit?: number | undefined;
  onProgress?: (phase: "ingest" | "query", done: number, total: number) => void;
}

/**
 * Ingests `options.documents` and evaluates the questions of `file`.
 *
 * @throws {Error} when no document is given or none can be found.
 */
export async function evaluateQuestionSet(
  service: RagService,
  file: string,
  options: QuestionSetEvaluationOptions,
): Promise<AnswerEvaluation> {
  if (options.documents.length === 0)
    throw new Error(`${file} is a question set: name the documents to ask about with --documents <paths>`);
  const questions = await loadQuestionSet(file);
  const { files } = await findFiles([...options.documents], [...supportedFormats, "markdown", "ndjson", "jsonl"]);
  if (files.length === 0) throw new Error(`no supported document found in ${options.documents.join(", ")}`);
  const orgId = "answer-eval";
  await service.ingestFiles(
    {
      orgId,
      principal: evaluationPrincipal,
      uploader: evaluationPrincipal.userName,
      files: files.map((found) => ({ path: found.path, docId: found.relativePath })),
      metadata: { acl: "|user:_all_|", owner_id: evaluationPrincipal.userName },
    },
    { onProgress: (progress) => options.onProgress?.("ingest", progress.files.processed, files.length) },
  );
  return evaluateQuestions(service, questions, { orgId, limit: options.limit, onProgress: options.onProgress });
}
