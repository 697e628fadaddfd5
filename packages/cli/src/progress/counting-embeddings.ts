/**
 * The configured local embedding model, counting the chunks it embeds, so progress can show
 * embeddings per second while a large file is embedded (file-level progress alone stays still for
 * minutes on a 400-page PDF).
 */
import { type DocqaConfig, TransformersEmbeddings } from "@docqa/core";

/**
 * A `TransformersEmbeddings` built from `config` exactly as the service builds its default one
 * (`EMBED_MODEL_NAME`, `EMBED_MODEL_PATH`, `EMBED_ALLOW_REMOTE`, `EMBED_DTYPE`, `EMBED_THREADS`), calling
 * `onEmbedded(n)` after each batch of `n` documents (chunks) is embedded; query embeddings are not
 * counted. Undefined unless `EMBED_PROVIDER` is `transformers` (provider embeddings are network
 * calls, reported per file only).
 */
export function countingEmbeddings(config: DocqaConfig, onEmbedded: (count: number) => void): TransformersEmbeddings | undefined {
  if (config.embeddings.provider !== "transformers") return undefined;
  class CountingEmbeddings extends TransformersEmbeddings {
    override async embedDocuments(texts: string[]): Promise<number[][]> {
      const vectors = await super.embedDocuments(texts);
      onEmbedded(texts.length);
      return vectors;
    }
  }
  return new CountingEmbeddings({
    modelName: config.embeddings.modelName,
    localModelPath: config.embeddings.modelPath,
    allowRemote: config.embeddings.allowRemote,
    dtype: config.embeddings.dtype,
    threads: config.embeddings.threads > 0 ? config.embeddings.threads : undefined,
  });
}
