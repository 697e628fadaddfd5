/**
 * The provider factory, end to end: configuration → LangChain client → wire-protocol server →
 * answer. `@langchain/ollama` is a dependency of `@docqa/core`, so the ChatOllama case always runs
 * (and fails if the package cannot be loaded); the case for a deployment without the package runs
 * only where it is missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModelAnswerer } from "../answering/create-model-answerer.js";
import { resolveConfig } from "../config/load-config.js";
import type { Logger } from "../logging/logger.js";
import { handbookContext, handbookQuestion } from "../testing/handbook-context.js";
import { type OllamaWireServer, startOllamaWireServer } from "../testing/ollama-wire-server.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import type { ChatLlamaCpp } from "./chat-llama-cpp.js";
import { chatModelFromConfig, noChatModelReason, placeholderApiKey } from "./chat-model-from-config.js";
import { loadOllamaModule } from "./load-provider-module.js";

const ollama = await loadOllamaModule();

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const log = (level: string) => (message: string) => lines.push({ level, message });
  const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  return { logger, lines };
}

const answer = {
  callout_answer: "Employees receive 25 vacation days per year [Source: doc_1].",
  positive_list: [],
  negative_list: [],
  info_list: [],
  keywords: ["vacation"],
};

let openai: OpenAIWireServer;
let ollamaServer: OllamaWireServer;
beforeAll(async () => {
  openai = await startOpenAIWireServer();
  ollamaServer = await startOllamaWireServer();
});
afterAll(async () => {
  await openai.close();
  await ollamaServer.close();
});

describe("chatModelFromConfig", () => {
  it("uses no model when RAG_LLM_PROVIDER is extractive", async () => {
    const { logger, lines } = recordingLogger();
    expect(await chatModelFromConfig(resolveConfig({ models: { provider: "extractive", hostedApiKey: "key" } }), { logger })).toEqual({
      status: "disabled",
      reason: "RAG_LLM_PROVIDER is extractive",
    });
    expect(lines).toEqual([
      { level: "info", message: "no chat model; answers use the extractive answerer: RAG_LLM_PROVIDER is extractive" },
    ]);
  });

  it("uses no model for openai without a key or a base URL, and says why", async () => {
    const choice = await chatModelFromConfig(resolveConfig({ models: { provider: "openai" } }));
    expect(choice).toEqual({
      status: "disabled",
      reason: noChatModelReason,
    });
  });

  it("builds ChatOpenAI from the configuration and answers through the wire protocol", async () => {
    const config = resolveConfig({
      models: {
        provider: "openai",
        generatorModel: "llama-3.1-8b-instruct",
        hostedApiKey: "secret-key",
        hostedBaseUrl: openai.baseUrl,
        temperature: 0.3,
        topP: 0.7,
      },
    });
    const choice = await chatModelFromConfig(config);
    if (choice.status !== "ready") throw new Error(choice.reason);
    expect([choice.provider, choice.modelName, choice.numPredict, choice.numCtx]).toEqual(["openai", "llama-3.1-8b-instruct", null, null]);
    openai.enqueueChat({ type: "output", text: JSON.stringify(answer) });
    const generated = await createModelAnswerer({ model: choice.model, modelName: choice.modelName }).answer({
      question: handbookQuestion,
      context: handbookContext(),
    });
    expect([generated.mode, generated.model, generated.answer]).toEqual(["model", "llama-3.1-8b-instruct", answer]);
    const request = openai.requests.at(-1);
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer secret-key");
    expect(request?.body).toMatchObject({ model: "llama-3.1-8b-instruct", temperature: 0.3, top_p: 0.7 });
  });

  it("sends a placeholder key to a server configured by base URL only", async () => {
    const choice = await chatModelFromConfig(resolveConfig({ models: { provider: "openai", hostedBaseUrl: openai.baseUrl } }));
    if (choice.status !== "ready") throw new Error(choice.reason);
    openai.enqueueChat({ type: "content", content: "pong" });
    await choice.model.invoke("ping");
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${placeholderApiKey}`);
  });

  it("with RAG_LLM_STRUCTURED_OUTPUT=auto answers through a server that rejects forced tool calls (llama-server), by json_schema", async () => {
    const choice = await chatModelFromConfig(resolveConfig({ models: { provider: "openai", hostedBaseUrl: openai.baseUrl } }));
    if (choice.status !== "ready") throw new Error(choice.reason);
    openai.enqueueChat(
      { type: "error", status: 400, message: "Wrong type supplied for parameter 'tool_choice'. Expected 'string', got 'object'" },
      { type: "content", content: JSON.stringify(answer) },
    );
    const generated = await createModelAnswerer({ model: choice.model, modelName: choice.modelName }).answer({
      question: handbookQuestion,
      context: handbookContext(),
    });
    expect([generated.mode, generated.answer]).toEqual(["model", answer]);
    expect(openai.requests.at(-1)?.body).toMatchObject({ response_format: { type: "json_schema" } });
  });

  it("uses no model for llama-cpp when LOCALLLM_MODEL_PATH is not a file, and says so", async () => {
    const { logger, lines } = recordingLogger();
    const missing = join(tmpdir(), "docqa-no-such-model.gguf");
    const choice = await chatModelFromConfig(resolveConfig({ models: { provider: "llama-cpp", localModelPath: missing } }), { logger });
    expect(choice).toEqual({
      status: "disabled",
      reason: `RAG_LLM_PROVIDER is llama-cpp but LOCALLLM_MODEL_PATH ${missing} is not a file`,
    });
    expect(lines.map((line) => line.level)).toEqual(["warn"]);
  });

  it("builds ChatLlamaCpp for llama-cpp without loading the model, with the settings of the configuration", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-llama-cpp-"));
    try {
      const modelPath = join(directory, "tiny-model-q4_k_m.gguf");
      writeFileSync(modelPath, "not loaded by this test");
      const config = resolveConfig({
        models: { provider: "llama-cpp", localModelPath: modelPath, localSequences: 3, localQueueSize: 5, numCtx: 2048, temperature: 0.2 },
      });
      const choice = await chatModelFromConfig(config);
      if (choice.status !== "ready") throw new Error(choice.reason);
      expect([choice.provider, choice.modelName, choice.numPredict, choice.numCtx]).toEqual(["llama-cpp", "tiny-model-q4_k_m", 1024, 2048]);
      const model = choice.model as ChatLlamaCpp;
      expect([model._llmType(), model.temperature, model.maxTokens]).toEqual(["llama-cpp", 0.2, 1024]);
      expect([model.runtime.modelPath, model.runtime.sequences, model.runtime.queueSize, model.runtime.contextSize]).toEqual([
        modelPath,
        3,
        5,
        2048,
      ]);
      expect(model.runtime.state()).toEqual({ loaded: false, active: 0, waiting: 0 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.runIf(!ollama.ok)("uses no model for ollama when @langchain/ollama is not installed, and says how to fix it", async () => {
    const { logger, lines } = recordingLogger();
    const choice = await chatModelFromConfig(resolveConfig({ models: { provider: "ollama" } }), { logger });
    expect(choice).toEqual({
      status: "disabled",
      reason: "RAG_LLM_PROVIDER is ollama but the package @langchain/ollama is not installed: run npm install @langchain/ollama",
    });
    expect(lines.map((line) => line.level)).toEqual(["warn"]);
  });

  it("builds ChatOllama from the configuration and answers through the wire protocol", async () => {
    expect(ollama).toMatchObject({ ok: true });
    const config = resolveConfig({
      models: {
        provider: "ollama",
        localModel: "llama3.1:8b",
        localBaseUrl: ollamaServer.baseUrl,
        numPredict: 512,
        numCtx: 8192,
        temperature: 0,
        topP: 0.2,
      },
    });
    const choice = await chatModelFromConfig(config);
    if (choice.status !== "ready") throw new Error(choice.reason);
    expect([choice.provider, choice.modelName, choice.numPredict, choice.numCtx]).toEqual(["ollama", "llama3.1:8b", 512, 8192]);
    ollamaServer.enqueueChat({ type: "output", text: JSON.stringify(answer) });
    const generated = await createModelAnswerer({
      model: choice.model,
      modelName: choice.modelName,
      numPredict: choice.numPredict,
      numCtx: choice.numCtx,
    }).answer({ question: handbookQuestion, context: handbookContext() });
    expect([generated.mode, generated.answer, generated.numPredict, generated.numCtx]).toEqual(["model", answer, 512, 8192]);
    const request = ollamaServer.requests.at(-1);
    expect(request?.path).toBe("/api/chat");
    expect(request?.body).toMatchObject({ model: "llama3.1:8b", options: { num_predict: 512, num_ctx: 8192, temperature: 0, top_p: 0.2 } });
  });
});
