/**
 * The dense model check of `docqa eval`: compares the vector-only nDCG@10 measured on a BEIR
 * data set with the figure published for the embedding model, so that a silent fallback to a
 * wrong or broken embedding (wrong pooling, missing query prefix, a different model) cannot pass
 * unnoticed.
 */

/** A published dense-retrieval figure. */
export interface PublishedDenseScore {
  /** Model id suffix matched against the configured model, for example `bge-small-en-v1.5`. */
  model: string;
  /** BEIR data set name, lower case, as the folder is named (`scifact`). */
  dataset: string;
  /** Published nDCG@10 on the test split, 0..1. */
  ndcgAt10: number;
  /** Where the figure comes from. */
  source: string;
}

/**
 * Published figures the check knows. Sources: the MTEB results repository
 * (github.com/embeddings-benchmark/results, `results/<model>/<revision>/SciFact.json`, test split,
 * `ndcg_at_10`).
 */
export const publishedDenseScores: readonly PublishedDenseScore[] = [
  {
    model: "all-MiniLM-L6-v2",
    dataset: "scifact",
    ndcgAt10: 0.6451,
    source:
      "MTEB results, sentence-transformers/all-MiniLM-L6-v2, SciFact test (reproduced by the fp32 ONNX export, ../shared/data/models/README.md)",
  },
  {
    model: "bge-small-en-v1.5",
    dataset: "scifact",
    ndcgAt10: 0.71273,
    source: "MTEB results, BAAI/bge-small-en-v1.5 rev 5c38ec7, SciFact test (mteb 1.20.0)",
  },
];

/**
 * Default tolerance of {@link checkDenseModel} below the published figure, absolute nDCG@10. A
 * wrong embedding (pooling, prefix, truncation, another model) lowers the figure by 0.1 or more.
 */
export const denseModelCheckTolerance = 0.02;

/**
 * How far above the published figure a measurement still passes. Our pipeline differs from
 * MTEB's: documents are cut into chunks of `CHUNK_SIZE` characters and ranked by their best
 * chunk, which raises the figure (all-MiniLM-L6-v2 int8 on SciFact: 0.6681 against 0.6451
 * published; bge-small-en-v1.5: 0.7209 against 0.7127). More than this above is as suspect as
 * below (a leak of judgements into the index, a wrong data set).
 */
export const denseModelCheckHeadroom = 0.05;

/** Outcome of {@link checkDenseModel}. */
export type DenseModelCheck =
  | { status: "passed" | "failed"; model: string; dataset: string; measured: number; published: number; tolerance: number; source: string }
  | { status: "unknown"; model: string; dataset: string; measured: number };

/**
 * Compares a measured dense-only nDCG@10 with the published figure for `model` on `dataset`.
 *
 * @param model - the embedding model id (`EMBED_MODEL_NAME`); matched by suffix, case-insensitively.
 * @param dataset - the data set name (the BEIR folder's name, for example `scifact`).
 * @param measured - the vector-only nDCG@10 measured by `evaluateRetrieval`.
 * @param tolerance - allowed shortfall below the published figure; default {@link denseModelCheckTolerance}.
 * @returns `passed` (from `published − tolerance` to `published + denseModelCheckHeadroom`) or
 *   `failed` with both figures, or `unknown` when no figure is published.
 */
export function checkDenseModel(
  model: string,
  dataset: string,
  measured: number,
  tolerance: number = denseModelCheckTolerance,
): DenseModelCheck {
  const modelName = model.toLowerCase();
  const datasetName = dataset.toLowerCase();
  const published = publishedDenseScores.find((score) => modelName.endsWith(score.model.toLowerCase()) && datasetName === score.dataset);
  if (!published) return { status: "unknown", model, dataset, measured };
  return {
    status: measured >= published.ndcgAt10 - tolerance && measured <= published.ndcgAt10 + denseModelCheckHeadroom ? "passed" : "failed",
    model,
    dataset,
    measured,
    published: published.ndcgAt10,
    tolerance,
    source: published.source,
  };
}
