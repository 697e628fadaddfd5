/**
 * Stage `decide-answerable` (between `build-context` and `generate`): ranks the context's answer
 * units (sentences, table and record cells, commands) against the question (`rankEvidence`: one
 * fitted scorer over general features, with the dense signal when a model is loaded) and decides
 * with the fitted relevance and answerability models whether the context answers the question at
 * all (`decideAnswerable`). When it does not, `generate` returns the spec's
 * empty-context answer with `abstained: true` and the reason (`no_documents`, `low_relevance`,
 * `not_answerable`), without calling the answerer. `ABSTENTION_CHECKS` chooses the checks.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { decideAnswerable as decide } from "../../answering/decide-answerable.js";
import { rankEvidence } from "../../answering/rank-evidence.js";
import { sameModel } from "../../embeddings/organisation-index-models.js";
import { vectorIdentityOf } from "../../embeddings/prepare-embeddings.js";
import type { PredictState } from "../request-state.js";
import type { Runtime } from "../runtime.js";
import type { Stage } from "../stage.js";

/** Writes `evidence` and `answerability`. */
export const decideAnswerable: Stage<PredictState> = {
  name: "decide-answerable",
  phase: "context",
  async run(state, runtime) {
    const { analyzer } = runtime;
    const config = runtime.config.answering;
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
    const modelId = runtime.embeddings.status === "ready" ? runtime.embeddings.model.id : undefined;
    state.evidence = await rankEvidence(state.query, state.context, {
      analyzer,
      embeddings,
      embeddingModel: modelId,
      queryVector,
      embedPassages: passageEmbedder(runtime, state.orgId),
      signal: state.signal,
    });
    const checks = effectiveChecks(runtime);
    state.answerability = decide(
      state.evidence,
      {
        minRelevance: checks === "off" ? 0 : config.abstainMinRelevance,
        minAnswerability: config.abstainMinAnswerability,
        checkAnswer: checks === "all",
      },
      modelId,
    );
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

/** `ABSTENTION_CHECKS` resolved: `auto` is `all` for the extractive answerer and `relevance` before a model. */
export function effectiveChecks(runtime: Pick<Runtime, "config" | "answerer">): "all" | "relevance" | "off" {
  const configured = runtime.config.answering.abstentionChecks;
  if (configured !== "auto") return configured;
  return runtime.answerer.name === "extractive" ? "all" : "relevance";
}
