/**
 * The health detail of a service (`RagService.health`), read from what has been prepared so far:
 * it never prepares anything and never waits for a backend.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import type { PreparedRuntime } from "./prepare-runtime.js";
import type { ServiceHealth } from "./rag-service.js";

/** The health of the service's parts, from `prepared.snapshot()`. */
export function serviceHealth(config: DocqaConfig, prepared: PreparedRuntime): ServiceHealth {
  const { stores, embeddings, chatModel, answerer, reranker } = prepared.snapshot();
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
  };
}
