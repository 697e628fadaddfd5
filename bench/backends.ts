/**
 * Embedded store against the production servers, in one run: ingestion throughput (chunks/s
 * through `service.upsert`) and /predict latency (in-process Hono app), over the Markdown, text
 * and DOCX files of `../shared/data/documents` with the deterministic 64-dimension embedder (so
 * the figures measure the stores, not a model). The embedded store is the baseline.
 *
 * `BENCH_ONLY=backends npm run bench`, with the servers of `scripts/services/start-all.sh`
 * (addresses from `scripts/services/env.sh`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, mintAccessToken } from "@docqa/core";
import { DeterministicEmbeddings, sharedDocumentInputs } from "@docqa/core/testing";
import { predictRoutes } from "@docqa/predict-api";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const secret = "bench-backends-secret-0123456789abcdef";
const user = "bench@example.org";
/** Questions answered by the shared documents (also used by `model-change.ts`). */
export const questions = [
  "How do I install Rust with rustup?",
  "What are the ownership rules in Rust?",
  "How do I append to a String?",
  "Which integer types does Rust have?",
  "Where does Norwich City play?",
];

/** Runs the benchmark against the embedded store and the servers; one row per deployment. */
export async function benchmarkBackends(iterations = 100): Promise<BenchmarkRow[]> {
  const documents = await sharedDocumentInputs();
  const base = `docqa_bench_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const deployments: [string, Record<string, string>][] = [
    ["embedded", {}],
    [
      "Milvus + OpenSearch + Redis",
      {
        VECTORDB_URI: process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530",
        VECTORDB_COLLECTION: base,
        FULLTEXT_URI: process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200",
        FULLTEXT_INDEX: base,
        CACHE_URL: process.env.DOCQA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
      },
    ],
  ];
  const measured: { name: string; chunksPerSecond: number; chunks: number; p50: number; p95: number }[] = [];
  for (const [name, environment] of deployments) {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-backends-"));
    const orgId = randomUUID();
    const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secret, LOG_LEVEL: "silent", EMBED_DIMENSION: "64", ...environment });
    const service = createRagService({ config, embeddings: new DeterministicEmbeddings({ dimension: 64 }) });
    try {
      const principal = { userName: user, roles: [], groups: [] };
      const started = performance.now();
      const result = await service.upsert({ orgId, principal, uploader: user, documents });
      const seconds = (performance.now() - started) / 1000;
      const app = predictRoutes(service);
      const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId });
      const send = (question: string) =>
        app.request("/predict", {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: question, user_info: { user_name: user } }),
        });
      for (const question of questions) await (await send(question)).arrayBuffer();
      const samples: number[] = [];
      for (let index = 0; index < iterations; index++) {
        const began = performance.now();
        const response = await send(questions[index % questions.length] as string);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${name}: /predict status ${response.status}`);
        samples.push(performance.now() - began);
      }
      measured.push({
        name,
        chunks: result.numChunks,
        chunksPerSecond: result.numChunks / seconds,
        p50: percentile(samples, 50),
        p95: percentile(samples, 95),
      });
    } finally {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  const [embedded] = measured;
  return measured.map((row) => ({
    benchmark: "backends",
    configuration: row.name,
    figures: { chunks: row.chunks, "ingest chunks/s": row.chunksPerSecond, "predict p50 ms": row.p50, "predict p95 ms": row.p95 },
    ...(embedded && row !== embedded
      ? { baseline: { name: "embedded predict p50 ms", value: embedded.p50 }, ratio: row.p50 / embedded.p50 }
      : {}),
  }));
}
