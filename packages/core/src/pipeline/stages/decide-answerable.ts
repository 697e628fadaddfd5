/**
 * Stage `decide-answerable` (between `build-context` and `generate`): ranks the context's
 * sentences against the question (`rankEvidence`: BM25 term weights, the dense model when one is
 * loaded, question-type cues) and decides from absolute signals whether the context answers the
 * question at all (`decideAnswerable`). When it does not, `generate` returns the spec's
 * empty-context answer with `abstained: true` and the reason (`no_documents`, `low_relevance`,
 * `not_answerable`), without calling the answerer. `ABSTENTION_CHECKS` chooses the checks.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { decideAnswerable as decide } from "../../answering/decide-answerable.js";
import { defaultDenseThreshold } from "../../answering/dense-thresholds.js";
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
    state.evidence = await rankEvidence(state.query, state.context, {
      analyzer,
      embeddings,
      queryVector,
      embedPassages: embeddings ? passageEmbedder(runtime, embeddings, state.orgId) : undefined,
      signal: state.signal,
    });
    const checks = effectiveChecks(runtime);
    const relevance = checks !== "off";
    state.answerability = decide(
      state.query,
      state.evidence,
      {
        minPassageCoverage: relevance ? config.abstainMinPassageCoverage : 0,
        minPassageSpecificity: relevance ? config.abstainMinPassageSpecificity : 0,
        minTypedPassageCoverage: relevance ? config.abstainTypedMinPassageCoverage : 0,
        minDense: !relevance
          ? -1
          : (config.abstainMinDense ?? (runtime.embeddings.status === "ready" ? defaultDenseThreshold(runtime.embeddings.model.id) : -1)),
        minSentenceCoverage: config.extractiveMinCoverage,
        checkAnswer: checks === "all",
      },
      analyzer,
    );
  },
};

/**
 * The dense signal's passage embedder: through the service's `PassageVectorCache`, keyed by the
 * model's vector identity and the organisation; the model itself when the cache is off.
 */
function passageEmbedder(
  runtime: Pick<Runtime, "embeddings" | "passageVectors">,
  embeddings: EmbeddingsInterface,
  organisation: string,
): ((texts: string[]) => Promise<number[][]>) | undefined {
  const cache = runtime.passageVectors;
  if (!cache || runtime.embeddings.status !== "ready") return undefined;
  const model = vectorIdentityOf(runtime.embeddings.model, runtime.embeddings.identity);
  return (texts) => cache.embedDocuments(embeddings, texts, { model, organisation });
}

/** `ABSTENTION_CHECKS` resolved: `auto` is `all` for the extractive answerer and `relevance` before a model. */
export function effectiveChecks(runtime: Pick<Runtime, "config" | "answerer">): "all" | "relevance" | "off" {
  const configured = runtime.config.answering.abstentionChecks;
  if (configured !== "auto") return configured;
  return runtime.answerer.name === "extractive" ? "all" : "relevance";
}
