/**
 * The embedding side of a service from its configuration, per `EMBED_PROVIDER`: provider
 * embeddings for `openai` and `ollama` (`embeddingsFromProvider`), else `prepareEmbeddings`'
 * own choice (transformers.js with `EMBED_MODEL_NAME`, or none). Shared by the serving thread and
 * the ingestion worker threads, which load their own copy of the model once each.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { Logger } from "../logging/logger.js";
import { embeddingsFromProvider } from "./embeddings-from-provider.js";
import { type EmbeddingState, type EmbeddingsOption, prepareEmbeddings } from "./prepare-embeddings.js";

/**
 * Loads and checks the configured embeddings, or the caller's (`option.embeddings`).
 *
 * @throws {DocqaError} `embedding_dimension_mismatch` when the model's vectors do not have `EMBED_DIMENSION` components.
 */
export async function embeddingStateFromConfig(config: DocqaConfig, option: EmbeddingsOption, logger: Logger): Promise<EmbeddingState> {
  if (option.embeddings === undefined && (config.embeddings.provider === "openai" || config.embeddings.provider === "ollama")) {
    let reason: string | undefined;
    const recording: Logger = {
      ...logger,
      warn: (message, fields) => {
        reason = message;
        logger.warn(message, fields);
      },
    };
    const provided = await embeddingsFromProvider(config, { logger: recording });
    if (!provided) {
      return {
        status: "unavailable",
        reason: reason ?? `EMBED_PROVIDER is ${config.embeddings.provider} but no embeddings could be built`,
      };
    }
    return prepareEmbeddings(
      config,
      { embeddings: provided, embeddingModelId: option.embeddingModelId ?? config.embeddings.modelName },
      logger,
    );
  }
  return prepareEmbeddings(config, option, logger);
}
