/**
 * Retrieval quality on BEIR SciFact (../shared/data/ir/scifact, 300 test queries): nDCG@10 and
 * recall@100 with RAPTOR summary nodes off and on, for BM25 alone and, when the model has been
 * fetched, hybrid retrieval with bge-small-en-v1.5. Chunk embeddings are cached between the two
 * RAPTOR settings (LangChain's `CacheBackedEmbeddings`), so each abstract is embedded once.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type DocqaConfigOverrides, evaluateRetrieval, loadBeirDataset } from "@docqa/core";
import { sharedDataPath } from "@docqa/core/testing";
import { CacheBackedEmbeddings } from "@langchain/classic/embeddings/cache_backed";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { InMemoryStore } from "@langchain/core/stores";
import { benchmarkModel, loadEmbeddings } from "./local-model.ts";
import type { BenchmarkRow } from "./statistics.ts";

/** Runs the SciFact evaluation with RAPTOR off and on; empty when the data set is absent. */
export async function benchmarkRetrievalQuality(): Promise<BenchmarkRow[]> {
  const folder = sharedDataPath("ir", "scifact");
  if (!folder) {
    console.log("retrieval quality benchmark skipped: ../shared/data/ir/scifact is absent");
    return [];
  }
  const dataset = await loadBeirDataset(folder);
  const configurations: [string, DocqaConfigOverrides, EmbeddingsInterface | null][] = [["BM25 only", { embedProvider: "none" }, null]];
  const model = benchmarkModel("SciFact quality");
  if (model) {
    const cached = CacheBackedEmbeddings.fromBytesStore(await loadEmbeddings(model), new InMemoryStore<Uint8Array>(), {
      namespace: model.id,
    });
    configurations.push([`hybrid, ${model.id}`, { embedDimension: model.dimension }, Object.assign(cached, { model: model.id })]);
  }
  const rows: BenchmarkRow[] = [];
  for (const [name, overrides, embeddings] of configurations) {
    const results = [];
    for (const useRaptor of [false, true]) {
      const service = createRagService({
        config: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")), logLevel: "silent", useRaptor, ...overrides },
        embeddings,
        embeddingModelId: embeddings && model ? model.id : undefined,
      });
      results.push(await evaluateRetrieval(service, dataset));
      await service.close();
    }
    const [without, withRaptor] = results as [Awaited<ReturnType<typeof evaluateRetrieval>>, Awaited<ReturnType<typeof evaluateRetrieval>>];
    rows.push({
      benchmark: "SciFact nDCG@10 (300 queries)",
      configuration: `${name}, RAPTOR on vs off`,
      figures: {
        "nDCG@10 RAPTOR on": withRaptor.ndcgAt10,
        "recall@100 on": withRaptor.recallAt100,
        "recall@100 off": without.recallAt100,
        "ingest s on": withRaptor.ingestMs / 1000,
      },
      baseline: { name: "nDCG@10 RAPTOR off", value: without.ndcgAt10 },
      ratio: withRaptor.ndcgAt10 / without.ndcgAt10,
    });
  }
  return rows;
}
