/**
 * The embedding thread's entry (see `embedding-thread.ts`), run by piscina: it loads each model
 * it is asked for once, with the caller's settings, and embeds in this thread.
 */
import { serializeError } from "../errors/serialized-error.js";
import type { EmbeddingThreadOutcome, EmbeddingThreadTask } from "./embedding-thread.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

const models = new Map<string, TransformersEmbeddings>();

/** Embeds one call's texts; no texts only loads the model. Never throws: errors travel in the outcome. */
export default async function embed({ settings, texts }: EmbeddingThreadTask): Promise<EmbeddingThreadOutcome> {
  try {
    const key = JSON.stringify(settings);
    let model = models.get(key);
    if (!model) {
      model = new TransformersEmbeddings({ ...settings, thread: "caller" });
      models.set(key, model);
    }
    if (texts.length === 0) {
      await model.load();
      return { ok: true, data: new Float32Array(0), dimension: 0 };
    }
    const vectors = await model.embedPrepared(texts);
    const dimension = vectors[0]?.length ?? 0;
    const data = new Float32Array(vectors.length * dimension);
    vectors.forEach((vector, row) => {
      data.set(vector, row * dimension);
    });
    return { ok: true, data, dimension };
  } catch (error) {
    return { ok: false, error: serializeError(error, "embeddings") };
  }
}
