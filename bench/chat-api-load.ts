/**
 * Load on endpoint set B over loopback: a server process (set B over the embedded store, the
 * shared documents ingested first through `POST /api/ingest`, the extractive answerer) and
 * autocannon in this process, `BENCH_LOAD_CONNECTIONS` connections (default 50) for
 * `BENCH_LOAD_SECONDS` seconds (default 30) on `POST /api/search` and then `POST /api/chat`.
 * Prints requests/s, latency p50 and p99, and errors (connection errors, timeouts, non-2xx
 * responses; 429s are counted apart). Rate limiting is on, with budgets no run reaches, so its cost
 * is measured but it never answers 429.
 *
 * Needs `npm run build`. Run with `BENCH_ONLY=load node bench/run.ts`, or alone with
 * `node bench/chat-api-load.ts`. `BENCH_LOAD_EMBEDDINGS=model` uses a local embedding model
 * (hybrid retrieval) instead of BM25 alone.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatRoutes } from "@docqa/chat-api";
import { createRagService, type DocqaConfigOverrides, mintAccessToken, resolveConfig } from "@docqa/core";
import { sharedDataPath } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { serve } from "@hono/node-server";
import { benchmarkModel } from "./local-model.ts";
import type { BenchmarkRow } from "./statistics.ts";

/** The part of autocannon's programmatic API used here (the package ships no type declarations). */
interface LoadRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number } | undefined>;
}
const autocannon = createRequire(import.meta.url)("autocannon") as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest[];
}) => Promise<LoadResult>;

const secret = "bench-load-secret-0123456789-0123456789";
const formats = new Set(["pdf", "docx", "txt", "md", "json", "csv"]);

/** Questions over the shared documents (one per format, from the ingestion tests). */
const questions = [
  "How many bottles of water were there?",
  "Where is the Interest on Underpaid Arbitrage Rebate shown on the Form 8038 display?",
  "Call me Ishmael: how much money did the narrator have in his purse?",
  "Who was the maid of honor in July 1805?",
  "What type do Rust integer types default to?",
  "Which discoverer is listed for Hydrogen?",
  "Aer Lingus incidents fatal accidents",
];

/** What the server process reports when it is ready. */
interface ServerReady {
  port: number;
  token: string;
  documentsProcessed: number;
  filesRejected: number;
  ingestSeconds: number;
  retrieval: string;
}

function documentFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { recursive: true, encoding: "utf8" })) {
    const path = join(directory, entry);
    if (formats.has(entry.split(".").at(-1)?.toLowerCase() ?? "") && statSync(path).isFile()) files.push(path);
  }
  return files.sort();
}

/** The server process: set B on a loopback port, the shared documents ingested through it. */
async function runServer(directory: string): Promise<void> {
  const overrides: DocqaConfigOverrides = { embeddings: { provider: "none" } };
  let retrieval = "BM25 only";
  if (process.env.BENCH_LOAD_EMBEDDINGS === "model") {
    const model = benchmarkModel("set B load");
    if (model) {
      overrides.embeddings = {
        provider: "transformers",
        modelPath: model.root,
        modelName: model.id,
        dimension: model.dimension,
        dtype: model.dtype,
      };
      retrieval = `hybrid, ${model.id}`;
    }
  }
  const service = createRagService({
    config: resolveConfig(
      { stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-load-")) }, logging: { level: "silent" } },
      overrides,
    ),
  });
  await service.ready();
  const serverConfig = resolveServerConfig({ jwt: { secret } });
  const app = chatRoutes(service, { server: serverConfig, rateLimit: { perMinute: 100_000_000, perHour: 100_000_000 } });
  const token = await mintAccessToken(serverConfig.jwt, { email: "bench@example.org", orgId: "bench" });
  const form = new FormData();
  for (const path of documentFiles(directory)) form.append("files", new File([readFileSync(path)], basename(path)));
  form.append("metadata", JSON.stringify({ acl: "|user:_all_|" }));
  const started = performance.now();
  const ingested = await app.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: form });
  const ingestSeconds = (performance.now() - started) / 1000;
  if (ingested.status !== 200) throw new Error(`POST /api/ingest answered ${ingested.status}: ${await ingested.text()}`);
  const job = (await ingested.json()) as { documentsProcessed: number; files: { failed: number } };
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (address: AddressInfo) => {
    const ready: ServerReady = {
      port: address.port,
      token,
      documentsProcessed: job.documentsProcessed,
      filesRejected: job.files.failed,
      ingestSeconds,
      retrieval,
    };
    process.send?.(ready);
  });
  process.on("disconnect", () => {
    server.close();
    void service.close().then(() => process.exit(0));
  });
}

/** One autocannon run; the requests cycle per connection. */
async function load(port: number, requests: LoadRequest[], connections: number, seconds: number): Promise<LoadResult> {
  return autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, requests });
}

function row(endpoint: string, ready: ServerReady, connections: number, seconds: number, result: LoadResult): BenchmarkRow {
  const limited = result.statusCodeStats["429"]?.count ?? 0;
  return {
    benchmark: `set B load, ${endpoint} (${connections} connections, ${seconds} s, loopback)`,
    configuration: `${ready.retrieval}, extractive answerer, ${ready.documentsProcessed} documents`,
    figures: {
      "requests/s": result.requests.average,
      "p50 ms": result.latency.p50,
      "p99 ms": result.latency.p99,
      requests: result.requests.total,
      errors: result.errors + result.timeouts + (result.non2xx - limited),
      "429s": limited,
    },
  };
}

/** Runs the load benchmark and returns one row per endpoint; empty when the shared documents are absent. */
export async function benchmarkChatApiLoad(): Promise<BenchmarkRow[]> {
  const directory = sharedDataPath("documents");
  if (!directory) {
    console.log("set B load benchmark skipped: ../shared/data/documents is absent");
    return [];
  }
  const connections = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 50);
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--serve", directory], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const ready = await new Promise<ServerReady>((resolve, reject) => {
      child.once("message", (message) => resolve(message as ServerReady));
      child.once("exit", (code) => reject(new Error(`the load server exited with code ${code}`)));
    });
    console.log(
      `set B load: ${ready.documentsProcessed} documents ingested through POST /api/ingest in ${ready.ingestSeconds.toFixed(1)} s (${ready.filesRejected} files rejected); ${connections} connections for ${seconds} s per endpoint`,
    );
    const headers = { Authorization: `Bearer ${ready.token}`, "Content-Type": "application/json" };
    const search = await load(
      ready.port,
      questions.map((query) => ({ method: "POST" as const, path: "/api/search", headers, body: JSON.stringify({ query, limit: 10 }) })),
      connections,
      seconds,
    );
    const chat = await load(
      ready.port,
      questions.map((message, index) => ({
        method: "POST" as const,
        path: "/api/chat",
        headers,
        body: JSON.stringify({ message, sessionId: `bench-${index}` }),
      })),
      connections,
      seconds,
    );
    return [row("POST /api/search", ready, connections, seconds, search), row("POST /api/chat", ready, connections, seconds, chat)];
  } finally {
    child.disconnect();
  }
}

if (process.argv[2] === "--serve") {
  await runServer(process.argv[3] as string);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { printRows } = await import("./statistics.ts");
  printRows(await benchmarkChatApiLoad());
}
