/**
 * The answer evaluation with a chat model: a service configured with the OpenAI provider against a
 * local server speaking the OpenAI wire protocol (scripted outputs), so the figures that only a
 * model produces (valid JSON, fallbacks, failures) are read from real `predict` results.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { answerQuestions, evaluationPrincipal, summarizeAnswers } from "./evaluate-answers.js";

const dataDir = mkdtempSync(join(tmpdir(), "docqa-eval-model-"));
let server: OpenAIWireServer;
let service: RagService;

beforeAll(async () => {
  server = await startOpenAIWireServer();
  service = createRagService({
    config: {
      stores: { dataDir },
      embeddings: { provider: "none" },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
      // Tool calls as the scripted server answers them: `auto` would retry a prose reply with
      // json_schema (a server that ignores forced tool calls), and this test counts the prose reply.
      models: { provider: "openai", hostedBaseUrl: server.baseUrl, maxRetries: 0, structuredOutput: "function_calling" },
      retrieval: { useQueryDecomposition: false },
    },
  });
  await service.upsert({
    orgId: "answer-eval",
    principal: evaluationPrincipal,
    uploader: evaluationPrincipal.userName,
    documents: {
      "leave.md": {
        title: "Annual leave",
        content: "Full-time employees receive 25 vacation days per year. Unused vacation days expire on March 31.",
        metadata: { acl: "|user:_all_|" },
      },
    },
  });
});
afterAll(async () => {
  await service.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("answer evaluation with a chat model", () => {
  it("counts model outputs that were not Answer JSON, and questions whose model call failed", async () => {
    const answer = {
      callout_answer: "Full-time employees receive 25 vacation days per year [Source: doc_1].",
      positive_list: [],
      negative_list: [],
      info_list: [],
      keywords: ["vacation days"],
    };
    server.enqueueChat(
      { type: "output", text: JSON.stringify(answer) },
      { type: "output", text: "Employees get 25 days." },
      { type: "error", status: 500, message: "model crashed" },
    );
    const question = (id: string) => ({
      id,
      question: "How many vacation days do full-time employees receive per year?",
      answers: ["25 vacation days"],
      answerable: true,
      goldDocuments: ["leave.md"],
    });
    const records = await answerQuestions(service, [question("valid"), question("prose"), question("failed")]);
    expect(records.map((record) => [record.answerMode, record.fallbackReason, record.error?.code ?? null])).toEqual([
      ["model", null, null],
      ["extractive-fallback", "unparseable_output", null],
      [null, null, "model_unavailable"],
    ]);
    expect(records[0]).toMatchObject({ model: "gpt-4o-mini", calloutCitations: 1, retrieved: true });
    expect(records[0]?.citations).toEqual([{ key: "doc_1", docId: "leave.md", holdsAnswer: true, goldDocument: true, summary: false }]);
    const result = summarizeAnswers(records, "alternatives");
    expect(result).toMatchObject({ questions: 2, failed: 1, modelOutputs: 2, validJsonRate: 0.5, calloutContainsAnswerRate: 1 });
    expect(result.answerModes).toEqual({ model: 1, "extractive-fallback": 1 });
  });
});
