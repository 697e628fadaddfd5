/**
 * Reading a SQuAD-layout question-answering folder (Rajpurkar et al., 2016 and 2018, "SQuAD" and
 * "Know What You Don't Know: Unanswerable Questions for SQuAD"), flattened as `contexts.jsonl`
 * (`_id`, `title`, `text`) and `questions.jsonl` (`_id`, `question`, `answers`, `context_id`,
 * and `is_impossible` for SQuAD 2.0).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** A loaded SQuAD-layout data set. */
export interface SquadDataset {
  contexts: { id: string; title: string; text: string }[];
  questions: { id: string; question: string; answers: string[]; contextId: string; impossible: boolean }[];
}

/** Loads `contexts.jsonl` and `questions.jsonl` from `folder`. */
export async function loadSquadDataset(folder: string): Promise<SquadDataset> {
  const lines = async (name: string) => (await readFile(join(folder, name), "utf8")).split("\n").filter((line) => line.trim() !== "");
  const contexts = (await lines("contexts.jsonl")).map((line) => {
    const record = JSON.parse(line) as { _id: string | number; title?: string; text: string };
    return { id: String(record._id), title: record.title ?? "", text: record.text };
  });
  const questions = (await lines("questions.jsonl")).map((line) => {
    const record = JSON.parse(line) as {
      _id: string | number;
      question: string;
      answers?: string[];
      context_id: string | number;
      is_impossible?: boolean;
    };
    return {
      id: String(record._id),
      question: record.question,
      answers: record.answers ?? [],
      contextId: String(record.context_id),
      impossible: record.is_impossible === true || (record.answers ?? []).length === 0,
    };
  });
  return { contexts, questions };
}
