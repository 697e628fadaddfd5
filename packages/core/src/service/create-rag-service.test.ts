import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExtractiveAnswerer } from "../answering/extractive-answerer.js";
import { noChatModelReason } from "../chat-models/chat-model-from-config.js";
import { loadConfig } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { PerfEvent } from "../logging/perf-log.js";
import { importBackend } from "../stores/store-backend.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { createRagService } from "./create-rag-service.js";

const principal = { userName: "ann@example.org", roles: [], groups: [] };

describe("createRagService", () => {
  it("refuses a server store whose package is missing instead of silently using the embedded one", async () => {
    // The workspace has @docqa/milvus installed, so the missing package is simulated by its name.
    const error = await importBackend("@docqa/not-installed", "VECTORDB_URI").then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(DocqaError.isInstance(error) && error.code).toBe("config_invalid");
    expect((error as DocqaError).message).toMatch(
      /VECTORDB_URI selects a backend in @docqa\/not-installed, which is not installed: npm install @docqa\/not-installed/,
    );
  });

  it("creates the Milvus store lazily when VECTORDB_URI is set and the package is installed", async () => {
    const service = createRagService({ config: loadConfig({ VECTORDB_URI: "http://127.0.0.1:1", LOG_LEVEL: "silent" }), embeddings: null });
    await service.ready();
    expect((await service.health()).stores).toEqual({ vector: "milvus", keyword: "milvus" });
    await service.close();
  });

  it("never calls the answerer on an empty context, and answers in the spec's order", async () => {
    let answererCalls = 0;
    const service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-service-")) },
        embeddings: { dimension: 64 },
        logging: { level: "silent" },
      },
      embeddings: new DeterministicEmbeddings(),
      answerer: {
        name: "counting",
        async answer() {
          answererCalls++;
          return {
            answer: { callout_answer: "x [Source: doc_1]", positive_list: [], negative_list: [], info_list: [], keywords: [] },
            mode: "model",
            model: "counting",
            abstained: false,
            numPredict: null,
            numCtx: null,
          };
        },
      },
    });
    const empty = await service.predict({ orgId: "org", principal, query: "anything" });
    expect(empty.answerMode).toBe("empty-context");
    expect(answererCalls).toBe(0);
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { d: { title: "Doc", content: "anything goes here" } },
    });
    const answered = await service.predict({ orgId: "org", principal, query: "anything" });
    expect(answererCalls).toBe(1);
    expect(Object.keys(answered.sources)).toEqual(["doc_1"]);
    await service.close();
  });

  it("rejects an upsert with any invalid document before writing anything", async () => {
    const service = createRagService({
      config: { stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-service-")) }, logging: { level: "silent" } },
      embeddings: null,
    });
    const upsert = service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: {
        good: { title: "ok", content: "fine" },
        "bad\u0001id": { title: "x", content: "y" },
        empty: { title: "e", content: " " },
      },
    });
    await expect(upsert).rejects.toSatisfy(
      (error: unknown) =>
        DocqaError.isInstance(error) &&
        error.code === "invalid_request" &&
        error.message.includes('documents["bad\\u0001id"]: document id must not contain control characters') &&
        error.message.includes('documents["empty"].content: content must not be empty'),
    );
    expect((await service.search({ orgId: "org", principal, query: "fine" })).total).toBe(0);
    await service.close();
  });
});

describe("createRagService with model providers", () => {
  let openai: OpenAIWireServer;
  beforeAll(async () => {
    openai = await startOpenAIWireServer({ embeddingDimension: 16 });
  });
  afterAll(async () => {
    await openai.close();
  });

  const dataDir = () => mkdtempSync(join(tmpdir(), "docqa-service-"));
  const quiet = { logging: { level: "silent" as const }, ingestion: { useRaptor: false } };

  function recordingLogger() {
    const lines: { level: string; message: string }[] = [];
    const log = (level: string) => (message: string) => lines.push({ level, message });
    const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
    return { logger, lines };
  }

  it("stays extractive and offline by default, saying why no chat model is used", async () => {
    const { logger, lines } = recordingLogger();
    const requestsBefore = openai.requests.length;
    const service = createRagService({ config: { stores: { dataDir: dataDir() }, ...quiet }, embeddings: null, logger });
    await service.ready();
    expect(await service.health()).toMatchObject({
      answerer: "extractive",
      chatModel: { status: "disabled", detail: noChatModelReason },
    });
    // Nothing was configured, so nothing failed: said at debug level only.
    expect(lines).toContainEqual({ level: "debug", message: `no chat model; answers use the extractive answerer: ${noChatModelReason}` });
    expect(lines.filter((line) => line.level === "warn" || line.level === "info")).toEqual([]);
    expect(await service.detectIntent({ orgId: "org", principal, text: "Hello!" })).toEqual({
      intent: "greeting",
      confidence: 0.95,
      requires_rag: false,
    });
    expect(openai.requests.length).toBe(requestsBefore);
    await service.close();
  });

  it("decomposes a compound question by the clause rule without a model, and retrieves each part", async () => {
    const perf: PerfEvent[] = [];
    const service = createRagService({
      config: {
        stores: { dataDir: dataDir() },
        ...quiet,
        retrieval: { bm25TopK: 2, retrieverTopK: 2, subqueryTopK: 2 },
        models: { provider: "extractive" },
      },
      embeddings: null,
      perfLog: (event) => perf.push(event),
    });
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: {
        "expense-claims": {
          title: "Expense claims",
          content: "Travel expenses are reimbursed when the expense claim is filed within a month.",
        },
        "expenses-abroad": { title: "Abroad", content: "Travel expenses in foreign currency are reimbursed at the exchange rate." },
        "expense-approval": { title: "Approval", content: "Travel expenses above 500 euros need approval before they are reimbursed." },
        "vacation-days": { title: "Vacation days", content: "Full-time employees have 25 vacation days per year." },
      },
    });
    const compound = "How many vacation days do I have, and how are travel expenses reimbursed?";
    const result = await service.predict({ orgId: "org", principal, query: compound });
    expect(result.subqueries).toEqual(["How many vacation days do I have", "how are travel expenses reimbursed"]);
    expect(result.answerMode).toBe("extractive");
    expect(result.generation).toEqual({ model: "extractive", numPredict: null, numCtx: null, fallbackReason: null, promptVersion: null });
    // The question's own top 2 plus the claims document found by the second sub-query.
    expect(perf.find((event) => event.event === "rag_end")).toMatchObject({ docs_count: 3 });
    const single = await service.predict({ orgId: "org", principal, query: "How many vacation days do I have?" });
    expect(single.subqueries).toEqual([]);
    expect(perf.filter((event) => event.event === "rag_end").at(-1)).toMatchObject({ docs_count: 1 });
    await service.close();
  });

  it("uses a caller-supplied answerer even when a chat model is configured", async () => {
    const service = createRagService({
      config: {
        stores: { dataDir: dataDir() },
        ...quiet,
        models: { provider: "openai", hostedBaseUrl: openai.baseUrl },
        retrieval: { useQueryDecomposition: false },
      },
      embeddings: null,
      answerer: createExtractiveAnswerer(),
    });
    await service.ready();
    expect(await service.health()).toMatchObject({ answerer: "extractive", chatModel: { status: "ready", model: "gpt-4o-mini" } });
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { d: { title: "Printing", content: "Colour printing is limited to 200 pages per month." } },
    });
    const requestsBefore = openai.requests.length;
    const result = await service.predict({ orgId: "org", principal, query: "colour printing limit" });
    expect([result.answerMode, openai.requests.length]).toEqual(["extractive", requestsBefore]);
    await service.close();
  });

  it("embeds with the provider named by EMBED_PROVIDER", async () => {
    const service = createRagService({
      config: {
        stores: { dataDir: dataDir() },
        ...quiet,
        models: { provider: "extractive", hostedBaseUrl: openai.baseUrl },
        embeddings: { provider: "openai", modelName: "bge-small", dimension: 16 },
      },
    });
    await service.ready();
    expect((await service.health()).embeddings).toEqual({ status: "ready", model: "bge-small" });
    expect(openai.requests.at(-1)).toMatchObject({ path: "/v1/embeddings", body: { model: "bge-small" } });
    await service.close();

    const { logger } = recordingLogger();
    const unconfigured = createRagService({
      config: {
        stores: { dataDir: dataDir() },
        ...quiet,
        models: { provider: "extractive" },
        embeddings: { provider: "openai", modelName: "text-embedding-3-small" },
      },
      logger,
    });
    await unconfigured.ready();
    expect((await unconfigured.health()).embeddings).toEqual({
      status: "unavailable",
      model: "text-embedding-3-small",
      detail: "provider embeddings unavailable: neither HOSTEDLLM_API_KEY nor HOSTEDLLM_BASE_URL is set",
    });
    await unconfigured.close();
  });
});
