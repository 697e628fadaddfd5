/**
 * The chat model of a service, chosen by `RAG_LLM_PROVIDER`:
 * - `openai`: `ChatOpenAI` with `RAG_GENERATOR_MODEL`, `HOSTEDLLM_API_KEY`, and
 *   `HOSTEDLLM_BASE_URL` as the client's `baseURL`, so any OpenAI-compatible server works (vLLM,
 *   llama.cpp server, LiteLLM and other gateways, Ollama's `/v1`). Usable when the key or the base
 *   URL is set; a base URL alone (a local server without authentication) sends a placeholder key.
 * - `ollama`: `ChatOllama` with `LOCALLLM_MODEL`, `LOCALLLM_BASE_URL`, `LOCALLLM_NUM_PREDICT`,
 *   `LOCALLLM_NUM_CTX` (needs the `@langchain/ollama` package).
 * - `llama-cpp`: {@link ChatLlamaCpp}, the GGUF file `LOCALLLM_MODEL_PATH` run in this process by
 *   node-llama-cpp (an optional package), with `LOCALLLM_THREADS`, `LOCALLLM_SEQUENCES`,
 *   `LOCALLLM_QUEUE_SIZE`, `LOCALLLM_NUM_CTX` and `LOCALLLM_NUM_PREDICT`. The model loads on the
 *   first call, once per process.
 * - `extractive`: no model.
 * All use `RAG_LLM_TEMP` and `RAG_LLM_TOP_P`. The client's own retries are off (`maxRetries: 0`):
 * docqa's retry layer (`callWithResilience`) handles 429 and 5xx with `Retry-After`. With
 * `RAG_LLM_STRUCTURED_OUTPUT=auto`, the openai model is marked for structured-output detection
 * (`detectStructuredOutputMethod`): forced tool calls until the server shows it does not honour them.
 *
 * When no model is usable the result says why (and the reason is logged once): the service then
 * answers with the extractive answerer.
 */
import { stat } from "node:fs/promises";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { Agent, fetch as undiciFetch } from "undici";
import type { DocqaConfig } from "../config/config-schema.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import { defaultResiliencePolicy } from "./call-with-resilience.js";
import { ChatLlamaCpp, defaultLlamaCppMaxTokens } from "./chat-llama-cpp.js";
import { detectStructuredOutputMethod } from "./invoke-structured.js";
import { defaultLlamaCppContextSize, sharedLlamaCppRuntime } from "./llama-cpp-runtime.js";
import { loadNodeLlamaCppModule, loadOllamaModule, loadOpenAIModule } from "./load-provider-module.js";

/** The configuration fields {@link chatModelFromConfig} reads. */
export type ChatModelConfig = Pick<DocqaConfig, "models">;

/** The chosen chat model, or why there is none. */
export type ChatModelChoice =
  | {
      status: "ready";
      model: BaseChatModel;
      provider: "openai" | "ollama" | "llama-cpp";
      /** Model name for PERF lines (`model`). */
      modelName: string;
      /** `LOCALLLM_NUM_PREDICT` (Ollama; llama-cpp's with its default) for PERF lines; null when unset or for OpenAI. */
      numPredict: number | null;
      /** `LOCALLLM_NUM_CTX` (Ollama; llama-cpp's with its default) for PERF lines; null when unset or for OpenAI. */
      numCtx: number | null;
    }
  | { status: "disabled"; reason: string };

/** Options of {@link chatModelFromConfig}. */
export interface ChatModelOptions {
  /** Logs the reason when no model is used; default silent. */
  logger?: Logger;
  /** HTTP timeout of the OpenAI client in milliseconds (a backstop; `callWithResilience` aborts first); default 60000. */
  timeoutMs?: number;
}

/**
 * Why there is no chat model when none is configured (`RAG_LLM_PROVIDER` at its default, `openai`,
 * without `HOSTEDLLM_API_KEY` or `HOSTEDLLM_BASE_URL`): the effective answerer is the extractive one.
 */
export const noChatModelReason =
  "no chat model configured, so answers are extractive: set HOSTEDLLM_BASE_URL (an OpenAI-compatible server) or HOSTEDLLM_API_KEY, or RAG_LLM_PROVIDER=ollama (docs/model-providers.md)";

/** Placeholder API key sent to an OpenAI-compatible server configured without `HOSTEDLLM_API_KEY`. */
export const placeholderApiKey = "docqa-no-key";

/**
 * Builds the configured chat model.
 *
 * @example
 * ```ts
 * const choice = await chatModelFromConfig(loadConfig(), { logger });
 * if (choice.status === "ready") answerer = createModelAnswerer({ model: choice.model, modelName: choice.modelName });
 * ```
 */
export async function chatModelFromConfig(config: ChatModelConfig, options: ChatModelOptions = {}): Promise<ChatModelChoice> {
  const logger = options.logger ?? silentLogger;
  const disabled = (reason: string, level: "debug" | "info" | "warn" = "warn"): ChatModelChoice => {
    logger[level](`no chat model; answers use the extractive answerer: ${reason}`, { component: "models" });
    return { status: "disabled", reason };
  };
  switch (config.models.provider) {
    case "extractive":
      return disabled("RAG_LLM_PROVIDER is extractive", "info");
    case "openai": {
      if (!config.models.hostedApiKey && !config.models.hostedBaseUrl) {
        return disabled(noChatModelReason, "debug");
      }
      const loaded = await loadOpenAIModule();
      if (!loaded.ok) return disabled(loaded.reason);
      const timeoutMs = options.timeoutMs ?? defaultResiliencePolicy.timeoutMs;
      const model = new loaded.module.ChatOpenAI({
        model: config.models.generatorModel,
        apiKey: config.models.hostedApiKey ?? placeholderApiKey,
        configuration: {
          ...(config.models.hostedBaseUrl ? { baseURL: config.models.hostedBaseUrl } : {}),
          fetch: fetchWithTimeouts(timeoutMs),
        },
        temperature: config.models.temperature,
        topP: config.models.topP,
        timeout: timeoutMs,
        maxRetries: 0,
        useResponsesApi: false,
      });
      if (config.models.structuredOutput === "auto") detectStructuredOutputMethod(model);
      return { status: "ready", model, provider: "openai", modelName: config.models.generatorModel, numPredict: null, numCtx: null };
    }
    case "llama-cpp": {
      const modelPath = config.models.localModelPath;
      if (modelPath === undefined) return disabled("RAG_LLM_PROVIDER is llama-cpp but LOCALLLM_MODEL_PATH is not set");
      const file = await stat(modelPath).catch(() => undefined);
      if (!file?.isFile()) return disabled(`RAG_LLM_PROVIDER is llama-cpp but LOCALLLM_MODEL_PATH ${modelPath} is not a file`);
      const loaded = await loadNodeLlamaCppModule();
      if (!loaded.ok) return disabled(`RAG_LLM_PROVIDER is llama-cpp but ${loaded.reason}`);
      const contextSize = config.models.numCtx ?? defaultLlamaCppContextSize;
      const maxTokens = config.models.numPredict ?? defaultLlamaCppMaxTokens;
      const model = new ChatLlamaCpp({
        runtime: sharedLlamaCppRuntime({
          modelPath,
          threads: config.models.localThreads,
          sequences: config.models.localSequences,
          queueSize: config.models.localQueueSize,
          contextSize,
          logger,
        }),
        temperature: config.models.temperature,
        topP: config.models.topP,
        maxTokens,
      });
      return { status: "ready", model, provider: "llama-cpp", modelName: model.model, numPredict: maxTokens, numCtx: contextSize };
    }
    case "ollama": {
      const loaded = await loadOllamaModule();
      if (!loaded.ok) return disabled(`RAG_LLM_PROVIDER is ollama but ${loaded.reason}`);
      const model = new loaded.module.ChatOllama({
        model: config.models.localModel,
        baseUrl: config.models.localBaseUrl,
        temperature: config.models.temperature,
        topP: config.models.topP,
        numPredict: config.models.numPredict,
        numCtx: config.models.numCtx,
      });
      return {
        status: "ready",
        model,
        provider: "ollama",
        modelName: config.models.localModel,
        numPredict: config.models.numPredict ?? null,
        numCtx: config.models.numCtx ?? null,
      };
    }
  }
}

/** One HTTP connection pool per timeout, shared by the chat models of a process. */
const dispatchers = new Map<number, Agent>();

/**
 * The fetch of the openai provider: undici's `fetch` with an `Agent` (its own version, so the two
 * agree) whose header and body timeouts are `RAG_LLM_TIMEOUT_MS` plus 1 s. Node's global fetch
 * gives up after undici's default of 300 s without response headers, which a slow local server
 * answering without streaming (the whole answer before the headers) reaches when the timeout is
 * raised above 5 minutes; with this, docqa's own timeout is the one that fires.
 */
function fetchWithTimeouts(timeoutMs: number): typeof globalThis.fetch {
  let dispatcher = dispatchers.get(timeoutMs);
  if (!dispatcher) {
    dispatcher = new Agent({ headersTimeout: timeoutMs + 1000, bodyTimeout: timeoutMs + 1000 });
    dispatchers.set(timeoutMs, dispatcher);
  }
  const agent = dispatcher;
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher: agent })) as unknown as typeof globalThis.fetch;
}
