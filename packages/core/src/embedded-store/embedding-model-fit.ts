/**
 * Whether vectors of an embedding model may be written to, or searched in, an organisation's
 * index of the embedded store.
 */
import { DocqaError } from "../errors/docqa-error.js";
import { type EmbeddingModelInfo, sameModel } from "../stores/vector-index.js";

/**
 * Fails unless vectors of `model` fit an index holding vectors of `indexModel` (undefined: none)
 * and `holdsChunks`: it holds vectors of `model`, or is empty. An index holding chunks without
 * vectors (ingested before a model was available) takes no vectors until it is reindexed, so that
 * its vector search never covers part of it.
 *
 * @throws {DocqaError} `embedding_model_mismatch` with `details.indexModel` (the index's model,
 *   or `null` for an index without vectors).
 */
export function assertModelFits(model: EmbeddingModelInfo, indexModel: EmbeddingModelInfo | undefined, holdsChunks: boolean): void {
  if (indexModel && !sameModel(indexModel, model)) {
    throw new DocqaError(
      "embedding_model_mismatch",
      `this organisation's index holds ${indexModel.dimension}-dimensional vectors of ${indexModel.id}, not of ${model.id} (${model.dimension}): reindex it (docqa reindex) or use the same EMBED_MODEL_NAME`,
      { component: "embedded-store", details: { indexModel: { ...indexModel } } },
    );
  }
  if (!indexModel && holdsChunks) {
    throw new DocqaError(
      "embedding_model_mismatch",
      `this organisation's index holds chunks without vectors (ingested with no embedding model), not vectors of ${model.id}: reindex it (docqa reindex)`,
      { component: "embedded-store", details: { indexModel: null } },
    );
  }
}
