/**
 * Start-up of the embedding model: load, check the dimension against `EMBED_DIMENSION`, and
 * fall back to BM25-only retrieval, with one clear warning, when no model can be loaded.
 * Vectors are never faked.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { DocqaConfig } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

/** The embedding side of a running service. */
export type EmbeddingState =
  | { status: "ready"; embeddings: EmbeddingsInterface; model: EmbeddingModelInfo }
  | { status: "unavailable"; reason: string }
  | { status: "disabled"; reason: string };

/** How the service was given its embeddings. */
export interface EmbeddingsOption {
  /**
   * A LangChain embeddings object; `null` disables vectors; `undefined` follows `EMBED_PROVIDER`
   * (loads `EMBED_MODEL_NAME` with transformers.js, or none).
   */
  embeddings?: EmbeddingsInterface | null | undefined;
  /** Model id recorded with the index for user-supplied embeddings; default the object's `model`/`modelName`. */
  embeddingModelId?: string | undefined;
}

/**
 * Loads and checks the embedding model.
 *
 * @throws {DocqaError} `embedding_dimension_mismatch` when the model's vectors do not have
 *   `EMBED_DIMENSION` components; this is a configuration error, so start-up fails.
 */
export async function prepareEmbeddings(config: DocqaConfig, option: EmbeddingsOption, logger: Logger): Promise<EmbeddingState> {
  if (option.embeddings === null || (option.embeddings === undefined && config.embeddings.provider === "none")) {
    return { status: "disabled", reason: "embeddings disabled by configuration; retrieval uses BM25 only" };
  }
  const embeddings =
    option.embeddings ??
    new TransformersEmbeddings({
      modelName: config.embeddings.modelName,
      localModelPath: config.embeddings.modelPath,
      allowRemote: config.embeddings.allowRemote,
      dtype: config.embeddings.dtype,
    });
  const modelId = option.embeddingModelId ?? modelIdOf(embeddings) ?? config.embeddings.modelName;
  let probe: number[];
  try {
    if (embeddings instanceof TransformersEmbeddings) await embeddings.load();
    probe = await embeddings.embedQuery("dimension probe");
  } catch (error) {
    const reason = DocqaError.isInstance(error) ? error.publicMessage : `embedding model ${modelId} failed: ${(error as Error).message}`;
    logger.warn(`embedding model unavailable; retrieval uses BM25 only: ${reason}`, { component: "embeddings", model: modelId });
    return { status: "unavailable", reason };
  }
  if (probe.length !== config.embeddings.dimension) {
    throw new DocqaError(
      "embedding_dimension_mismatch",
      `EMBED_DIMENSION is ${config.embeddings.dimension} but ${modelId} produces ${probe.length}-dimensional vectors: set EMBED_DIMENSION=${probe.length} or choose a ${config.embeddings.dimension}-dimensional model`,
      { component: "embeddings" },
    );
  }
  return { status: "ready", embeddings, model: { id: modelId, dimension: probe.length } };
}

function modelIdOf(embeddings: EmbeddingsInterface): string | undefined {
  const candidate = embeddings as { model?: unknown; modelName?: unknown };
  if (typeof candidate.model === "string") return candidate.model;
  if (typeof candidate.modelName === "string") return candidate.modelName;
  return undefined;
}
