/**
 * The answerer with the dense signal: the SQuAD 2.0 set (two articles, 87 paragraphs, 626
 * questions) answered through `predict` with a real embedding model (hybrid retrieval) and with
 * BM25 alone, on the same questions. Part of `npm run test:models`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
import { isContinuousIntegration, sharedDataPath } from "../testing/shared-data.js";
import { type AnswerEvaluation, evaluateAnswers } from "./evaluate-answers.js";
import { loadSquadDataset } from "./squad-dataset.js";

const folder = sharedDataPath("qa", "squad-v2-dev-2articles");
const model = findLocalModels(["bge-small-en-v1.5"])[0];

async function answer(embeddings: "model" | "none"): Promise<AnswerEvaluation> {
  const found = model as NonNullable<typeof model>;
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-models-squad-"));
  const service = createRagService({
    config: {
      stores: { dataDir },
      logging: { level: "warn" },
      ingestion: { useRaptor: false },
      embeddings:
        embeddings === "model"
          ? { modelPath: found.root, modelName: found.id, dimension: found.dimension, allowRemote: false }
          : { provider: "none" as const },
    },
  });
  try {
    if (embeddings === "model") expect((await service.health()).embeddings.status).toBe("loading");
    const result = await evaluateAnswers(service, await loadSquadDataset(folder as string));
    expect((await service.health()).embeddings.status).toBe(embeddings === "model" ? "ready" : "disabled");
    return result;
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.skipIf((!model || !folder) && !isContinuousIntegration())(`answers on SQuAD 2.0 with ${model?.id ?? "a real model"}`, () => {
  it("retrieves and cites the gold paragraph more often with the dense signal than with BM25 alone", async () => {
    expect(model, "no embedding model under ../shared/data/models").toBeDefined();
    const hybrid = await answer("model");
    const bm25 = await answer("none");
    console.log(
      `SQuAD 2.0 (${hybrid.answerable} answerable): retrieved ${hybrid.retrievedRate.toFixed(4)} vs BM25 ${bm25.retrievedRate.toFixed(4)}, cited ${hybrid.citedRate.toFixed(4)} vs ${bm25.citedRate.toFixed(4)}, answer found ${hybrid.containsAnswerRate.toFixed(4)} vs ${bm25.containsAnswerRate.toFixed(4)}`,
    );
    expect(hybrid.answerable).toBe(293);
    expect(hybrid.retrievedRate).toBeGreaterThan(bm25.retrievedRate);
    expect(hybrid.citedRate).toBeGreaterThanOrEqual(bm25.citedRate);
  });
});
