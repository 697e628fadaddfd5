/**
 * End-to-end tests of the built `docqa` executable over real documents from
 * ../shared/data/documents (TXT and MD): ingest, then one batch of questions, each answered with a
 * callout that cites a source of the answer (or abstaining), with BM25 only and with a real
 * embedding model. Which answers are right is measured by `docqa eval` on the evaluation sets, not
 * pinned here. The hybrid run
 * leaves out the two multilingual UDHR files: a third of the chunks, each cut at the model's 512
 * word pieces, they made the embedding step several times longer without adding an English
 * distractor (the BM25 run keeps every file).
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { describe, expect, it } from "vitest";
import { bm25Only, built, jsonLines, realModel, runDocqaOk } from "./testing/run-docqa.js";

const documentsDirectory = sharedDataPath("documents");

interface AskedSource {
  title: string;
  page_content: string;
  metadata: { filename?: string; doc_id: string; raptor_documents?: { doc_id: string }[] };
}

interface AnswerLine {
  id: string;
  answer: { callout_answer: string };
  sources: Record<string, AskedSource>;
  outcome: string;
}

/** The files a cited source comes from: its own, or for a RAPTOR summary, those of the documents it summarises. */
function filesOf(source: AskedSource | undefined): string[] {
  if (!source) return [];
  const summarised = source.metadata.raptor_documents;
  if (summarised) return summarised.map((document) => document.doc_id.split("/").at(-1) as string);
  return [source.metadata.filename as string];
}

/** Questions over ../shared/data/documents/{txt,md}. */
const sharedQuestions = [
  { question: "What are the scalar types of Rust?" },
  { question: "How do I compile a Rust program?" },
  { question: "Which club did the striker join in 1997?" },
  { question: "What is the weather like on Mars?" },
];

async function askAll(env: Record<string, string>): Promise<AnswerLine[]> {
  const input = sharedQuestions.map(({ question }, index) => JSON.stringify({ id: String(index), question })).join("\n");
  const { stdout } = await runDocqaOk(["ask", "--org", "acme", "--user", "reader@acme.example", "--file", "-", "--quiet"], env, 0, input);
  return jsonLines<AnswerLine>(stdout);
}

/** One line per question, each a cited answer whose source is an ingested file, or an abstention with no source. */
function expectCitedFiles(lines: readonly AnswerLine[]): void {
  expect(lines).toHaveLength(sharedQuestions.length);
  for (const [index, { question }] of sharedQuestions.entries()) {
    const line = lines[index] as AnswerLine;
    const cited = /\[Source: (doc_\d+)\]$/.exec(line.answer.callout_answer)?.[1];
    if (cited === undefined) {
      expect(line.sources, question).toEqual({});
      continue;
    }
    expect(filesOf(line.sources[cited]).join(" "), question).toMatch(/\.(md|txt)$/);
  }
  expect(lines.some((line) => Object.keys(line.sources).length > 0)).toBe(true);
}

// Without ../shared/data these skip, except in CI; the hybrid run needs a local model.
describe.skipIf((!built || !documentsDirectory) && !isContinuousIntegration())("docqa over ../shared/data/documents (TXT and MD)", () => {
  it("ingests every file, reports the rejected ones, then answers citing the file that holds the answer (BM25 only)", async () => {
    expect(documentsDirectory, "../shared/data/documents is missing").toBeDefined();
    const env = { ...bm25Only, DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-cli-")) };
    const folders = [join(documentsDirectory as string, "txt"), join(documentsDirectory as string, "md")];
    const ingest = await runDocqaOk(["ingest", ...folders, "--org", "acme", "--acl", "|user:_all_|", "--no-progress"], env, 2);
    expect(ingest.stdout).toMatch(/^ingested 19 of 22 files into organisation acme \(19 written, 0 unchanged, 3 rejected\)/);
    expect(ingest.stdout).toContain("empty.txt: empty.txt is empty (0 bytes) (empty_file)");
    expect(ingest.stdout).toContain("umlauts-latin1.md: umlauts-latin1.md is not UTF-8; decoded as windows-1252");
    expectCitedFiles(await askAll(env));
  }, 120_000);

  if (!realModel) it.skip("skipped: no embedding model under ../shared/data/models, $DOCQA_MODELS_DIR or .models", () => {});
  else
    it(`ingests with ${realModel?.id}, showing embedding progress, then answers citing the file that holds the answer (hybrid)`, async () => {
      const folder = mkdtempSync(join(tmpdir(), "docqa-cli-documents-"));
      cpSync(join(documentsDirectory as string, "txt"), join(folder, "txt"), { recursive: true });
      cpSync(join(documentsDirectory as string, "md"), join(folder, "md"), { recursive: true });
      for (const name of ["udhr-article1-all-languages.txt", "malformed-truncated-udhr-mid-utf8.txt"]) rmSync(join(folder, "txt", name));
      const env = { ...realModel?.environment, DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-cli-")) };
      const ingest = await runDocqaOk(["ingest", folder, "--org", "acme", "--acl", "|user:_all_|", "--json"], env, 2);
      expect(JSON.parse(ingest.stdout)).toMatchObject({ state: "partially_failed", files: { total: 20, ingested: 17, failed: 3 } });
      const events = jsonLines<{ event: string; done: number; total: number; chunks: number; embeddings: number; eta_s: number | null }>(
        ingest.stderr,
      );
      const last = events.at(-1);
      // Progress counts chunks (the ETA follows the embedding work, not the file count).
      expect(last).toMatchObject({ event: "progress", eta_s: 0 });
      expect(last?.done).toBe(last?.total);
      // The documents' chunks are embedded once each; the job's chunk count also holds the summaries
      // written after them, which progress does not count.
      expect(last?.embeddings).toBeGreaterThan(0);
      expect(last?.embeddings).toBeLessThanOrEqual(JSON.parse(ingest.stdout).chunks);
      expectCitedFiles(await askAll(env));
    }, 240_000);
});
