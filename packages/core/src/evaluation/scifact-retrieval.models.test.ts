/**
 * Real-model retrieval on BEIR SciFact (300 test queries, 5,183 abstracts), for each model under
 * ../shared/data/models: the dense model check (vector-only nDCG@10 no more than 0.02 below the
 * figure measured in the models' README) and the service's default hybrid configuration against
 * the better single retriever. Part of `npm run test:models` (several minutes: the corpus is
 * embedded once per model).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
import { isContinuousIntegration, sharedDataPath } from "../testing/shared-data.js";
import { type BeirDataset, loadBeirDataset } from "./beir-dataset.js";
import { type EvaluateRetrievalOptions, evaluateRetrieval } from "./evaluate-retrieval.js";
import { serviceRetrievalConfiguration } from "./retrieval-configurations.js";

/** The models and what they must reach: the README's int8 figure, and the hybrid's least gain over max(BM25, vector). */
const cases = [
  { model: "all-MiniLM-L6-v2", readmeNdcg: 0.6469, leastHybridGain: -0.005 },
  { model: "bge-small-en-v1.5", readmeNdcg: 0.7126, leastHybridGain: 0.02 },
];
const folder = sharedDataPath("ir", "scifact");

describe.each(cases)("SciFact with $model", ({ model: name, readmeNdcg, leastHybridGain }) => {
  const model = findLocalModels([name]).find((found) => found.id.endsWith(name));
  const available = model !== undefined && folder !== undefined;
  let service: RagService;
  let dataset: BeirDataset;
  let dataDir: string;
  const evaluation = (retrieval: EvaluateRetrievalOptions["retrieval"]) =>
    evaluateRetrieval(service, dataset, { skipIngestion: true, retrieval });

  beforeAll(async () => {
    if (!available) return;
    const found = model as NonNullable<typeof model>;
    dataDir = mkdtempSync(join(tmpdir(), "docqa-models-"));
    dataset = await loadBeirDataset(folder as string);
    service = createRagService({
      config: {
        stores: { dataDir },
        logging: { level: "warn" },
        ingestion: { useRaptor: false },
        embeddings: { modelPath: found.root, modelName: found.id, dimension: found.dimension, allowRemote: false },
      },
    });
    await evaluateRetrieval(service, dataset, { limit: 1, batchSize: 250 });
  });

  afterAll(async () => {
    await service?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.skipIf(!available && !isContinuousIntegration())(
    "passes the dense model check: vector-only nDCG@10 within 0.02 of the README",
    async () => {
      expect(model, `${name} is missing from ../shared/data/models`).toBeDefined();
      const vector = await evaluation({ weightVector: 1, weightBm25: 0 });
      expect(vector.queries).toBe(300);
      expect(vector.ndcgAt10).toBeGreaterThanOrEqual(readmeNdcg - 0.02);
    },
  );

  it.skipIf(!available && !isContinuousIntegration())(
    "ships a default hybrid at least as good as the better single retriever",
    async () => {
      expect(model, `${name} is missing from ../shared/data/models`).toBeDefined();
      const [vector, bm25, hybrid] = [
        await evaluation({ weightVector: 1, weightBm25: 0 }),
        await evaluation({ weightVector: 0, weightBm25: 1 }),
        await evaluation(serviceRetrievalConfiguration(service.config).retrieval),
      ];
      const best = Math.max(vector.ndcgAt10, bm25.ndcgAt10);
      console.log(
        `SciFact ${name}: vector ${vector.ndcgAt10.toFixed(4)}, BM25 ${bm25.ndcgAt10.toFixed(4)}, service default ${hybrid.ndcgAt10.toFixed(4)} (${(hybrid.ndcgAt10 - best).toFixed(4)} over the better)`,
      );
      expect(hybrid.ndcgAt10 - best).toBeGreaterThanOrEqual(leastHybridGain);
    },
  );
});
