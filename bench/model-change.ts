/**
 * Embedding model changes without downtime, with real models: the Markdown, text and DOCX files
 * of `../shared/data/documents` are ingested without a model (BM25 only); a server (this process:
 * the service and set A's routes) configured with all-MiniLM-L6-v2 then serves them while
 * `docqa reindex` (the CLI, in its own process, as operators run it) embeds them with MiniLM, and
 * again while it moves them to bge-small-en-v1.5 with `--model` (the server stays configured with
 * MiniLM and follows the index's model after the switch). A `/predict` runs every 100 ms during
 * each reindex (open loop: requests are not held back by slow ones). Printed per reindex: the
 * queries sent and failed (the target is 0), their latency p50/p99 against the same questions on
 * the idle server before (the baseline), the share answered with vector search afterwards, and the
 * reindex's duration and chunks/s.
 *
 * `BENCH_ONLY=reindex npm run bench` (needs `npm run build` and both models under
 * ../shared/data/models or $DOCQA_MODELS_DIR). With `BENCH_REINDEX_SERVERS=1`, the same on Milvus +
 * OpenSearch (servers of `scripts/services/start-all.sh`, addresses from `scripts/services/env.sh`).
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRagService, loadConfig, mintAccessToken, type RagService, type ReindexJob } from "@docqa/core";
import { findLocalModels, sharedDocumentInputs } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { predictRoutes } from "@docqa/predict-api";
import { questions } from "./backends.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const secret = "bench-model-change-secret-0123456789abcdef";
const docqa = fileURLToPath(new URL("../packages/cli/bin/docqa.js", import.meta.url));
const execFileAsync = promisify(execFile);
const user = "bench@example.org";
const principal = { userName: user, roles: [], groups: [] };

interface Sample {
  ms: number;
  ok: boolean;
  vector: boolean;
}

/** Runs the benchmark; one row per reindex and deployment. */
export async function benchmarkModelChange(): Promise<BenchmarkRow[]> {
  const models = findLocalModels(["all-MiniLM-L6-v2", "bge-small-en-v1.5"]);
  const minilm = models.find((model) => model.id.endsWith("all-MiniLM-L6-v2"));
  const bge = models.find((model) => model.id.endsWith("bge-small-en-v1.5"));
  if (!minilm || !bge) {
    console.log("model change: skipped (all-MiniLM-L6-v2 and bge-small-en-v1.5 are needed under ../shared/data/models)");
    return [];
  }
  const documents = await sharedDocumentInputs();
  const base = `docqa_bench_reindex_${randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const deployments: [string, Record<string, string>][] = [["embedded", {}]];
  if (process.env.BENCH_REINDEX_SERVERS === "1") {
    deployments.push([
      "Milvus + OpenSearch",
      {
        VECTORDB_URI: process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530",
        VECTORDB_COLLECTION: base,
        FULLTEXT_URI: process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200",
        FULLTEXT_INDEX: base,
      },
    ]);
  }
  const rows: BenchmarkRow[] = [];
  for (const [name, servers] of deployments) {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-bench-reindex-"));
    const orgId = randomUUID();
    const common = { DATA_DIR: dataDir, LOG_LEVEL: "error", RAG_LLM_PROVIDER: "extractive", SWEEP_INTERVAL_SECONDS: "0", ...servers };
    const withMiniLm = {
      ...common,
      EMBED_PROVIDER: "transformers",
      EMBED_MODEL_PATH: minilm.root,
      EMBED_MODEL_NAME: minilm.id,
      EMBED_DIMENSION: String(minilm.dimension),
      EMBED_DTYPE: minilm.dtype,
      EMBED_ALLOW_REMOTE: "false",
    };
    const services: RagService[] = [];
    try {
      const before = createRagService({ config: loadConfig({ ...common, EMBED_PROVIDER: "none" }) });
      services.push(before);
      const ingested = await before.upsert({ orgId, principal, uploader: user, documents });
      const service = createRagService({ config: loadConfig(withMiniLm) });
      services.push(service);
      await service.ready();
      const app = predictRoutes(service, { server: resolveServerConfig({ jwt: { secret } }) });
      const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId });
      let sent = 0;
      const ask = async (): Promise<Sample> => {
        const question = questions[sent++ % questions.length] as string;
        const began = performance.now();
        try {
          const response = await app.request("/predict", {
            method: "POST",
            headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
            body: JSON.stringify({ query: question, user_info: { user_name: user } }),
          });
          await response.arrayBuffer();
          const ms = performance.now() - began;
          const search = response.status === 200 ? await service.search({ orgId, principal, query: question, limit: 3 }) : undefined;
          return { ms, ok: response.status === 200, vector: search?.results.some((result) => result.vectorScore !== null) ?? false };
        } catch {
          return { ms: performance.now() - began, ok: false, vector: false };
        }
      };
      // Baseline: the same questions, one at a time, on the idle server (BM25 only: no vectors
      // yet), after a few warm-up questions (the first loads the tokenizers).
      for (let index = 0; index < questions.length; index++) await ask();
      const idle: Sample[] = [];
      for (let index = 0; index < 30; index++) idle.push(await ask());

      const during = async (model?: string) => {
        const samples: Promise<Sample>[] = [];
        const timer = setInterval(() => samples.push(ask()), 100);
        const started = performance.now();
        let job: ReindexJob;
        try {
          const { stdout } = await execFileAsync(
            process.execPath,
            [docqa, "reindex", "--org", orgId, "--json", ...(model ? ["--model", model] : [])],
            { env: { ...process.env, ...withMiniLm }, maxBuffer: 16 * 1024 * 1024 },
          );
          job = JSON.parse(stdout) as ReindexJob;
        } finally {
          clearInterval(timer);
        }
        const seconds = (performance.now() - started) / 1000;
        const settled = await Promise.all(samples);
        const after: Sample[] = [];
        for (let index = 0; index < 12; index++) after.push(await ask());
        return { job, seconds, samples: settled, after };
      };
      const idleP99 = percentile(
        idle.map((sample) => sample.ms),
        99,
      );
      for (const [label, model] of [
        [`none → ${minilm.id.split("/").at(-1)}`, undefined],
        [`${minilm.id.split("/").at(-1)} → ${bge.id.split("/").at(-1)}`, bge.id],
      ] as const) {
        const { job, seconds, samples, after } = await during(model);
        if (job.state !== "succeeded") throw new Error(`${name}: reindex ${label} ${job.state}: ${job.failure}`);
        const latencies = samples.map((sample) => sample.ms);
        const p99 = percentile(latencies, 99);
        rows.push({
          benchmark: "model change",
          configuration: `${name}: ${label}, ${ingested.numChunks} chunks`,
          figures: {
            queries: samples.length,
            "failed queries": samples.filter((sample) => !sample.ok).length,
            "p50 ms": percentile(latencies, 50),
            "p99 ms": p99,
            "reindex s": seconds,
            "chunks/s": job.processed / seconds,
            "vector answers after %": (100 * after.filter((sample) => sample.vector).length) / after.length,
          },
          baseline: { name: "idle p99 ms", value: idleP99 },
          ratio: p99 / idleP99,
        });
      }
    } finally {
      for (const service of services) await service.close();
      await rm(dataDir, { recursive: true, force: true });
      if (servers.VECTORDB_URI) await dropServerState(base, orgId, servers);
    }
  }
  return rows;
}

/** Removes what the server deployment created. */
async function dropServerState(base: string, orgId: string, servers: Record<string, string>): Promise<void> {
  const { createMilvusStore } = await import("@docqa/milvus");
  const { organisationIndexNames } = await import("@docqa/elasticsearch");
  const milvus = createMilvusStore({ address: servers.VECTORDB_URI, collection: base });
  await milvus.dropOrganisation(orgId).catch(() => undefined);
  await milvus.close();
  const names = organisationIndexNames(base, orgId);
  for (const index of [names.chunksIndex, names.registryIndex]) {
    await fetch(`${servers.FULLTEXT_URI}/${index}`, { method: "DELETE" }).catch(() => undefined);
  }
}
