/**
 * Loading of the optional provider packages. `@langchain/openai` and `@langchain/ollama` are
 * optional peer dependencies of `@docqa/core`: a deployment that uses only the extractive
 * answerer, or only one provider, installs only what it uses. `node-llama-cpp` (the in-process
 * runtime of `RAG_LLM_PROVIDER=llama-cpp`, with its native binaries) is an optional peer
 * dependency too. Each is imported on first use, and a missing package gives a clear message
 * instead of a crash at start-up.
 */

import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

/** The parts of `@langchain/openai` docqa uses. */
export type OpenAIModule = typeof import("@langchain/openai");

/** Constructor fields of `ChatOllama` that docqa sets (`@langchain/ollama` `ChatOllamaInput`). */
export interface ChatOllamaFields {
  model: string;
  baseUrl: string;
  temperature?: number | undefined;
  topP?: number | undefined;
  numPredict?: number | undefined;
  numCtx?: number | undefined;
}

/** Constructor fields of `OllamaEmbeddings` that docqa sets. */
export interface OllamaEmbeddingsFields {
  model: string;
  baseUrl: string;
}

/** The parts of `@langchain/ollama` docqa uses, typed here because the package is optional. */
export interface OllamaModule {
  ChatOllama: new (fields: ChatOllamaFields) => BaseChatModel;
  OllamaEmbeddings: new (fields: OllamaEmbeddingsFields) => EmbeddingsInterface;
}

/** Outcome of loading a provider package. */
export type ProviderModule<T> = { ok: true; module: T } | { ok: false; reason: string };

/** Imports `@langchain/openai`. */
export async function loadOpenAIModule(): Promise<ProviderModule<OpenAIModule>> {
  try {
    return { ok: true, module: await import("@langchain/openai") };
  } catch (error) {
    return { ok: false, reason: missingReason("@langchain/openai", error) };
  }
}

/** Imports `@langchain/ollama`. */
export async function loadOllamaModule(): Promise<ProviderModule<OllamaModule>> {
  // A variable specifier keeps TypeScript and bundlers from requiring the optional package.
  const specifier = "@langchain/ollama";
  try {
    const module = (await import(/* @vite-ignore */ specifier)) as Partial<OllamaModule>;
    if (typeof module.ChatOllama !== "function" || typeof module.OllamaEmbeddings !== "function") {
      return { ok: false, reason: `${specifier} does not export ChatOllama and OllamaEmbeddings: install a 1.x version` };
    }
    return { ok: true, module: module as OllamaModule };
  } catch (error) {
    return { ok: false, reason: missingReason(specifier, error) };
  }
}

/** `node-llama-cpp`, the runtime of `RAG_LLM_PROVIDER=llama-cpp`. */
export type NodeLlamaCppModule = typeof import("node-llama-cpp");

/** Imports `node-llama-cpp` (and, through it, the native binaries of this platform). */
export async function loadNodeLlamaCppModule(): Promise<ProviderModule<NodeLlamaCppModule>> {
  // A variable specifier keeps bundlers from requiring the optional package.
  const specifier = "node-llama-cpp";
  try {
    return { ok: true, module: (await import(/* @vite-ignore */ specifier)) as NodeLlamaCppModule };
  } catch (error) {
    return { ok: false, reason: missingReason(specifier, error) };
  }
}

function missingReason(name: string, error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND"
    ? `the package ${name} is not installed: run npm install ${name}`
    : `the package ${name} could not be loaded: ${(error as Error).message}`;
}
