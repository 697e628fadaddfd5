/**
 * The health detail of a service (`RagService.health`), read from what has been prepared so far:
 * it never prepares anything and never waits for a backend. It counts organisations whose vector
 * index holds another model (without naming them: the health routes are public).
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { PreparedRuntime } from "./prepare-runtime.js";
import type { ServiceHealth } from "./rag-service.js";

/** The health of the service's parts, from `prepared.snapshot()`; `reindexing` counts reindex jobs running in this process. */
export function serviceHealth(config: DocqaConfig, prepared: PreparedRuntime, reindexing = 0): ServiceHealth {
  const { stores, embeddings, chatModel, answerer, reranker, indexModels } = prepared.snapshot();
  const otherModel = indexModels.snapshot().length;
  const embeddingsHealth: ServiceHealth["embeddings"] = !embeddings
    ? { status: "loading", model: config.embeddings.modelName }
    : embeddings.status === "ready"
      ? { status: "ready", model: embeddings.model.id }
      : { status: embeddings.status, model: config.embeddings.modelName, detail: embeddings.reason };
  return {
    status: embeddings?.status === "unavailable" ? "degraded" : "ok",
    embeddings: embeddingsHealth,
    stores: stores
      ? { vector: stores.vector?.name ?? null, keyword: stores.keyword.name }
      : { vector: config.stores.vector === "none" ? null : config.stores.vector, keyword: config.stores.keyword },
    answerer: answerer.name,
    chatModel: !chatModel
      ? { status: "loading" }
      : chatModel.status === "ready"
        ? { status: "ready", provider: chatModel.provider, model: chatModel.modelName }
        : { status: "disabled", detail: chatModel.reason },
    reranker: config.retrieval.useReranker && reranker ? reranker.name : null,
    vectorIndexes: {
      otherModel,
      reindexing,
      ...(otherModel > 0
        ? {
            detail: `${otherModel} organisation(s) hold vectors of another embedding model, or none: they are served with their index's model when it can be loaded, else with BM25 alone; rebuild them with docqa reindex --org <id>`,
          }
        : {}),
    },
  };
}
