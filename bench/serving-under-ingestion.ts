/**
 * Serving while ingesting (issue 14), against a server process built like `docqa serve`
 * (`serving-server.ts`: embedded store, extractive answerer, ingestion in worker threads), over
 * loopback HTTP:
 *
 * 1. Latency: `/healthz` and `/predict` (the example corpus, its questions) are sampled without
 *    ingestion (the baseline, same run, same server), then while a 2,000-document `/upsert`
 *    (1.4 MB) and a 50 MB upload (`/api/ingest?wait=false`, 25 text files of 2 MB) run into the
 *    same organisation, until the upsert has returned. Figures: p50/p99 in ms, the server's event
 *    loop delay (`monitorEventLoopDelay`), ratios against the baseline. Targets: `/healthz` p99
 *    < 20 ms, `/predict` p99 < 150 ms.
 * 2. The hostile set, on a fresh server: a 2 GiB zip bomb (2 MB, built here with `yazl`) as a
 *    `.docx`, a 100 MB `/upsert` body, a 10,000-document map, metadata nested 5,000 levels deep,
 *    and 200 new organisations (an upsert and a question each). Figures: statuses and codes,
 *    5xx count, undocumented answers, RSS growth of the server process (worker threads
 *    included) from its warm state. Targets: every answer a documented 4xx or a success, no 5xx,
 *    RSS growth < 300 MB.
 *
 * Run it alone with `BENCH_ONLY=serving npm run bench` (after `npm run build`), on an otherwise
 * idle machine: the server, its worker threads and this client share the cores.
 * `BENCH_SERVING_CPU_PROFILE=<directory>` writes CPU profiles of the server's threads there;
 * `BENCH_SERVING_CONFIGS=bm25|hybrid|hostile` (comma-separated) runs only those parts.
 */
import { type ChildProcess, fork } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { mintAccessToken } from "@docqa/core";
import yazl from "yazl";
import { benchmarkModel } from "./local-model.ts";
import type { ServerStats } from "./serving-server.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const root = join(import.meta.dirname, "..");
const secret = "bench-serving-secret-0123456789-0123456789";
const jwt = { secret, algorithm: "HS256" as const, issuer: "oauth-app" };
const user = "bench@example.org";
const org = "bench";
/** Codes a client may meet (docs/http-api.md, docs/chat-api.md): every 4xx must carry one of them. */
const documentedCodes = new Set([
  "invalid_request",
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "json_too_deep",
  "too_many_documents",
  "too_many_files",
  "file_too_large",
  "ingestion_busy",
  "rate_limited",
]);

interface Server {
  child: ChildProcess;
  setA: string;
  setB: string;
  stats(): Promise<ServerStats>;
  stop(): Promise<void>;
}

async function startServer(environment: Record<string, string>): Promise<Server> {
  const profile = process.env.BENCH_SERVING_CPU_PROFILE;
  const child = fork(join(import.meta.dirname, "serving-server.ts"), [], {
    env: { ...process.env, ...environment },
    execArgv: profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.once("exit", (code, signal) => {
    if (code !== 0) progress(`the server process exited with code ${code}${signal ? ` (signal ${signal})` : ""}`);
  });
  const ready = await new Promise<{ setA: string; setB: string }>((resolve, reject) => {
    child.on("message", (message: { ready?: { setA: string; setB: string } }) => {
      if (message.ready) resolve(message.ready);
    });
    child.once("exit", (code) => reject(new Error(`the benchmark server exited with ${code}`)));
  });
  const stats = () =>
    new Promise<ServerStats>((resolve) => {
      const listener = (message: { stats?: ServerStats }) => {
        if (!message.stats) return;
        child.off("message", listener);
        resolve(message.stats);
      };
      child.on("message", listener);
      child.send("stats");
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.send("stop");
      setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
    });
  return { child, ...ready, stats, stop };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Progress on standard error, so a long run shows where it is. */
const progress = (message: string) => process.stderr.write(`serving benchmark: ${message}\n`);

/** Words for generated text, so that BM25 postings look like a real vocabulary's. */
const vocabulary =
  "policy employee vacation badge parking visitor laptop password expense travel manager contract benefit health leave training security office remote meeting report budget invoice supplier shipment warehouse customer refund warranty printer network server backup incident response audit compliance privacy retention archive".split(
    " ",
  );

/** Deterministic text of about `characters` characters, in sentences and paragraphs. */
function generatedText(characters: number, seed: number): string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const parts: string[] = [];
  let length = 0;
  while (length < characters) {
    const words = Array.from({ length: 8 + Math.floor(next() * 10) }, () => vocabulary[Math.floor(next() * vocabulary.length)]);
    const sentence = `${words.join(" ")}.`;
    parts.push(next() < 0.1 ? `${sentence}\n\n` : `${sentence} `);
    length += sentence.length + 1;
  }
  return parts.join("");
}

/** One request, timed; a connection failure is status 0. */
async function timed(send: () => Promise<Response>): Promise<{ ms: number; status: number; body: string }> {
  const started = performance.now();
  try {
    const response = await send();
    const body = await response.text();
    return { ms: performance.now() - started, status: response.status, body };
  } catch (error) {
    return { ms: performance.now() - started, status: 0, body: String((error as Error).cause ?? error) };
  }
}

interface Samples {
  health: number[];
  predict: number[];
  failures: number;
}

/** Samples `/healthz` (every 10 ms) and `/predict` (every 20 ms) until `until` resolves, or `count` health samples. */
async function sample(server: Server, token: string, questions: readonly string[], stop: { done: boolean }): Promise<Samples> {
  const samples: Samples = { health: [], predict: [], failures: 0 };
  const health = async () => {
    while (!stop.done) {
      const result = await timed(() => fetch(`${server.setA}/healthz`));
      if (result.status === 200) samples.health.push(result.ms);
      else if (samples.failures++ === 0) progress(`/healthz failed: ${result.status} ${result.body.slice(0, 200)}`);
      await sleep(10);
    }
  };
  let next = 0;
  const predict = async () => {
    while (!stop.done) {
      const query = questions[next++ % questions.length] as string;
      const result = await timed(() =>
        fetch(`${server.setA}/predict`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ query, user_info: { user_name: user } }),
        }),
      );
      if (result.status === 200) samples.predict.push(result.ms);
      else if (samples.failures++ === 0) progress(`/predict failed: ${result.status} ${result.body.slice(0, 200)}`);
      await sleep(20);
    }
  };
  await Promise.all([health(), predict()]);
  return samples;
}

function uploadForm(files: readonly { name: string; content: string | Uint8Array }[], metadata: object): FormData {
  const form = new FormData();
  for (const file of files) form.append("files", new Blob([file.content]), file.name);
  form.append("metadata", JSON.stringify(metadata));
  return form;
}

async function ingestCorpus(server: Server, token: string): Promise<void> {
  const folder = join(root, "examples", "corpus");
  const files = readdirSync(folder)
    .sort()
    .map((name) => ({ name, content: readFileSync(join(folder, name)) }));
  const response = await fetch(`${server.setB}/api/ingest`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    body: uploadForm(files, { acl: "|user:_all_|" }),
  });
  if (response.status !== 200) throw new Error(`ingesting the example corpus answered ${response.status}: ${await response.text()}`);
}

/** The 2,000 documents of the upsert (about 700 characters each, 1.4 MB). */
function upsertDocuments(count: number, prefix: string): Record<string, { title: string; content: string; metadata: object }> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `${prefix}-${index}`,
      { title: `Generated note ${index}`, content: generatedText(700, index + 1), metadata: { acl: "|user:_all_|", source: "bench" } },
    ]),
  );
}

function latencyRows(
  configuration: string,
  baseline: Samples,
  loaded: Samples,
  loopBase: ServerStats,
  loopLoaded: ServerStats,
  seconds: number,
) {
  const benchmark = "serving during ingestion (2,000-doc /upsert + 50 MB upload)";
  const row = (name: string, base: number[], load: number[], target: number): BenchmarkRow => ({
    benchmark,
    configuration: `${configuration}: ${name} p99 ms (target < ${target}; samples ${base.length} / ${load.length})`,
    figures: {
      "p50 ms": percentile(load, 50),
      "p99 ms": percentile(load, 99),
      "max ms": Math.max(...load),
      "meets target": percentile(load, 99) < target ? 1 : 0,
    },
    baseline: { name: "p99 ms without ingestion", value: percentile(base, 99) },
    ratio: percentile(load, 99) / percentile(base, 99),
  });
  return [
    row("/healthz", baseline.health, loaded.health, 20),
    row("/predict", baseline.predict, loaded.predict, 150),
    {
      benchmark,
      configuration: `${configuration}: server event loop delay (monitorEventLoopDelay), ingestion window ${seconds.toFixed(1)} s, failed requests ${loaded.failures}`,
      figures: { "p99 ms": loopLoaded.loopDelay.p99, "max ms": loopLoaded.loopDelay.max },
      baseline: { name: "p99 ms without ingestion", value: loopBase.loopDelay.p99 },
      ratio: loopLoaded.loopDelay.p99 / loopBase.loopDelay.p99,
    },
  ] satisfies BenchmarkRow[];
}

async function latencyUnderIngestion(configuration: string, environment: Record<string, string>): Promise<BenchmarkRow[]> {
  const server = await startServer({ DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-serving-")), ...environment });
  try {
    const token = await mintAccessToken(jwt, { email: user, orgId: org });
    progress(`${configuration}: ingesting the example corpus`);
    await ingestCorpus(server, token);
    const questions = (JSON.parse(readFileSync(join(root, "examples", "corpus-questions.json"), "utf8")) as { question: string }[]).map(
      (entry) => entry.question,
    );
    // Warm-up (first questions load the tokenizer and compile hot paths), then the baseline:
    // the same sampling for 15 s, without ingestion.
    const warm = { done: false };
    const warming = sample(server, token, questions, warm);
    await sleep(3000);
    warm.done = true;
    await warming;
    progress(`${configuration}: baseline (15 s)`);
    await server.stats();
    const quiet = { done: false };
    const baselineRun = sample(server, token, questions, quiet);
    await sleep(15_000);
    quiet.done = true;
    const baseline = await baselineRun;
    const loopBase = await server.stats();

    // Under ingestion: the upload first (answered 202 once on disk), then the upsert, sampled until the upsert returns.
    const upload = uploadForm(
      Array.from({ length: 25 }, (_, index) => ({ name: `bulk-${index}.txt`, content: generatedText(2 * 1024 * 1024, 1000 + index) })),
      { acl: "|user:_all_|" },
    );
    const busy = { done: false };
    progress(`${configuration}: sampling during the upload and the upsert`);
    const started = performance.now();
    const loadedRun = sample(server, token, questions, busy);
    const uploaded = await fetch(`${server.setB}/api/ingest?wait=false`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: upload,
    });
    if (uploaded.status !== 202) throw new Error(`the 50 MB upload answered ${uploaded.status}: ${await uploaded.text()}`);
    const { jobId } = (await uploaded.json()) as { jobId: string };
    const uploadSeconds = (performance.now() - started) / 1000;
    const upserted = await fetch(`${server.setA}/upsert`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: user, documents: upsertDocuments(2000, "note") }),
    });
    if (upserted.status !== 200) throw new Error(`the 2,000-document upsert answered ${upserted.status}: ${await upserted.text()}`);
    const upsertSeconds = (performance.now() - started) / 1000;
    // The window lasts while the upload's job runs too (at most 4 minutes).
    let job = "running";
    while ((job === "queued" || job === "running") && performance.now() - started < 240_000) {
      await sleep(500);
      const state = await fetch(`${server.setB}/api/ingest/${jobId}`, { headers: { Authorization: `Bearer ${token}` } });
      job = ((await state.json()) as { state: string }).state;
    }
    busy.done = true;
    const seconds = (performance.now() - started) / 1000;
    progress(
      `${configuration}: upload on disk after ${uploadSeconds.toFixed(1)} s, upsert answered after ${upsertSeconds.toFixed(1)} s, upload job ${job} after ${seconds.toFixed(1)} s`,
    );
    const loaded = await loadedRun;
    const loopLoaded = await server.stats();
    const rows = latencyRows(configuration, baseline, loaded, loopBase, loopLoaded, seconds);
    progress(`${configuration}: ${JSON.stringify(rows.map((row) => [row.configuration, row.figures, row.baseline?.value]))}`);
    return rows;
  } finally {
    await server.stop();
  }
}

/** A 2 GiB file of zeros deflated into about 2 MB, named like a Word document's body. */
async function zipBomb(): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const megabyte = Buffer.alloc(1024 * 1024);
  zip.addBuffer(
    Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    "[Content_Types].xml",
  );
  zip.addReadStream(
    Readable.from(
      (function* () {
        for (let index = 0; index < 2048; index++) yield megabyte;
      })(),
    ),
    "word/document.xml",
    { size: 2048 * megabyte.length },
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface HostileOutcome {
  name: string;
  requests: number;
  statuses: Map<string, number>;
  serverErrors: number;
  undocumented: number;
}

async function hostileSet(): Promise<BenchmarkRow[]> {
  const bomb = await zipBomb();
  const server = await startServer({
    DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-hostile-")),
    JWT_SECRET: secret,
    RAG_LLM_PROVIDER: "extractive",
    EMBED_PROVIDER: "none",
    LOG_LEVEL: "error",
  });
  const outcomes: HostileOutcome[] = [];
  let peakRss = 0;
  let sampling = true;
  const rssSampler = (async () => {
    while (sampling) {
      peakRss = Math.max(peakRss, (await server.stats()).rss);
      await sleep(200);
    }
  })();
  try {
    const token = await mintAccessToken(jwt, { email: user, orgId: org });
    await ingestCorpus(server, token);
    await fetch(`${server.setA}/upsert`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: user, documents: upsertDocuments(20, "warm") }),
    });
    const warmRss = (await server.stats()).rss;
    peakRss = warmRss;

    const record = async (name: string, send: () => Promise<Response>, count = 1, concurrency = 1) => {
      const outcome: HostileOutcome = { name, requests: 0, statuses: new Map(), serverErrors: 0, undocumented: 0 };
      let next = 0;
      const shown = new Set<string>();
      const worker = async () => {
        while (next < count) {
          next++;
          const response = await send();
          const text = await response.text();
          let code = "";
          try {
            const body = JSON.parse(text) as { code?: string; error?: { code?: string }; errors?: { code: string }[] };
            code = body.code ?? body.error?.code ?? body.errors?.[0]?.code ?? "";
          } catch {}
          outcome.requests++;
          const key = `${response.status}${code ? ` ${code}` : ""}`;
          outcome.statuses.set(key, (outcome.statuses.get(key) ?? 0) + 1);
          if (response.status >= 500) {
            // The first server error of each kind is shown, so a failing run says why.
            if (!shown.has(key)) progress(`${name}: ${response.status} ${text.slice(0, 400)}`);
            shown.add(key);
            outcome.serverErrors++;
          } else if (response.status >= 400 && !documentedCodes.has(code)) outcome.undocumented++;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      outcomes.push(outcome);
    };
    const json = (path: string, body: string, bearer = token) =>
      fetch(`${server.setA}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
        body,
      });

    progress("hostile set");
    await record(`zip bomb (${(bomb.length / 1e6).toFixed(1)} MB, 2 GiB inflated) as bomb.docx`, () =>
      fetch(`${server.setB}/api/ingest`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}` },
        body: uploadForm([{ name: "bomb.docx", content: bomb }], { acl: "|user:_all_|" }),
      }),
    );
    const hundredMegabytes = JSON.stringify({
      user_email: user,
      documents: { big: { title: "big", content: "x".repeat(100 * 1024 * 1024) } },
    });
    await record("100 MB /upsert body", () => json("/upsert", hundredMegabytes));
    await record("10,000-document map", () =>
      json("/upsert", JSON.stringify({ user_email: user, documents: upsertDocuments(10_000, "many") })),
    );
    const deep = `{"user_email":"${user}","documents":{"d":{"title":"t","content":"c","metadata":{"x":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}}}`;
    await record("metadata nested 5,000 levels", () => json("/upsert", deep));
    const organisations = await Promise.all(
      Array.from({ length: 200 }, (_, index) => mintAccessToken(jwt, { email: user, orgId: `hostile-org-${index}` })),
    );
    let turn = 0;
    await record(
      "200 new organisations (an upsert and a question each)",
      async () => {
        const index = turn++;
        const bearer = organisations[Math.floor(index / 2)] as string;
        return index % 2 === 0
          ? json(
              "/upsert",
              JSON.stringify({ user_email: user, documents: { d: { title: "t", content: `Organisation ${index} notes.` } } }),
              bearer,
            )
          : json("/predict", JSON.stringify({ query: "What do the notes say?", user_info: { user_name: user } }), bearer);
      },
      400,
      8,
    );
    sampling = false;
    await rssSampler;
    const growth = (peakRss - warmRss) / (1024 * 1024);
    const rows: BenchmarkRow[] = outcomes.map((outcome) => ({
      benchmark: "hostile set (BM25 only, worker threads)",
      configuration: `${outcome.name}: ${[...outcome.statuses].map(([status, count]) => `${count}x ${status}`).join(", ")}`,
      figures: { requests: outcome.requests, "5xx": outcome.serverErrors, undocumented: outcome.undocumented },
    }));
    const total = (field: "serverErrors" | "undocumented") => outcomes.reduce((sum, outcome) => sum + outcome[field], 0);
    rows.push({
      benchmark: "hostile set (BM25 only, worker threads)",
      configuration: "whole set: RSS growth of the server process from its warm state (target < 300 MB; no 5xx, nothing undocumented)",
      figures: {
        "RSS growth MB": growth,
        "5xx": total("serverErrors"),
        undocumented: total("undocumented"),
        "meets target": growth < 300 && total("serverErrors") === 0 && total("undocumented") === 0 ? 1 : 0,
      },
      baseline: { name: "warm RSS MB", value: warmRss / (1024 * 1024) },
      ratio: peakRss / warmRss,
    });
    return rows;
  } finally {
    sampling = false;
    await rssSampler;
    await server.stop();
  }
}

/** Runs both parts; empty (with a message) when the packages are not built. */
export async function benchmarkServingUnderIngestion(): Promise<BenchmarkRow[]> {
  if (!existsSync(join(root, "packages", "core", "dist", "ingestion-worker.js"))) {
    console.log("serving benchmark skipped: run `npm run build` first (the ingestion worker is loaded from dist/)");
    return [];
  }
  const base = { JWT_SECRET: secret, RAG_LLM_PROVIDER: "extractive", LOG_LEVEL: "error" };
  const parts = new Set((process.env.BENCH_SERVING_CONFIGS ?? "bm25,hybrid,hostile").split(","));
  const rows: BenchmarkRow[] = [];
  if (parts.has("bm25")) rows.push(...(await latencyUnderIngestion("BM25 only", { ...base, EMBED_PROVIDER: "none" })));
  const model = parts.has("hybrid") ? benchmarkModel("serving during ingestion") : undefined;
  if (model) {
    rows.push(
      ...(await latencyUnderIngestion(`hybrid, ${model.id}`, {
        ...base,
        EMBED_PROVIDER: "transformers",
        EMBED_MODEL_PATH: model.root,
        EMBED_MODEL_NAME: model.id,
        EMBED_DIMENSION: String(model.dimension),
        EMBED_DTYPE: model.dtype,
        EMBED_ALLOW_REMOTE: "false",
      })),
    );
  }
  if (parts.has("hostile")) rows.push(...(await hostileSet()));
  return rows;
}
