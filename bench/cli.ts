/**
 * The command line, as a user runs it (`BENCH_ONLY=cli`, after `npm run build`):
 *
 * - start time of one `docqa ask` over the example corpus, BM25 only and with a local embedding
 *   model, from process start to exit; baseline in the same run: `docqa --version`, the floor of
 *   starting Node.js and the launcher;
 * - throughput of `docqa ask --file` on the first 200 XQuAD questions over its 225 paragraphs,
 *   in-process and through `docqa serve` (set A over HTTP on loopback); baseline in the same run:
 *   the same questions asked by a loop of single `docqa ask` calls (the first 20), which is what a
 *   user scripted before batches existed.
 *
 * `BENCH_CLI_RUNS` sets the start-time samples (default 10).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { sharedDataPath } from "@docqa/core/testing";
import { benchmarkModel, modelEnvironment } from "./local-model.ts";
import { type BenchmarkRow, percentile } from "./statistics.ts";

const execFileAsync = promisify(execFile);
const root = join(import.meta.dirname, "..");
const docqa = join(root, "packages", "cli", "bin", "docqa.js");
const runs = Number(process.env.BENCH_CLI_RUNS ?? 10);

async function docqaRun(args: string[], environment: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [docqa, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "error", ...environment },
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** Milliseconds of `count` runs of `docqa args` (after one warm-up run, which fills the compile cache). */
async function timeRuns(args: string[], environment: Record<string, string>, count: number): Promise<number[]> {
  await docqaRun(args, environment);
  const samples: number[] = [];
  for (let run = 0; run < count; run++) {
    const started = performance.now();
    await docqaRun(args, environment);
    samples.push(performance.now() - started);
  }
  return samples;
}

function serve(environment: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [docqa, "serve", "--api", "a", "--port", "0"], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "error", ...environment },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve({ url: match[1] as string, child });
    });
    child.on("exit", (code) => reject(new Error(`docqa serve exited with ${code}: ${output}`)));
  });
}

/** Questions per second of `docqa ask --file` over `file` (wall clock of the whole process). */
async function batchRate(args: string[], environment: Record<string, string>, questions: number): Promise<number> {
  const started = performance.now();
  await docqaRun(["ask", ...args, "--quiet"], environment);
  return questions / ((performance.now() - started) / 1000);
}

/** Runs the benchmark and returns its rows. */
export async function benchmarkCli(): Promise<BenchmarkRow[]> {
  const rows: BenchmarkRow[] = [];
  const model = benchmarkModel("docqa ask start");
  const configurations: [string, Record<string, string>][] = [["BM25 only", { EMBED_PROVIDER: "none" }]];
  if (model) configurations.push([`hybrid, ${model.id}`, modelEnvironment(model)]);
  const floor = await timeRuns(["--version"], {}, runs);
  const question = "How many vacation days do new employees get?";
  for (const [name, environment] of configurations) {
    const env = { ...environment, DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-bench-cli-")) };
    await docqaRun(["ingest", "examples/corpus", "--org", "northwind", "--acl", "|user:_all_|", "--quiet"], env);
    const samples = await timeRuns(["ask", "--org", "northwind", "--user", "ann@northwind.example", question], env, runs);
    rows.push({
      benchmark: "docqa ask start (example corpus)",
      configuration: name,
      figures: { "p50 ms": percentile(samples, 50), "min ms": Math.min(...samples), "max ms": Math.max(...samples) },
      baseline: { name: "docqa --version p50 ms", value: percentile(floor, 50) },
      ratio: percentile(samples, 50) / percentile(floor, 50),
    });
  }

  const xquad = sharedDataPath("qa", "xquad-en");
  if (!xquad) {
    console.warn("docqa ask --file throughput skipped: ../shared/data/qa/xquad-en is missing");
    return rows;
  }
  const directory = mkdtempSync(join(tmpdir(), "docqa-bench-batch-"));
  const questions = readFileSync(join(xquad, "questions.jsonl"), "utf8").split("\n").slice(0, 200);
  const file = join(directory, "questions.jsonl");
  writeFileSync(file, `${questions.join("\n")}\n`);
  const firstQuestions = questions.slice(0, 20).map((line) => (JSON.parse(line) as { question: string }).question);
  for (const [name, environment] of configurations) {
    const env = { ...environment, DATA_DIR: join(directory, name.replace(/\W+/g, "-")), JWT_SECRET: "bench-cli-secret" };
    await docqaRun(["ingest", join(xquad, "contexts.jsonl"), "--org", "xquad", "--acl", "|user:_all_|", "--quiet"], env);
    const asker = ["--org", "xquad", "--user", "reader@xquad.example"];
    const loopStarted = performance.now();
    for (const single of firstQuestions) await docqaRun(["ask", ...asker, single], env);
    const loopRate = firstQuestions.length / ((performance.now() - loopStarted) / 1000);
    const inProcess = await batchRate([...asker, "--file", file, "--output", join(directory, "in-process.jsonl")], env, questions.length);
    const server = await serve(env);
    try {
      const token = (await docqaRun(["token", "--email", "reader@xquad.example", "--org", "xquad"], env)).trim();
      const overHttp = await batchRate(
        ["--file", file, "--server", server.url, "--concurrency", "8", "--output", join(directory, "http.jsonl")],
        { DOCQA_TOKEN: token },
        questions.length,
      );
      for (const [path, rate] of [
        ["in-process", inProcess],
        ["over HTTP (set A, 8 at a time)", overHttp],
      ] as const) {
        rows.push({
          benchmark: "docqa ask --file, 200 XQuAD questions",
          configuration: `${name}, ${path}`,
          figures: { "questions/s": rate },
          baseline: { name: "loop of single docqa ask, questions/s", value: loopRate },
          ratio: rate / loopRate,
        });
      }
    } finally {
      server.child.kill("SIGTERM");
    }
  }
  return rows;
}
