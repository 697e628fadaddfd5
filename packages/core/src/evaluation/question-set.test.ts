import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { evaluateQuestions, evaluationPrincipal } from "./evaluate-answers.js";
import { loadQuestionSet } from "./question-set.js";

const directory = mkdtempSync(join(tmpdir(), "docqa-question-set-"));
const file = (name: string, lines: string[]) => {
  const path = join(directory, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
};

describe("loadQuestionSet", () => {
  it("reads {question, answers[], answerable, document} lines, with defaults", async () => {
    const path = file("set.jsonl", [
      JSON.stringify({ question: "How many days?", answers: ["20"], document: "leave.md" }),
      "",
      JSON.stringify({ id: "q2", question: "What is the capital of Mongolia?", answers: [], answerable: false }),
    ]);
    expect(await loadQuestionSet(path)).toEqual([
      { id: "1", question: "How many days?", answers: ["20"], answerable: true, goldDocuments: ["leave.md"] },
      { id: "q2", question: "What is the capital of Mongolia?", answers: [], answerable: false, goldDocuments: [] },
    ]);
  });

  it("names the line of a malformed question", async () => {
    const path = file("bad.jsonl", [JSON.stringify({ question: "ok" }), JSON.stringify({ answers: ["x"] })]);
    await expect(loadQuestionSet(path)).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("line 2") });
  });
});

describe("evaluateQuestions", () => {
  let service: RagService;
  beforeAll(async () => {
    service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-eval-q-")) },
        embeddings: { provider: "none" },
        logging: { level: "silent" },
      },
    });
    await service.upsert({
      orgId: "answer-eval",
      principal: evaluationPrincipal,
      uploader: evaluationPrincipal.userName,
      documents: {
        "leave.md": {
          title: "Leave",
          content: "New employees receive 20 vacation days in their first year.",
          metadata: { acl: "|user:_all_|" },
        },
      },
    });
  });
  afterAll(() => service.close());

  it("scores the callout, the cited document and the abstentions", async () => {
    const result = await evaluateQuestions(service, [
      { id: "a", question: "How many vacation days do new employees get?", answers: ["20"], answerable: true, goldDocuments: ["leave.md"] },
      { id: "u", question: "How do I bake sourdough bread?", answers: [], answerable: false, goldDocuments: [] },
    ]);
    expect(result).toMatchObject({
      answerable: 1,
      unanswerable: 1,
      calloutContainsAnswerRate: 1,
      citedRate: 1,
      retrievedRate: 1,
      falseAbstentionRate: 0,
      abstentionPrecision: 1,
      abstentionRecall: 1,
      exactMatch: 0,
      summarySources: 0,
      unsupportedCitations: 0,
    });
    // Callout "New employees receive 20 vacation days in their first year" against "20": F1 = 2/(10+1).
    expect(result.f1).toBeCloseTo(2 / 11, 10);
    // SQuAD 2.0 totals: the abstention on the unanswerable question scores 1.
    expect(result.overallExactMatch).toBe(0.5);
    // BM25 finds no chunk with a word of it: no_documents.
    expect(result.outcomes[1]).toMatchObject({ abstained: true, abstentionReason: "no_documents", callout: "", f1: 1 });
  });
});
