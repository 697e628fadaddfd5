/**
 * `pullModel` and `docqa models pull` against a local HTTP server that serves a small file the
 * way the Hugging Face hub does (`/{repo}/resolve/{revision}/{file}`, byte ranges): no network.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { registerModelsCommand } from "../commands/models-command.js";
import { defaultHubModel, type HubModelFile, hubFileUrl, pullModel } from "./pull-model.js";

const content = randomBytes(3 * 2 ** 20 + 12_345);
const sha256 = createHash("sha256").update(content).digest("hex");
const model: HubModelFile = { repo: "acme/tiny-GGUF", file: "tiny-q4_k_m.gguf", revision: "main", sha256, size: content.length };
const filePath = "/acme/tiny-GGUF/resolve/main/tiny-q4_k_m.gguf";

let server: Server;
let endpoint: string;
let requests: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
/** When set, the server honours `Range`; otherwise it sends the whole file with 200. */
let rangeSupport = true;
/** When set, the server sends this many bytes of the body and then cuts the connection. */
let cutAfter: number | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push({ url: request.url, headers: request.headers });
    if (request.url !== filePath) {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":"Entry not found"}');
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? "");
    const start = rangeSupport && range ? Number(range[1]) : 0;
    if (start >= content.length) {
      response.writeHead(416, { "content-range": `bytes */${content.length}` }).end();
      return;
    }
    const body = content.subarray(start);
    response.writeHead(start > 0 ? 206 : 200, {
      "content-length": String(body.length),
      ...(start > 0 ? { "content-range": `bytes ${start}-${content.length - 1}/${content.length}` } : {}),
    });
    if (cutAfter !== undefined) {
      response.write(body.subarray(0, cutAfter), () => response.destroy());
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "docqa-models-pull-"));
  requests = [];
  rangeSupport = true;
  cutAfter = undefined;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const target = () => join(directory, model.file);

describe("pullModel", () => {
  it("builds the hub's file URL, and the default is Qwen's published Q4_K_M file", () => {
    expect(hubFileUrl(defaultHubModel)).toBe(
      "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    );
    expect(hubFileUrl(model, `${endpoint}/`)).toBe(`${endpoint}${filePath}`);
  });

  it("downloads, reports progress up to the whole size, verifies and renames; a second run downloads nothing", async () => {
    const progress: number[] = [];
    const first = await pullModel(model, { directory, endpoint, onProgress: ({ received }) => progress.push(received) });
    expect(first).toEqual({ path: target(), status: "downloaded", bytesTransferred: content.length });
    expect(readFileSync(target()).equals(content)).toBe(true);
    expect(existsSync(`${target()}.partial`)).toBe(false);
    expect(progress.at(-1)).toBe(content.length);
    expect(progress.length).toBeGreaterThan(2);
    const second = await pullModel(model, { directory, endpoint });
    expect(second).toEqual({ path: target(), status: "present", bytesTransferred: 0 });
    expect(requests).toHaveLength(1);
  });

  it("resumes a broken download with a Range request and appends the rest", async () => {
    cutAfter = 1_000_000;
    await expect(pullModel(model, { directory, endpoint })).rejects.toMatchObject({ code: "model_unavailable" });
    const kept = readFileSync(`${target()}.partial`).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(content.length);
    cutAfter = undefined;
    const result = await pullModel(model, { directory, endpoint });
    expect(result).toEqual({ path: target(), status: "resumed", bytesTransferred: content.length - kept });
    expect(requests.at(-1)?.headers.range).toBe(`bytes=${kept}-`);
    expect(readFileSync(target()).equals(content)).toBe(true);
  });

  it("starts over when the server ignores Range (200 instead of 206)", async () => {
    writeFileSync(`${target()}.partial`, content.subarray(0, 5000));
    rangeSupport = false;
    const result = await pullModel(model, { directory, endpoint });
    expect(result).toEqual({ path: target(), status: "downloaded", bytesTransferred: content.length });
    expect(readFileSync(target()).equals(content)).toBe(true);
  });

  it("finishes a partial file that already holds every byte (416) without downloading again", async () => {
    writeFileSync(`${target()}.partial`, content);
    const result = await pullModel(model, { directory, endpoint });
    expect(result).toEqual({ path: target(), status: "resumed", bytesTransferred: 0 });
  });

  it("refuses a file whose SHA-256 differs, removes it and keeps no final file", async () => {
    const wrong = { ...model, sha256: "0".repeat(64) };
    const error = (await pullModel(wrong, { directory, endpoint }).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: "model_unavailable" });
    expect(error.message).toContain(`sha256 ${sha256}`);
    expect(existsSync(target())).toBe(false);
    expect(existsSync(`${target()}.partial`)).toBe(false);
  });

  it("replaces a final file that does not verify", async () => {
    writeFileSync(target(), "corrupt");
    expect((await pullModel(model, { directory, endpoint })).status).toBe("downloaded");
    expect(readFileSync(target()).equals(content)).toBe(true);
  });

  it("says not_found for a file the hub does not have", async () => {
    await expect(pullModel({ ...model, file: "missing.gguf" }, { directory, endpoint })).rejects.toMatchObject({ code: "not_found" });
  });

  it("sends HF_TOKEN as a bearer token", async () => {
    await pullModel(model, { directory, endpoint, token: "hf_secret" });
    expect(requests[0]?.headers.authorization).toBe("Bearer hf_secret");
  });
});

describe("docqa models pull", () => {
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      err.push(String(chunk));
      return true;
    });
    const previousExitCode = process.exitCode;
    process.env.HF_ENDPOINT = endpoint;
    try {
      const program = new Command().exitOverride();
      registerModelsCommand(program);
      await program.parseAsync(["models", "pull", ...args], { from: "user" });
      return { stdout: out.join(""), stderr: err.join(""), exitCode: process.exitCode };
    } finally {
      delete process.env.HF_ENDPOINT;
      process.exitCode = previousExitCode;
      stdout.mockRestore();
      stderr.mockRestore();
    }
  }

  it("downloads into --dir and prints the settings as shell exports, with JSON progress on standard error", async () => {
    const result = await run(["--repo", model.repo, "--file", model.file, "--sha256", sha256, "--dir", directory, "--json"]);
    expect(result.stdout).toBe(`export RAG_LLM_PROVIDER=llama-cpp\nexport LOCALLLM_MODEL_PATH=${target()}\n`);
    const events = result.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { phase: string; done: number; total: number });
    expect(events.at(-1)).toMatchObject({ phase: "download", done: 3, total: 4 });
    expect(result.stderr).toContain("SHA-256 verified");
    expect(result.exitCode).toBeUndefined();
  });

  it("exits 1 with the reason when the checksum differs", async () => {
    const result = await run(["--repo", model.repo, "--file", model.file, "--sha256", "f".repeat(64), "--dir", directory, "--quiet"]);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("is not the expected one");
    expect(result.exitCode).toBe(1);
  });
});
