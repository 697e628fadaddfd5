/**
 * Reading a BEIR-layout retrieval data set (Thakur et al., 2021, "BEIR: A Heterogeneous
 * Benchmark for Zero-shot Evaluation of Information Retrieval Models"): `corpus.jsonl`
 * (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`) and `qrels/<split>.tsv`
 * (`query-id`, `corpus-id`, `score`, with a header line).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Judgements } from "./retrieval-metrics.js";

/** A loaded BEIR data set, restricted to the queries judged in the split. */
export interface BeirDataset {
  corpus: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  qrels: Map<string, Judgements>;
}

/** Loads a BEIR folder; only queries with judgements in `split` (default `test`) are kept. */
export async function loadBeirDataset(folder: string, split = "test"): Promise<BeirDataset> {
  const lines = async (name: string) => (await readFile(join(folder, name), "utf8")).split("\n").filter((line) => line.trim() !== "");
  const qrels = new Map<string, Map<string, number>>();
  for (const [index, line] of (await lines(join("qrels", `${split}.tsv`))).entries()) {
    const [queryId, docId, score] = line.split("\t");
    if (index === 0 && Number.isNaN(Number(score))) continue;
    if (!queryId || !docId) continue;
    let judgements = qrels.get(queryId);
    if (!judgements) qrels.set(queryId, (judgements = new Map()));
    judgements.set(docId, Number(score));
  }
  const corpus = (await lines("corpus.jsonl")).map((line) => {
    const record = JSON.parse(line) as { _id: string | number; title?: string; text?: string };
    return { id: String(record._id), title: record.title ?? "", text: record.text ?? "" };
  });
  const queries = (await lines("queries.jsonl"))
    .map((line) => JSON.parse(line) as { _id: string | number; text: string })
    .map((record) => ({ id: String(record._id), text: record.text }))
    .filter((query) => qrels.has(query.id));
  return { corpus, queries, qrels };
}
