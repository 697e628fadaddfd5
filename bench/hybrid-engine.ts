/**
 * `BENCH_ONLY=hybrid npm run bench`: hybrid search fused inside the engine (`HYBRID_SEARCH=engine`,
 * Milvus `hybridSearch`) against fusion in docqa (`HYBRID_SEARCH=node`, two searches), on the same
 * Milvus collection in one run: SciFact (BEIR layout, ../shared/data/ir/scifact, 300 test queries)
 * indexed once with the local embedding model (int8, ../shared/data/models) and Milvus's BM25
 * function, then
 *
 * - nDCG@10 and recall@100 of the service's default configuration (min-max, 0.5/0.5, 30 + 30
 *   candidates) with each fusion;
 * - requests to Milvus per query (searches, hybrid searches, registry look-ups), counted on the
 *   store;
 * - `service.search` latency p50/p95 per fusion, the two alternating query by query (so both see
 *   the same load), the query embeddings already cached (the model's time is the same for both).
 *
 * Needs the Milvus of `scripts/services/start-all.sh` (`DOCQA_TEST_MILVUS_URI`; milvus-lite 3.x).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, silentLogger } from "@docqa/core";
import { evaluateRetrieval, loadBeirDataset } from "@docqa/core/evaluation";
import { stagedDocumentStores } from "@docqa/core/stores";
import { sharedDataPath } from "@docqa/core/testing";
import { createMilvusStore } from "@docqa/milvus";
import { benchmarkModel, modelEnvironment } from "./local-model.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

/** The store methods that send a request to Milvus while searching. */
const counted = ["searchByVector", "searchByText", "searchHybrid", "contentHashes", "countByText"] as const;

/** Runs the comparison; empty when SciFact, the model or Milvus is missing. */
export async function benchmarkHybridEngine(): Promise<BenchmarkRow[]> {
  const folder = sharedDataPath("ir", "scifact");
  const model = benchmarkModel("hybrid in the engine");
  const address = process.env.DOCQA_TEST_MILVUS_URI;
  if (!folder || !model || !address) {
    console.log("hybrid in the engine: skipped (needs ../shared/data/ir/scifact, a local model and DOCQA_TEST_MILVUS_URI)");
    return [];
  }
  const dataset = await loadBeirDataset(folder);
  const base = `docqa_hybrid_${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-hybrid-"));
  const milvus = createMilvusStore({ address, collection: base, timeoutMs: 120_000, logger: silentLogger });
  const calls = new Map<string, number>(counted.map((name) => [name, 0]));
  const countingStore = new Proxy(milvus, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if ((counted as readonly (string | symbol)[]).includes(property)) {
        return (...args: unknown[]) => {
          calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
          return (value as (...inner: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...inner: unknown[]) => unknown).bind(target);
    },
  });
  const stores = stagedDocumentStores({ vector: countingStore, keyword: countingStore, registry: countingStore, logger: silentLogger });
  const serviceFor = (hybrid: "node" | "engine") =>
    createRagService({
      config: loadConfig({
        ...modelEnvironment(model),
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        USE_RAPTOR: "false",
        SWEEP_INTERVAL_SECONDS: "0",
        VECTORDB_URI: address,
        VECTORDB_COLLECTION: base,
        HYBRID_SEARCH: hybrid,
      }),
      stores,
    });
  const node = serviceFor("node");
  const engine = serviceFor("engine");
  try {
    await Promise.all([node.ready(), engine.ready()]);
    console.log(`hybrid in the engine: indexing SciFact (${dataset.corpus.length} abstracts) with ${model.id} in Milvus`);
    const nodeQuality = await evaluateRetrieval(node, dataset, { orgId: "scifact" });
    const engineQuality = await evaluateRetrieval(engine, dataset, { orgId: "scifact", skipIngestion: true });
    const timings = { node: [] as number[], engine: [] as number[] };
    const perQuery = { node: new Map<string, number>(), engine: new Map<string, number>() };
    for (const [index, query] of dataset.queries.entries()) {
      for (const [name, service] of (index % 2 === 0
        ? [
            ["node", node],
            ["engine", engine],
          ]
        : [
            ["engine", engine],
            ["node", node],
          ]) as ["node" | "engine", typeof node][]) {
        const before = new Map(calls);
        const started = performance.now();
        await service.search({
          orgId: "scifact",
          principal: { userName: "evaluator@example.org", roles: [], groups: [] },
          query: query.text,
          limit: 10,
        });
        timings[name].push(performance.now() - started);
        for (const [method, count] of calls)
          perQuery[name].set(method, (perQuery[name].get(method) ?? 0) + count - (before.get(method) ?? 0));
      }
    }
    const requests = (name: "node" | "engine") =>
      [...perQuery[name].values()].reduce((sum, count) => sum + count, 0) / dataset.queries.length;
    const describe = (name: "node" | "engine") =>
      [...perQuery[name]]
        .filter(([, count]) => count > 0)
        .map(([method, count]) => `${method} ${(count / dataset.queries.length).toFixed(1)}`)
        .join(", ");
    console.log(`hybrid in the engine: requests per /api/search-like search: node ${describe("node")}; engine ${describe("engine")}`);
    const p50 = { node: percentile(timings.node, 50), engine: percentile(timings.engine, 50) };
    return [
      {
        benchmark: "hybrid in the engine, SciFact (Milvus)",
        configuration: "HYBRID_SEARCH=engine: nDCG@10",
        figures: {
          "nDCG@10": engineQuality.ndcgAt10,
          "recall@100": engineQuality.recallAt100,
          difference: engineQuality.ndcgAt10 - nodeQuality.ndcgAt10,
        },
        baseline: { name: `HYBRID_SEARCH=node nDCG@10 (recall@100 ${nodeQuality.recallAt100.toFixed(4)})`, value: nodeQuality.ndcgAt10 },
        ratio: engineQuality.ndcgAt10 / nodeQuality.ndcgAt10,
      },
      {
        benchmark: "hybrid in the engine, SciFact (Milvus)",
        configuration: "HYBRID_SEARCH=engine: requests to Milvus per search",
        figures: { requests: requests("engine") },
        baseline: { name: "HYBRID_SEARCH=node requests", value: requests("node") },
        ratio: requests("engine") / requests("node"),
      },
      {
        benchmark: "hybrid in the engine, SciFact (Milvus)",
        configuration: "HYBRID_SEARCH=engine: service.search latency",
        figures: { "p50 ms": p50.engine, "p95 ms": percentile(timings.engine, 95) },
        baseline: { name: `HYBRID_SEARCH=node p50 ms (p95 ${percentile(timings.node, 95).toFixed(1)})`, value: p50.node },
        ratio: p50.engine / p50.node,
      },
    ];
  } finally {
    await engine.close().catch(() => undefined);
    await node.close().catch(() => undefined);
    const cleanup = createMilvusStore({ address, collection: base, timeoutMs: 120_000 });
    await cleanup.dropOrganisation("scifact").catch(() => undefined);
    await cleanup.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
