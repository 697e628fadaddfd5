/**
 * The model threads' entry (see `model-thread.ts`), run by piscina: it loads each model it is
 * asked for once, with the caller's settings, and runs it in this thread. A call's `kind` says
 * which: `embed` (the embedding thread, `TransformersEmbeddings`) or `rerank` (the reranker
 * thread, `CrossEncoderReranker`).
 */
import { type EmbeddingThreadResult, type EmbeddingThreadTask, TransformersEmbeddings } from "../embeddings/transformers-embeddings.js";
import { serializeError } from "../errors/serialized-error.js";
import { CrossEncoderReranker, type RerankerThreadTask } from "../retrieval/cross-encoder-reranker.js";
import type { ModelThreadOutcome } from "./model-thread.js";

/** A call of a model thread. */
export type ModelThreadTask = EmbeddingThreadTask | RerankerThreadTask;

const embeddingModels = new Map<string, TransformersEmbeddings>();
const rerankers = new Map<string, CrossEncoderReranker>();

/** The model of `settings` in `models`, created on first use. */
function modelOf<Model>(models: Map<string, Model>, settings: object, create: () => Model): Model {
  const key = JSON.stringify(settings);
  let model = models.get(key);
  if (!model) {
    model = create();
    models.set(key, model);
  }
  return model;
}

/** Embeds one call's texts, the vectors row after row; no texts only loads the model. */
async function embed({ settings, texts }: EmbeddingThreadTask): Promise<EmbeddingThreadResult> {
  const model = modelOf(embeddingModels, settings, () => new TransformersEmbeddings({ ...settings, thread: "caller" }));
  if (texts.length === 0) {
    await model.load();
    return { data: new Float32Array(0), dimension: 0 };
  }
  const vectors = await model.embedPrepared(texts);
  const dimension = vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * dimension);
  vectors.forEach((vector, row) => {
    data.set(vector, row * dimension);
  });
  return { data, dimension };
}

/** Scores one call's (query, passage) pairs, stopping between passes once asked; no passages only loads the model. */
async function rerank({ settings, query, passages, cancel }: RerankerThreadTask): Promise<number[]> {
  const reranker = modelOf(rerankers, settings, () => new CrossEncoderReranker({ ...settings, thread: "caller" }));
  if (passages.length === 0) {
    await reranker.load();
    return [];
  }
  return reranker.scorePassages(query, passages, () => Atomics.load(cancel, 0) === 1);
}

/** Runs one call. Never throws: errors travel in the outcome. */
export default async function run(task: ModelThreadTask): Promise<ModelThreadOutcome<EmbeddingThreadResult | number[]>> {
  try {
    return { ok: true, result: task.kind === "embed" ? await embed(task) : await rerank(task) };
  } catch (error) {
    return { ok: false, error: serializeError(error, task.kind === "embed" ? "embeddings" : "reranker") };
  }
}
