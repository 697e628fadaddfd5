/**
 * Test helper (not exported): the built `docqa` executable serving the example corpus, as a user
 * runs it: `docqa ingest examples/corpus` into a temporary `DATA_DIR`, then `docqa serve` on free
 * ports, with a real embedding model when one is found locally (else BM25 only).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findLocalModels } from "@docqa/core/testing";

const execFileAsync = promisify(execFile);

/** The repository's root folder. */
export const repositoryRoot = fileURLToPath(new URL("../../../..", import.meta.url));
const docqa = join(repositoryRoot, "packages", "cli", "bin", "docqa.js");

/** Whether `npm run build` has built the executable and the web page's bundle. */
export const docqaBuilt =
  existsSync(join(repositoryRoot, "packages", "cli", "dist", "bin.js")) &&
  existsSync(join(repositoryRoot, "packages", "web-ui", "dist", "browser", "app.js"));

/** The embedding model found locally (`findLocalModels`), or undefined (the server then runs BM25 only). */
export const localModel = findLocalModels(["all-MiniLM-L6-v2", "bge-small-en-v1.5"])[0];

/** A running `docqa serve`. */
export interface BuiltServe {
  /** Base URLs of set A and set B, for example `http://127.0.0.1:41234`. */
  urls: { a: string; b: string };
  /** The server's process id. */
  pid: number;
  /** What the server wrote on standard error so far. */
  log(): string;
  /** Stops it with SIGTERM (it exports buffered spans and closes its stores) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Ingests `examples/corpus` into organisation `acme` (owner `admin@acme.example`, readable by
 * everyone in it) and starts `docqa serve` on free ports over it.
 *
 * @param environment - variables of the server (and of the ingestion) besides the data directory and the model.
 * @param ready - what else the log must show before the server counts as started.
 * @throws when the server exits before it is ready.
 */
export async function startBuiltServe(
  environment: Record<string, string>,
  ready: (log: string) => boolean = () => true,
): Promise<BuiltServe> {
  const model = localModel
    ? {
        EMBED_MODEL_PATH: localModel.root,
        EMBED_MODEL_NAME: localModel.id,
        EMBED_DIMENSION: String(localModel.dimension),
        EMBED_DTYPE: localModel.dtype,
      }
    : { EMBED_PROVIDER: "none" };
  const variables = {
    ...process.env,
    LOG_LEVEL: "warn",
    DATA_DIR: mkdtempSync(join(tmpdir(), "docqa-built-serve-")),
    EMBED_ALLOW_REMOTE: "false",
    ...model,
    ...environment,
  };
  const corpus = join(repositoryRoot, "examples", "corpus");
  await execFileAsync(
    process.execPath,
    [docqa, "ingest", corpus, "--org", "acme", "--owner", "admin@acme.example", "--acl", "|user:_all_|", "--no-progress"],
    {
      cwd: repositoryRoot,
      env: variables,
    },
  );
  return spawnBuiltServe(variables, ready);
}

/**
 * Starts the built `docqa serve` on free ports (sets A and B) with exactly `variables` as its
 * environment, and resolves once both listen and `ready(log)` holds.
 *
 * @throws when the server exits before it is ready.
 */
export async function spawnBuiltServe(variables: NodeJS.ProcessEnv, ready: (log: string) => boolean = () => true): Promise<BuiltServe> {
  const child: ChildProcess = spawn(process.execPath, [docqa, "serve", "--port", "0", "--port-b", "0"], {
    cwd: repositoryRoot,
    env: variables,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const urls: { a?: string; b?: string } = {};
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      for (const match of log.matchAll(/docqa set ([AB]) listening on (\S+)/g)) urls[match[1] === "A" ? "a" : "b"] = match[2];
      if (urls.a && urls.b && ready(log)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`docqa serve exited with ${code}: ${log}`)));
  });
  return {
    pid: child.pid as number,
    urls: urls as { a: string; b: string },
    log: () => log,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
