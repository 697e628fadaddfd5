/**
 * Start-up of the embedding model: choose and load it, check the dimension against
 * `EMBED_DIMENSION`, and fall back to BM25-only retrieval, with one clear warning, when no model
 * can be loaded. Vectors are never faked. Query embeddings are cached per service (bounded LRU);
 * chunk embeddings go through the content-addressed cache in `DATA_DIR`.
 */
import { join, resolve } from "node:path";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { type DocqaConfig, defaultEmbeddingDimension, defaultEmbeddingModel } from "../config/config-schema.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { EmbeddingCacheSettings } from "./embedding-cache.js";
import { findEmbeddingModels, type LocalModel } from "./find-embedding-models.js";
import { QueryCachedEmbeddings } from "./query-cached-embeddings.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

/** The embedding side of a running service. */
export type EmbeddingState =
  | {
      status: "ready";
      embeddings: EmbeddingsInterface;
      model: EmbeddingModelInfo;
      /**
       * Identity of the vectors, for caches keyed by model: `TransformersEmbeddings.vectorIdentity`
       * for a transformers.js model, else the model id and dimension. Undefined means `model.id`
       * with `model.dimension`.
       */
      identity?: string | undefined;
      /** The chunk embedding cache (`EMBED_CACHE_MAX_ENTRIES` > 0). */
      cache?: EmbeddingCacheSettings | undefined;
      /**
       * Ends the model's embedding thread or releases its session (`TransformersEmbeddings.dispose`);
       * set when the service loaded a transformers.js model itself, undefined for the caller's embeddings.
       */
      dispose?: (() => Promise<void>) | undefined;
    }
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
  /**
   * Where a transformers.js model the service loads itself runs its forward passes
   * (`TransformersEmbeddings` `thread`); default `caller`. The serving thread passes `worker`
   * when `EMBED_WORKER` is true; the ingestion workers embed in their own thread.
   */
  thread?: "caller" | "worker" | undefined;
}

/** The file of the chunk embedding cache in `DATA_DIR`. */
export const embeddingCacheFile = "embedding-cache.sqlite";

/**
 * Loads and checks the embedding model.
 *
 * With transformers.js, when `EMBED_MODEL_NAME` and `EMBED_DIMENSION` are left at their
 * defaults and `EMBED_MODEL_PATH` does not hold the default model but holds exactly one other
 * embedding model, that model is used, with a warning naming the settings that pin it (see
 * `docs/models.md`). With several models there, none is picked: the warning lists them.
 *
 * @throws {DocqaError} `embedding_dimension_mismatch` when the model's vectors do not have
 *   `EMBED_DIMENSION` components; this is a configuration error, so start-up fails.
 */
export async function prepareEmbeddings(config: DocqaConfig, option: EmbeddingsOption, logger: Logger): Promise<EmbeddingState> {
  if (option.embeddings === null || (option.embeddings === undefined && config.embeddings.provider === "none")) {
    return { status: "disabled", reason: "embeddings disabled by configuration; retrieval uses BM25 only" };
  }
  const local = option.embeddings ? undefined : chooseLocalModel(config, logger);
  if (local?.missing) {
    logger.warn(`embedding model unavailable; retrieval uses BM25 only: ${local.missing}`, {
      component: "embeddings",
      model: config.embeddings.modelName,
    });
    return { status: "unavailable", reason: local.missing };
  }
  const modelName = local?.model?.id ?? config.embeddings.modelName;
  const dimension = local?.model?.dimension ?? config.embeddings.dimension;
  // A TransformersEmbeddings given by the caller is loaded and keyed like ours.
  const given = option.embeddings instanceof TransformersEmbeddings ? option.embeddings : undefined;
  const transformers = option.embeddings
    ? given
    : new TransformersEmbeddings({
        modelName,
        localModelPath: local?.model?.root ?? config.embeddings.modelPath,
        allowRemote: config.embeddings.allowRemote,
        dtype: config.embeddings.dtype,
        threads: config.embeddings.threads > 0 ? config.embeddings.threads : undefined,
        thread: option.thread ?? "caller",
      });
  const embeddings = option.embeddings ?? (transformers as TransformersEmbeddings);
  const modelId = option.embeddingModelId ?? modelIdOf(embeddings) ?? modelName;
  let probe: number[];
  try {
    if (transformers) await transformers.load();
    probe = await embeddings.embedQuery("dimension probe");
  } catch (error) {
    if (!given) await transformers?.dispose();
    if (!option.embeddings && !config.embeddings.chosen) {
      // Nothing asked for a model and the default one is not on this machine: BM25 only, quietly.
      logger.debug(`no embedding model: ${DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message}`, {
        component: "embeddings",
        model: modelId,
      });
      return { status: "disabled", reason: noEmbeddingModelReason };
    }
    const reason = DocqaError.isInstance(error) ? error.publicMessage : `embedding model ${modelId} failed: ${(error as Error).message}`;
    logger.warn(`embedding model unavailable; retrieval uses BM25 only: ${reason}`, {
      component: "embeddings",
      model: modelId,
    });
    return { status: "unavailable", reason };
  }
  if (probe.length !== dimension) {
    if (!given) await transformers?.dispose();
    throw new DocqaError(
      "embedding_dimension_mismatch",
      `EMBED_DIMENSION is ${dimension} but ${modelId} produces ${probe.length}-dimensional vectors: set EMBED_DIMENSION=${probe.length} or choose a ${dimension}-dimensional model`,
      { component: "embeddings" },
    );
  }
  const cache: EmbeddingCacheSettings | undefined =
    config.embeddings.cacheMaxEntries > 0
      ? {
          path: join(resolve(config.stores.dataDir), embeddingCacheFile),
          namespace: transformers ? `${modelId}@${transformers.dtype}` : modelId,
          maxEntries: config.embeddings.cacheMaxEntries,
        }
      : undefined;
  return {
    status: "ready",
    embeddings: new QueryCachedEmbeddings(embeddings),
    model: { id: modelId, dimension: probe.length },
    identity: transformers ? transformers.vectorIdentity : vectorIdentityOf({ id: modelId, dimension: probe.length }),
    cache,
    dispose: transformers && !given ? () => transformers.dispose() : undefined,
  };
}

/**
 * Why retrieval is BM25 only when no setting chose an embedding model and the default one is not
 * in transformers.js's local cache (health shows it; `docqa serve` says it once at start).
 */
export const noEmbeddingModelReason = `no embedding model configured, so retrieval uses BM25 only: set EMBED_MODEL_PATH to a folder of models (with EMBED_MODEL_NAME and EMBED_DIMENSION), or EMBED_ALLOW_REMOTE=true to download ${defaultEmbeddingModel} (docs/models.md)`;

/**
 * What `EMBED_MODEL_PATH` gives for transformers.js: nothing to change when it holds
 * `EMBED_MODEL_NAME`; the one model there when the name is left at its default, the default is
 * absent and `EMBED_DIMENSION` is its default or that model's (also when the path is that model's
 * own folder); else, without trying to load anything,
 * why no model can be loaded from it (`missing`: the models it holds, and the settings that pick
 * one).
 */
function chooseLocalModel(config: DocqaConfig, logger: Logger): { model?: LocalModel; missing?: string } | undefined {
  const path = config.embeddings.modelPath;
  if (config.embeddings.provider !== "transformers" || path === undefined) return undefined;
  const name = config.embeddings.modelName;
  const found = findEmbeddingModels([path]);
  const named = found.find((model) => model.id === name && resolve(model.root) === resolve(path));
  if (named) return undefined;
  const isDefault = name === defaultEmbeddingModel;
  const only = found.length === 1 ? (found[0] as LocalModel) : undefined;
  // The one model there, when the name is left at its default and the dimension at its default or the model's.
  if (isDefault && only && (config.embeddings.dimension === defaultEmbeddingDimension || config.embeddings.dimension === only.dimension)) {
    const model = only;
    logger.warn(
      `the default embedding model ${name} is not in EMBED_MODEL_PATH (${path}); using the one model there, ${model.id} (${model.dimension} dimensions). Set EMBED_MODEL_NAME=${model.id} EMBED_DIMENSION=${model.dimension} to keep it`,
      { component: "embeddings", model: model.id },
    );
    return { model };
  }
  const settings = (model: LocalModel) =>
    `${resolve(model.root) === resolve(path) ? "" : `EMBED_MODEL_PATH=${model.root} `}EMBED_MODEL_NAME=${model.id} EMBED_DIMENSION=${model.dimension}`;
  const which = isDefault ? `${name} (the default EMBED_MODEL_NAME)` : `EMBED_MODEL_NAME ${name}`;
  if (found.length === 0)
    return {
      missing: `EMBED_MODEL_PATH (${path}) holds no embedding model (no <name>/config.json, tokenizer.json and onnx/ folder), so ${which} cannot be loaded from it`,
    };
  return {
    missing: `EMBED_MODEL_PATH (${path}) does not hold ${which}; it holds ${found.length === 1 ? "one model" : `${found.length} models`}: set ${found.map(settings).join(", or ")}`,
  };
}

/** The identity of a ready state's vectors ({@link EmbeddingState} `identity`, else model id and dimension). */
export function vectorIdentityOf(model: EmbeddingModelInfo, identity?: string): string {
  return identity ?? `${model.id} dimension=${model.dimension}`;
}

function modelIdOf(embeddings: EmbeddingsInterface): string | undefined {
  const candidate = embeddings as { model?: unknown; modelName?: unknown };
  if (typeof candidate.model === "string") return candidate.model;
  if (typeof candidate.modelName === "string") return candidate.modelName;
  return undefined;
}
