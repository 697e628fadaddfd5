/**
 * Embeddings of a model other than the configured one, by model id: the target of a reindex
 * (`docqa reindex --model`), or the model an organisation's index was rebuilt with while this
 * process still runs `EMBED_MODEL_NAME` (queries are then embedded with the index's model, so an
 * organisation keeps its vector search across a model change). Loaded with the configured
 * provider (`EMBED_PROVIDER`, `EMBED_MODEL_PATH`, `EMBED_DTYPE`, `EMBED_ALLOW_REMOTE`), or by the
 * caller's resolver; the dimension is read from the model's output, not from `EMBED_DIMENSION`.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { DocqaConfig } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { embeddingsFromProvider } from "./embeddings-from-provider.js";
import type { EmbeddingState } from "./prepare-embeddings.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

/** Gives the embeddings of a model id, or undefined to use the configured provider. */
export type EmbeddingModelResolver = (modelId: string) => EmbeddingsInterface | undefined;

/**
 * Loads model `modelId` and probes its dimension. Never throws: a model that cannot be loaded is
 * `unavailable` with the reason.
 */
export async function loadEmbeddingModel(
  config: DocqaConfig,
  modelId: string,
  options: {
    resolver?: EmbeddingModelResolver | undefined;
    logger: Logger;
    /** Where a transformers.js model runs its forward passes (`TransformersEmbeddings` `thread`); default `caller`. */
    thread?: "caller" | "worker" | undefined;
  },
): Promise<EmbeddingState> {
  let created: TransformersEmbeddings | undefined;
  try {
    let embeddings = options.resolver?.(modelId);
    if (!embeddings) {
      const provider = config.embeddings.provider;
      if (provider === "openai" || provider === "ollama") {
        embeddings = await embeddingsFromProvider(config, { modelName: modelId, logger: options.logger });
      } else if (provider === "transformers") {
        embeddings = created = new TransformersEmbeddings({
          modelName: modelId,
          localModelPath: config.embeddings.modelPath,
          allowRemote: config.embeddings.allowRemote,
          dtype: config.embeddings.dtype,
          thread: options.thread ?? "caller",
        });
      }
    }
    if (!embeddings)
      return { status: "unavailable", reason: `no embeddings for ${modelId} with EMBED_PROVIDER=${config.embeddings.provider}` };
    if (embeddings instanceof TransformersEmbeddings) await embeddings.load();
    const probe = await embeddings.embedQuery("dimension probe");
    if (probe.length === 0) return { status: "unavailable", reason: `${modelId} returned an empty vector` };
    const dispose = created ? () => (created as TransformersEmbeddings).dispose() : undefined;
    return { status: "ready", embeddings, model: { id: modelId, dimension: probe.length }, dispose };
  } catch (error) {
    await created?.dispose();
    return {
      status: "unavailable",
      reason: DocqaError.isInstance(error) ? error.publicMessage : `embedding model ${modelId} failed: ${(error as Error).message}`,
    };
  }
}

/**
 * Embeddings of other models by id, each loaded once (`loadEmbeddingModel`) and kept; the
 * configured model's id answers `configured()`. A model that cannot be loaded is logged and
 * retried on the next use. Used by the serving thread (`Runtime.embeddingsFor`) and by each
 * ingestion worker thread.
 */
export function createEmbeddingModelLoader(
  config: DocqaConfig,
  options: {
    configured: () => Promise<EmbeddingState>;
    resolver?: EmbeddingModelResolver | undefined;
    logger: Logger;
    /** Where the other models run their forward passes (`TransformersEmbeddings` `thread`); default `caller`. */
    thread?: "caller" | "worker" | undefined;
  },
): (modelId: string) => Promise<EmbeddingState> {
  const { logger } = options;
  const otherModels = new Map<string, Promise<EmbeddingState>>();
  return async (modelId) => {
    const configured = await options.configured();
    if (configured.status === "ready" && configured.model.id === modelId) return configured;
    let loading = otherModels.get(modelId);
    if (!loading) {
      loading = loadEmbeddingModel(config, modelId, { resolver: options.resolver, logger, thread: options.thread }).then((state) => {
        if (state.status === "ready")
          logger.info("embedding model loaded", { component: "embeddings", model: modelId, dimension: state.model.dimension });
        else {
          logger.warn(`embedding model ${modelId} unavailable: ${state.reason}`, { component: "embeddings", model: modelId });
          otherModels.delete(modelId); // retried on the next use
        }
        return state;
      });
      otherModels.set(modelId, loading);
    }
    return loading;
  };
}
