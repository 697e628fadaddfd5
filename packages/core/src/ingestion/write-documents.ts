/**
 * The last step of indexing: writing document versions to the stores, for organisations whose
 * index holds vectors of another embedding model, or none (ingested before a model was
 * available), as well. Such an organisation's chunks are embedded with its index's model when it
 * can be loaded, else stored without vectors (BM25 only) with a warning, instead of the write
 * failing with `embedding_model_mismatch`; `docqa reindex` later rebuilds its vectors.
 */
import { indexModelOf, type OrganisationIndexModels, sameModel } from "../embeddings/organisation-index-models.js";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import type { DocumentVersion } from "../stores/chunk-record.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { isReindexable } from "../stores/reindexable-index.js";
import type { UpsertOptions } from "../stores/vector-index.js";
import { embedChunks } from "./embed-chunks.js";

/** What writing needs (a part of `IndexingDependencies`). */
export interface DocumentWriteDependencies {
  stores: DocumentStores;
  /** The configured embedding model. */
  embeddings: EmbeddingState;
  /** Organisations whose index holds another model or none; without it, a mismatch fails the write. */
  indexModels?: OrganisationIndexModels | undefined;
  /** Embeddings of another model by id. */
  embeddingsFor?: ((modelId: string) => Promise<EmbeddingState>) | undefined;
}

/**
 * The embeddings to embed the organisation's chunks with: the configured model, or the model its
 * index is known to hold (`indexModels`); undefined to store them without vectors (no model, an
 * index without vectors, or an index model that cannot be loaded).
 */
export async function embeddingsForOrganisation(
  dependencies: DocumentWriteDependencies,
  orgId: string,
): Promise<EmbeddingState | undefined> {
  const configured = dependencies.embeddings;
  if (configured.status !== "ready") return undefined; // vectors are off: nothing to choose
  const index = dependencies.stores.vector;
  const indexModel =
    isReindexable(index) && dependencies.indexModels
      ? dependencies.indexModels.observe(
          orgId,
          await index.vectorModel(orgId),
          "its new chunks are embedded with that model when it can be loaded, else stored without vectors",
        )
      : dependencies.indexModels?.indexModel(orgId);
  if (indexModel === null) return undefined;
  if (indexModel && !(configured.status === "ready" && sameModel(configured.model, indexModel))) {
    const other = dependencies.embeddingsFor ? await dependencies.embeddingsFor(indexModel.id) : undefined;
    return other?.status === "ready" && sameModel(other.model, indexModel) ? other : undefined;
  }
  return configured.status === "ready" ? configured : undefined;
}

/**
 * Writes `versions` (see `DocumentStores.write`). When the organisation's index refuses their
 * vectors with `embedding_model_mismatch`, learns its model, then writes them again embedded
 * with that model, or without vectors when it holds none or the model cannot be loaded.
 *
 * @throws {DocqaError} from the stores (`store_unavailable`; `embedding_model_mismatch` when no
 *   `indexModels` is given).
 */
export async function writeDocuments(
  dependencies: DocumentWriteDependencies,
  orgId: string,
  versions: readonly DocumentVersion[],
  options: UpsertOptions,
): Promise<void> {
  try {
    await dependencies.stores.write(orgId, versions, options);
    return;
  } catch (error) {
    const indexModel = indexModelOf(error);
    if (indexModel === undefined || !options.embeddingModel || !dependencies.indexModels) throw error;
    dependencies.indexModels.learn(
      orgId,
      error,
      "its new chunks are embedded with that model when it can be loaded, else stored without vectors",
    );
    if (indexModel) {
      const other = dependencies.embeddingsFor ? await dependencies.embeddingsFor(indexModel.id) : undefined;
      if (other?.status === "ready" && sameModel(other.model, indexModel)) {
        await embedChunks(versions, other.embeddings);
        await dependencies.stores.write(orgId, versions, { ...options, embeddingModel: other.model });
        return;
      }
    }
    const withoutVectors = versions.map((version) => ({
      ...version,
      chunks: version.chunks.map((chunk) => ({ ...chunk, embedding: undefined })),
    }));
    await dependencies.stores.write(orgId, withoutVectors, { ...options, embeddingModel: undefined });
  }
}
