/**
 * Test support for the end-to-end tests of the built `docqa` executable: run it (with or without
 * standard input), start `docqa serve` on a free port, and the environments of a BM25-only and of
 * a real-model configuration. Not part of the published package.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findLocalModels } from "@docqa/core/testing";

/** The repository root. */
export const repositoryRoot = fileURLToPath(new URL("../../../..", import.meta.url));
/** The `docqa` launcher. */
export const docqa = join(repositoryRoot, "packages", "cli", "bin", "docqa.js");
/** Whether `npm run build` has built the CLI. */
export const built = existsSync(join(repositoryRoot, "packages", "cli", "dist", "bin.js"));
/** Retrieval with BM25 only: no model is loaded. */
export const bm25Only: Record<string, string> = { EMBED_PROVIDER: "none" };

const model = findLocalModels(["bge-small-en-v1.5", "all-MiniLM-L6-v2"])[0];
/** A real model from ../shared/data/models (or $DOCQA_MODELS_DIR, or .models), nothing downloaded; undefined when none is found. */
export const realModel: { id: string; environment: Record<string, string> } | undefined = model
  ? {
      id: model.id,
      environment: {
        EMBED_PROVIDER: "transformers",
        EMBED_MODEL_PATH: model.root,
        EMBED_MODEL_NAME: model.id,
        EMBED_DIMENSION: String(model.dimension),
        EMBED_DTYPE: model.dtype,
      },
    }
  : undefined;

/** What a finished `docqa` run printed, and its exit code. */
export interface DocqaRun {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs `docqa args` with `environment` over the current one (`LOG_LEVEL=warn`), feeding `input`
 * on standard input; resolves whatever the exit code (unlike `execFile`'s promise).
 */
export function runDocqa(
  args: readonly string[],
  environment: Record<string, string>,
  options: { input?: string; node?: string } = {},
): Promise<DocqaRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      options.node ?? process.execPath,
      [docqa, ...args],
      { cwd: repositoryRoot, env: { ...process.env, LOG_LEVEL: "warn", ...environment }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : undefined) : 0;
        if (code === undefined) reject(error);
        else resolve({ stdout, stderr, code });
      },
    );
    child.stdin?.end(options.input ?? "");
  });
}

/** Runs `docqa args` and fails with its standard error unless it exits with `expected` (default 0). */
export async function runDocqaOk(
  args: readonly string[],
  environment: Record<string, string>,
  expected = 0,
  input?: string,
): Promise<DocqaRun> {
  const result = await runDocqa(args, environment, { input });
  if (result.code !== expected) throw new Error(`docqa ${args.join(" ")} exited with ${result.code}, not ${expected}:\n${result.stderr}`);
  return result;
}

/** A running `docqa serve`. */
export interface ServedDocqa {
  url: string;
  process: ChildProcess;
  stdout: string[];
}

/** Starts `docqa serve --api a` on a free loopback port and resolves when it listens. */
export function startDocqaServe(environment: Record<string, string>): Promise<ServedDocqa> {
  const child = spawn(process.execPath, [docqa, "serve", "--api", "a", "--port", "0", "--host", "127.0.0.1"], {
    cwd: repositoryRoot,
    env: { ...process.env, LOG_LEVEL: "warn", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  child.stdout?.on("data", (data: Buffer) => stdout.push(data.toString()));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) resolve({ url: match[1] as string, process: child, stdout });
    });
    child.on("exit", (code) => reject(new Error(`docqa serve exited with ${code}: ${output}`)));
  });
}

/** Parses JSON Lines. */
export function jsonLines<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
