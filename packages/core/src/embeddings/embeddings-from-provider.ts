/**
 * Embeddings served by the model providers, as an alternative to the in-process transformers.js
 * model: `OpenAIEmbeddings` (OpenAI or any OpenAI-compatible `/v1/embeddings`, with
 * `HOSTEDLLM_API_KEY` and `HOSTEDLLM_BASE_URL`) and `OllamaEmbeddings` (`/api/embed` at
 * `LOCALLLM_BASE_URL`). The model is `EMBED_MODEL_NAME`; `prepareEmbeddings` then checks its
 * dimension against `EMBED_DIMENSION` as for any embeddings object.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { placeholderApiKey } from "../chat-models/chat-model-from-config.js";
import { loadOllamaModule, loadOpenAIModule } from "../chat-models/load-provider-module.js";
import type { DocqaConfig } from "../config/config-schema.js";
import { type Logger, silentLogger } from "../logging/logger.js";

/** The configuration fields {@link embeddingsFromProvider} reads. */
export type ProviderEmbeddingsConfig = Pick<DocqaConfig, "embeddings" | "models">;

/** Options of {@link embeddingsFromProvider}. */
export interface ProviderEmbeddingsOptions {
  /** Provider; default `config.embeddings.provider` when it is `openai` or `ollama` (proposed values of `EMBED_PROVIDER`). */
  provider?: "openai" | "ollama";
  /** Model; default `EMBED_MODEL_NAME`. */
  modelName?: string;
  /** HTTP timeout of the OpenAI client in milliseconds; default 30000. */
  timeoutMs?: number;
  /** Retries of the OpenAI client (LangChain's, honouring `Retry-After`); default 2. */
  maxRetries?: number;
  logger?: Logger;
}

/**
 * Builds provider embeddings, or returns undefined (with a logged reason) when the provider is
 * not `openai`/`ollama`, is not configured, or its package is missing.
 *
 * For OpenAI `text-embedding-3-*` models the request asks for `EMBED_DIMENSION` dimensions (those
 * models can shorten their vectors); other models are sent no `dimensions`, which servers
 * without that parameter would reject.
 *
 * @example
 * ```ts
 * const embeddings = await embeddingsFromProvider(config, { provider: "openai", modelName: "text-embedding-3-small" });
 * ```
 */
export async function embeddingsFromProvider(
  config: ProviderEmbeddingsConfig,
  options: ProviderEmbeddingsOptions = {},
): Promise<EmbeddingsInterface | undefined> {
  const logger = options.logger ?? silentLogger;
  const configured = config.embeddings.provider as string;
  const provider = options.provider ?? (configured === "openai" || configured === "ollama" ? configured : undefined);
  const modelName = options.modelName ?? config.embeddings.modelName;
  const unavailable = (reason: string) => {
    logger.warn(`provider embeddings unavailable: ${reason}`, { component: "embeddings", model: modelName });
    return undefined;
  };
  if (provider === "openai") {
    if (!config.models.hostedApiKey && !config.models.hostedBaseUrl)
      return unavailable("neither HOSTEDLLM_API_KEY nor HOSTEDLLM_BASE_URL is set");
    const loaded = await loadOpenAIModule();
    if (!loaded.ok) return unavailable(loaded.reason);
    return new loaded.module.OpenAIEmbeddings({
      model: modelName,
      apiKey: config.models.hostedApiKey ?? placeholderApiKey,
      configuration: config.models.hostedBaseUrl ? { baseURL: config.models.hostedBaseUrl } : {},
      dimensions: modelName.startsWith("text-embedding-3") ? config.embeddings.dimension : undefined,
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
    });
  }
  if (provider === "ollama") {
    const loaded = await loadOllamaModule();
    if (!loaded.ok) return unavailable(loaded.reason);
    return new loaded.module.OllamaEmbeddings({ model: modelName, baseUrl: config.models.localBaseUrl });
  }
  return unavailable(`EMBED_PROVIDER is ${configured}, not openai or ollama`);
}
