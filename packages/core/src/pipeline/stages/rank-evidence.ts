/**
 * Stage `rank-evidence` (after `build-context`): the context's answer units (sentences, table and
 * record cells, commands) ranked against the question (`rankEvidence`: one fitted scorer over
 * general features, with the dense signal when an embedding model is loaded). Reuses the
 * question's embedding from retrieval when retrieval embedded it with the same model.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { rankEvidence as rank } from "../../answering/rank-evidence.js";
import { sameModel } from "../../embeddings/organisation-index-models.js";
import { vectorIdentityOf } from "../../embeddings/prepare-embeddings.js";
import type { PredictState } from "../request-state.js";
import type { Runtime } from "../runtime.js";
import type { Stage } from "../stage.js";

/** Writes `evidence`. */
export const rankEvidence: Stage<PredictState> = {
  name: "rank-evidence",
  phase: "context",
  async run(state, runtime) {
    const embeddings = runtime.embeddings.status === "ready" ? runtime.embeddings.embeddings : undefined;
    // The question's embedding from retrieval, when its first query is the question itself and
    // retrieval embedded it with the model the dense signal uses (an organisation whose index holds
    // another model is searched with that one).
    const retrieved = state.retrievals[0];
    const sameSpace =
      runtime.embeddings.status === "ready" &&
      retrieved?.queryModel !== undefined &&
      sameModel(retrieved.queryModel, runtime.embeddings.model);
    const queryVector = sameSpace && retrieved?.query.text === state.query ? retrieved.queryVector : undefined;
    state.evidence = await rank(state.query, state.context, {
      analyzer: runtime.analyzer,
      embeddings,
      embeddingModel: runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : undefined,
      queryVector,
      embedPassages: passageEmbedder(runtime, state.orgId),
      signal: state.signal,
    });
  },
};

/**
 * The service's passage embedder (the dense signal, grounding): through its `PassageVectorCache`,
 * keyed by the model's vector identity and the organisation; the model itself when the cache is
 * off; undefined without an embedding model.
 */
export function passageEmbedder(
  runtime: Pick<Runtime, "embeddings" | "passageVectors">,
  organisation: string,
): ((texts: string[]) => Promise<number[][]>) | undefined {
  if (runtime.embeddings.status !== "ready") return undefined;
  const embeddings: EmbeddingsInterface = runtime.embeddings.embeddings;
  const cache = runtime.passageVectors;
  if (!cache) return (texts) => embeddings.embedDocuments(texts);
  const model = vectorIdentityOf(runtime.embeddings.model, runtime.embeddings.identity);
  return (texts) => cache.embedDocuments(embeddings, texts, { model, organisation });
}
