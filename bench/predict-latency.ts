/**
 * /predict latency over the example corpus, in-process through the Hono app (no sockets), for
 * each embedding configuration available. Baseline in the same run: GET /healthz through the same
 * app, the floor of the HTTP layer.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type DocqaConfigOverrides, mintAccessToken, resolveConfig } from "@docqa/core";
import { resolveServerConfig } from "@docqa/http";
import { predictRoutes } from "@docqa/predict-api";
import { benchmarkModel } from "./local-model.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const root = join(import.meta.dirname, "..");
const secret = "bench-secret";

async function examplePaths(): Promise<string[]> {
  const folder = join(root, "examples", "corpus");
  return (await readdir(folder)).sort().map((name) => join(folder, name));
}

async function timeRequests(send: () => Promise<Response>, iterations: number): Promise<number[]> {
  for (let warm = 0; warm < 20; warm++) await (await send()).arrayBuffer();
  const samples: number[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const started = performance.now();
    const response = await send();
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`status ${response.status}`);
  }
  return samples;
}

/** Runs the benchmark and returns one row per configuration. */
export async function benchmarkPredictLatency(iterations = 300): Promise<BenchmarkRow[]> {
  const questions = (JSON.parse(readFileSync(join(root, "examples", "corpus-questions.json"), "utf8")) as { question: string }[]).map(
    (entry) => entry.question,
  );
  const configurations: [string, DocqaConfigOverrides][] = [["BM25 only", { embeddings: { provider: "none" } }]];
  const model = benchmarkModel("/predict latency");
  if (model) {
    configurations.push([
      `hybrid, ${model.id}`,
      {
        embeddings: {
          provider: "transformers",
          modelPath: model.root,
          modelName: model.id,
          dimension: model.dimension,
          dtype: model.dtype,
        },
      },
    ]);
  }
  const paths = await examplePaths();
  const rows: BenchmarkRow[] = [];
  for (const [name, overrides] of configurations) {
    const service = createRagService({
      config: resolveConfig({ stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")) }, logging: { level: "silent" } }, overrides),
    });
    const server = resolveServerConfig({ jwt: { secret } });
    await service.ready();
    const principal = { userName: "bench@example.org", roles: [], groups: [] };
    await service.ingestFiles({ orgId: "bench", principal, files: paths.map((path) => ({ path })), metadata: { acl: "|user:_all_|" } });
    const app = predictRoutes(service, { server });
    const token = await mintAccessToken(server.jwt, { email: principal.userName, orgId: "bench" });
    let next = 0;
    const predict = async () =>
      app.request("/predict", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ query: questions[next++ % questions.length], user_info: { user_name: principal.userName } }),
      });
    const health = async () => app.request("/healthz");
    const predictSamples = await timeRequests(predict, iterations);
    const healthSamples = await timeRequests(health, iterations);
    const p50 = percentile(predictSamples, 50);
    const baseline = percentile(healthSamples, 50);
    rows.push({
      benchmark: "/predict latency, example corpus (in-process)",
      configuration: name,
      figures: { "p50 ms": p50, "p95 ms": percentile(predictSamples, 95), "p99 ms": percentile(predictSamples, 99) },
      baseline: { name: "GET /healthz p50 ms", value: baseline },
      ratio: p50 / baseline,
    });
    await service.close();
  }
  return rows;
}
