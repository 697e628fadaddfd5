/**
 * End-to-end test of `docqa reindex` with the built executable: an organisation ingested with
 * BM25 only is reindexed to a real embedding model from ../shared/data/models, then answers with
 * vectors; a second run has nothing to do.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bm25Only, built, realModel, repositoryRoot, runDocqaOk } from "./testing/run-docqa.js";

const exampleQuestions = JSON.parse(readFileSync(join(repositoryRoot, "examples", "corpus-questions.json"), "utf8")) as {
  question: string;
  document: string;
}[];

describe.skipIf((!built && process.env.CI !== "true") || !realModel)("docqa reindex (needs `npm run build` and a real model)", () => {
  it("reindexes an organisation ingested without a model, then answers with vectors; a second run has nothing to do", async () => {
    const model = realModel as NonNullable<typeof realModel>;
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-cli-"));
    await runDocqaOk(["ingest", "examples/corpus", "--org", "northwind", "--acl", "|user:_all_|", "--no-progress"], {
      ...bm25Only,
      DATA_DIR: dataDir,
    });
    const env = { ...model.environment, DATA_DIR: dataDir };
    const { stdout } = await runDocqaOk(["reindex", "--org", "northwind", "--json"], env);
    const job = JSON.parse(stdout) as { state: string; fromModel: unknown; model: { id: string }; total: number; processed: number };
    expect(job).toMatchObject({ state: "succeeded", fromModel: null, model: { id: model.id } });
    expect(job.processed).toBe(job.total);
    expect(job.total).toBeGreaterThan(0);
    const again = await runDocqaOk(["reindex", "--org", "northwind"], env);
    expect(again.stdout).toBe(`organisation northwind already holds vectors of ${model.id}: nothing to do\n`);
    const { question, document } = exampleQuestions[0] as (typeof exampleQuestions)[number];
    const asked = await runDocqaOk(["ask", "--org", "northwind", "--user", "reader@northwind.example", "--json", question], env);
    const result = JSON.parse(asked.stdout) as {
      answer: { callout_answer: string };
      sources: Record<string, { metadata: { doc_id: string } }>;
    };
    const cited = /\[Source: (doc_\d+)\]$/.exec(result.answer.callout_answer)?.[1] as string;
    expect(result.sources[cited]?.metadata.doc_id, question).toBe(document);
  }, 180_000);
});
