/**
 * Provider embeddings with the real LangChain clients against the wire-protocol servers, and
 * through `prepareEmbeddings` as the service would use them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOllamaModule } from "../chat-models/load-provider-module.js";
import { resolveConfig } from "../config/load-config.js";
import { silentLogger } from "../logging/logger.js";
import { type OllamaWireServer, startOllamaWireServer } from "../testing/ollama-wire-server.js";
import { deterministicVector, type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { embeddingsFromProvider } from "./embeddings-from-provider.js";
import { prepareEmbeddings } from "./prepare-embeddings.js";

// `@langchain/ollama` is a dependency of `@docqa/core`: the OllamaEmbeddings case always runs.
const ollama = await loadOllamaModule();

/** The vector as the wire carries it with the SDK's default base64 encoding: float32 precision. */
const asFloat32 = (vector: number[]) => Array.from(new Float32Array(vector));

let openai: OpenAIWireServer;
let ollamaServer: OllamaWireServer;
beforeAll(async () => {
  openai = await startOpenAIWireServer({ embeddingDimension: 8 });
  ollamaServer = await startOllamaWireServer({ embeddingDimension: 8 });
});
afterAll(async () => {
  await openai.close();
  await ollamaServer.close();
});

describe("embeddingsFromProvider", () => {
  it("embeds queries and documents with OpenAIEmbeddings at HOSTEDLLM_BASE_URL", async () => {
    const config = resolveConfig({ models: { hostedApiKey: "secret-key", hostedBaseUrl: openai.baseUrl }, embeddings: { dimension: 8 } });
    const embeddings = await embeddingsFromProvider(config, { provider: "openai", modelName: "bge-small" });
    expect(embeddings).toBeDefined();
    expect(await embeddings?.embedQuery("vacation days")).toEqual(asFloat32(deterministicVector("vacation days", 8)));
    expect(await embeddings?.embedDocuments(["a b", "c d"])).toEqual([
      asFloat32(deterministicVector("a b", 8)),
      asFloat32(deterministicVector("c d", 8)),
    ]);
    const request = openai.requests.at(-1);
    expect(request?.path).toBe("/v1/embeddings");
    expect(request?.headers.authorization).toBe("Bearer secret-key");
    expect(request?.body).toEqual({ model: "bge-small", input: ["a b", "c d"], encoding_format: "base64" });
  });

  it("asks text-embedding-3 models for EMBED_DIMENSION dimensions", async () => {
    const config = resolveConfig({ models: { hostedApiKey: "secret-key", hostedBaseUrl: openai.baseUrl }, embeddings: { dimension: 16 } });
    const embeddings = await embeddingsFromProvider(config, { provider: "openai", modelName: "text-embedding-3-small" });
    expect(await embeddings?.embedQuery("x y")).toHaveLength(16);
    expect(openai.requests.at(-1)?.body).toMatchObject({ model: "text-embedding-3-small", dimensions: 16 });
  });

  it("passes prepareEmbeddings' dimension check", async () => {
    const config = resolveConfig({ models: { hostedBaseUrl: openai.baseUrl }, embeddings: { dimension: 8 } });
    const embeddings = await embeddingsFromProvider(config, { provider: "openai", modelName: "bge-small" });
    const state = await prepareEmbeddings(config, { embeddings }, silentLogger);
    expect(state).toMatchObject({ status: "ready", model: { id: "bge-small", dimension: 8 } });
  });

  it("is undefined without a provider, or for openai without a key or base URL", async () => {
    expect(await embeddingsFromProvider(resolveConfig({}))).toBeUndefined();
    expect(await embeddingsFromProvider(resolveConfig({}), { provider: "openai" })).toBeUndefined();
  });

  it("embeds with OllamaEmbeddings at LOCALLLM_BASE_URL", async () => {
    expect(ollama).toMatchObject({ ok: true });
    const config = resolveConfig({ models: { localBaseUrl: ollamaServer.baseUrl }, embeddings: { dimension: 8 } });
    const embeddings = await embeddingsFromProvider(config, { provider: "ollama", modelName: "nomic-embed-text" });
    expect(await embeddings?.embedQuery("vacation days")).toEqual(deterministicVector("vacation days", 8));
    expect(ollamaServer.requests.at(-1)).toMatchObject({ path: "/api/embed", body: { model: "nomic-embed-text" } });
  });

  it.runIf(!ollama.ok)("is undefined for ollama when @langchain/ollama is not installed", async () => {
    expect(await embeddingsFromProvider(resolveConfig({}), { provider: "ollama" })).toBeUndefined();
  });
});
