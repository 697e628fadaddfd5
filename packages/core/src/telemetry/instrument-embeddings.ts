/**
 * Spans and throughput events for an embedding model, added by wrapping the model once where the
 * service prepares it (`prepareRuntime`): `docqa.embed.query` and `docqa.embed.documents`
 * (`docqa.embed.model`, `docqa.embed.texts`, `docqa.embed.chars`), an `embedded` event per call
 * (texts, characters and seconds, from which the embedding throughput is computed), and a
 * `backendError` event with backend `embeddings` when a call fails.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { EmbeddingState } from "../embeddings/prepare-embeddings.js";
import { overrideMethods } from "./override-methods.js";
import type { ServiceMetrics } from "./service-metrics.js";
import { errorCodeOf, withSpan } from "./tracing.js";

function observedEmbedding<T>(
  metrics: ServiceMetrics,
  model: string,
  operation: "query" | "documents",
  texts: readonly string[],
  call: () => Promise<T>,
): Promise<T> {
  const characters = texts.reduce((sum, text) => sum + text.length, 0);
  const attributes = { "docqa.embed.model": model, "docqa.embed.texts": texts.length, "docqa.embed.chars": characters };
  return withSpan(`docqa.embed.${operation}`, attributes, async () => {
    const started = performance.now();
    let outcome: "ok" | "error" = "error";
    try {
      const result = await call();
      outcome = "ok";
      return result;
    } catch (error) {
      metrics.backendError?.({ backend: "embeddings", operation: `embed_${operation}`, code: errorCodeOf(error) });
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      metrics.embedded?.({ operation, texts: texts.length, characters, seconds, model, outcome });
    }
  });
}

/** The embedding state with its model wrapped (see the module comment); other states as they are. */
export function instrumentEmbeddings(state: EmbeddingState, metrics: ServiceMetrics): EmbeddingState {
  if (state.status !== "ready") return state;
  const { embeddings, model } = state;
  const wrapped = overrideMethods<EmbeddingsInterface>(embeddings, {
    embedQuery: (text: string) => observedEmbedding(metrics, model.id, "query", [text], () => embeddings.embedQuery(text)),
    embedDocuments: (texts: string[]) => observedEmbedding(metrics, model.id, "documents", texts, () => embeddings.embedDocuments(texts)),
  } satisfies Partial<EmbeddingsInterface>);
  return { ...state, embeddings: wrapped };
}
