/**
 * The real embedding model benchmarks use, when one is on this machine: the first found under
 * ../shared/data/models, $DOCQA_MODELS_DIR or .models (see `findLocalModels`). Nothing is
 * downloaded; without a model the hybrid configurations are skipped with a message.
 */
import { TransformersEmbeddings } from "@docqa/core";
import { findLocalModels, type LocalModel } from "@docqa/core/testing";

/** The model, or undefined after printing why the hybrid benchmarks are skipped. */
export function benchmarkModel(benchmark: string): LocalModel | undefined {
  const model = findLocalModels(["bge-small-en-v1.5", "all-MiniLM-L6-v2"])[0];
  if (!model)
    console.log(`${benchmark}: hybrid configurations skipped (no embedding model under ../shared/data/models or $DOCQA_MODELS_DIR)`);
  return model;
}

/** Loads the model's embeddings. */
export async function loadEmbeddings(model: LocalModel): Promise<TransformersEmbeddings> {
  const embeddings = new TransformersEmbeddings({
    modelName: model.id,
    localModelPath: model.root,
    allowRemote: false,
    dtype: model.dtype,
  });
  await embeddings.load();
  return embeddings;
}

/** The environment variables that make a docqa process (the CLI) use the model. */
export function modelEnvironment(model: LocalModel): Record<string, string> {
  return {
    EMBED_PROVIDER: "transformers",
    EMBED_MODEL_PATH: model.root,
    EMBED_MODEL_NAME: model.id,
    EMBED_DIMENSION: String(model.dimension),
    EMBED_DTYPE: model.dtype,
  };
}
